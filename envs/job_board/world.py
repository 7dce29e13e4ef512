"""World builder for job_board: companies, recruiters, postings, candidates and their applications.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Every random choice comes
from ``ctx.rng`` / ``ctx.faker`` and every timestamp from ``ctx.clock``. The rows keep the invariants
``tools.py`` relies on:

- salary ranges obey the posting rules (min >= 15000, max <= 1.6 x min); open and paused postings close
  after today, closed ones have ``closed_at``; open postings have a description and a required skill;
- one application per candidate and posting, each with the full status history in
  ``application_events``; screening answers exist for every required question; knock-out answers are
  rejected; hires never exceed a posting's openings (open postings keep a free opening);
- interviews are on weekdays 09:00-17:00 and never overlap for an interviewer or a candidate; completed
  interviews have a rating; applications at offer hold exactly one extended offer (salary in range,
  start after expiry); hired ones an accepted offer;
- every timestamp lies before the clock, except scheduled interviews, offer expiries and closing dates.

Planted in every world: recruiters with two or more interviews on one future day, applications at the
interview stage with an interview that has happened but has no feedback yet, screening-stage
applications, extended offers, open postings with exactly the two standard screening questions and open
postings without questions. Two guarantees run last and add rows only where chance left none (so a world
that already has the situation, the canonical seed 0 among them, is unchanged): ``ensure_busy_day`` (a
uniquely named active recruiter with two or more scheduled interviews on one future day, every
interviewee's name unique) and ``ensure_switch`` (an applied / screening application of a uniquely named
candidate and an open posting without questions in the same department to switch to) and
``ensure_skill_match`` (an open or paused posting with applied / screening applicants holding a required
skill at level 3 or more, all uniquely named).

With ``ctx.distractors``: namesake candidates (same full name, another e-mail), recruiters sharing a
surname, and postings whose titles repeat at another company.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _ts
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]

COMPANIES = [
    ("Brightwave Analytics", "brightwave", "Data & AI", "Chicago"),
    ("Northpeak Software", "northpeak", "Software", "Seattle"),
    ("Harborline Logistics", "harborline", "Logistics", "Baltimore"),
    ("Verdant Health", "verdant-health", "Healthcare", "Boston"),
    ("Lumen Pay", "lumenpay", "Fintech", "New York"),
    ("Cobalt Robotics Works", "cobalt-robotics", "Manufacturing", "Pittsburgh"),
    ("Juniper Learning", "juniper-learning", "Education", "Austin"),
    ("Redfern Media", "redfern-media", "Media", "Los Angeles"),
    ("Silverline Energy", "silverline", "Energy", "Denver"),
    ("Oakhaven Retail", "oakhaven", "Retail", "Atlanta"),
    ("Quillon Security", "quillon", "Cybersecurity", "Washington"),
    ("Tidepool Games", "tidepool", "Gaming", "San Francisco"),
]
SKILLS = ["Python", "Java", "Go", "TypeScript", "React", "SQL", "PostgreSQL", "Kubernetes", "Docker", "AWS", "GCP",
          "Terraform", "Machine Learning", "Data Analysis", "Spark", "Airflow", "Figma", "UX Research", "Product Management",
          "Agile", "Salesforce", "Excel", "Financial Modeling", "Accounting", "Recruiting", "Customer Support",
          "Technical Writing", "Swift", "Kotlin", "C++", "Rust", "Security Auditing", "Networking", "Linux", "Tableau",
          "Negotiation"]
ROLES = [  # department, title, skills pool
    ("Engineering", "Backend Engineer", ["Python", "Go", "Java", "PostgreSQL", "Docker", "AWS", "SQL"]),
    ("Engineering", "Frontend Engineer", ["TypeScript", "React", "Figma", "Agile"]),
    ("Engineering", "Platform Engineer", ["Kubernetes", "Terraform", "AWS", "GCP", "Linux", "Go"]),
    ("Engineering", "Mobile Engineer", ["Swift", "Kotlin", "Agile", "TypeScript"]),
    ("Data", "Data Engineer", ["Python", "Spark", "Airflow", "SQL", "AWS"]),
    ("Data", "Data Analyst", ["SQL", "Tableau", "Excel", "Data Analysis", "Python"]),
    ("Data", "Machine Learning Engineer", ["Python", "Machine Learning", "Spark", "GCP"]),
    ("Product", "Product Manager", ["Product Management", "Agile", "UX Research", "Data Analysis"]),
    ("Design", "Product Designer", ["Figma", "UX Research", "Agile"]),
    ("Finance", "Financial Analyst", ["Financial Modeling", "Excel", "Accounting", "SQL"]),
    ("Operations", "Customer Success Manager", ["Customer Support", "Salesforce", "Negotiation"]),
    ("Security", "Security Engineer", ["Security Auditing", "Networking", "Linux", "Python"]),
    ("People", "Technical Recruiter", ["Recruiting", "Negotiation", "Excel"]),
    ("Engineering", "Systems Engineer", ["C++", "Rust", "Linux", "Networking"]),
]
LEVELS = {"junior": ("Junior ", 55, 75), "mid": ("", 80, 110), "senior": ("Senior ", 120, 160), "lead": ("Lead ", 150, 200)}
CITIES = ["Chicago", "Seattle", "Baltimore", "Boston", "New York", "Pittsburgh", "Austin", "Los Angeles", "Denver",
          "Atlanta", "Washington", "San Francisco", "Portland", "Minneapolis", "Phoenix"]
RECRUITER_TITLES = ["Talent Partner", "Technical Recruiter", "Hiring Manager", "Recruiting Coordinator",
                    "Head of Talent"]
Q_AUTH = "Are you legally authorised to work in the United States?"
Q_YEARS = "How many years of professional experience do you have in this field?"
Q_MORE = "Is there anything else you would like us to know?"
REJECT_REASONS = ["Not enough relevant experience", "Salary expectations too high", "Another candidate was a "
                  "closer fit", "Did not pass the technical interview"]
FEEDBACK = ["Strong communicator, solid fundamentals", "Good technical depth, some gaps in system design",
            "Great culture fit", "Needs more hands-on experience", "Impressive portfolio"]
EMAIL_DOMAINS = ["gmail.com", "outlook.com", "yahoo.com", "proton.me", "icloud.com", "hey.com"]


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()


def _local(first: str, last: str) -> str:
    return re.sub(r"[^a-z]", "", _ascii(first)) + "." + re.sub(r"[^a-z]", "", _ascii(last))


FLOW = ["applied", "screening", "interview", "offer", "hired"]


class World:
    def __init__(self, ctx: WorldContext):
        self.ctx = ctx
        self.rng = ctx.rng
        self.now = ctx.clock.replace(microsecond=0)
        self.t = Tables([
            "companies", "recruiters", "skills", "job_postings", "posting_skills", "screening_questions",
            "candidates", "candidate_skills", "resumes", "applications", "screening_answers", "application_events",
            "interviews", "offers", "saved_jobs", "job_alerts"])
        self.emails: set[str] = set()
        self.busy_r: dict[int, list[tuple[datetime, datetime]]] = {}
        self.busy_c: dict[int, list[tuple[datetime, datetime]]] = {}
        self.skill_id = {}

    def before(self, lo: float, hi: float) -> datetime:
        return self.ctx.moment_ago(lo, hi)

    def email(self, first: str, last: str, domain: str) -> str:
        base = _local(first, last)
        e, n = f"{base}@{domain}", 2
        while e in self.emails:
            e, n = f"{base}{n}@{domain}", n + 1
        self.emails.add(e)
        return e

    # -- scheduling ---------------------------------------------------------------------------------
    def slot(self, rid: int, cid: int, lo: int, hi: int, minutes: int) -> tuple[datetime, datetime] | None:
        for _ in range(40):
            d = self.now.date() + timedelta(days=self.rng.randint(lo, hi))
            if d.weekday() >= 5:
                continue
            m = 9 * 60 + 15 * self.rng.randint(0, (8 * 60 - minutes) // 15)
            s = datetime.combine(d, time(m // 60, m % 60))
            e = s + timedelta(minutes=minutes)
            if lo > 0 and s <= self.now:
                continue
            if hi < 0 and e >= self.now:
                continue
            if any(a < e and b > s for a, b in self.busy_r.get(rid, [])):
                continue
            if any(a < e and b > s for a, b in self.busy_c.get(cid, [])):
                continue
            self.busy_r.setdefault(rid, []).append((s, e))
            self.busy_c.setdefault(cid, []).append((s, e))
            return s, e
        return None

    # -- reference data -----------------------------------------------------------------------------
    def base(self) -> None:
        ctx = self.ctx
        for s in SKILLS:
            self.skill_id[s] = self.t.add("skills", {"name": s})["id"]
        for name, slug, industry, city in COMPANIES[:ctx.n(5, 12)]:
            c = self.t.add("companies", {"name": name, "slug": slug, "industry": industry, "hq_city": city,
                                         "size_band": ctx.pick(["51-200", "201-1000", "1000+", "1-50"]),
                                         "verified": int(ctx.chance(0.8)), "created_at": _ts(self.before(400, 1500))})
            domain = slug.replace("-", "") + ".com"
            surnames: list[str] = []
            n = ctx.n(3, 8)
            for i in range(n):
                first, last = ctx.faker.first_name(), ctx.faker.last_name()
                if ctx.distractors and surnames and i == n - 1:
                    last = surnames[0]
                surnames.append(last)
                self.t.add("recruiters", {"company_id": c["id"], "full_name": f"{first} {last}",
                                          "email": self.email(first, last, domain),
                                          "title": "Head of Talent" if i == 0 else ctx.pick(RECRUITER_TITLES[:4]),
                                          "role": "admin" if i == 0 else "recruiter",
                                          "is_active": 0 if (i == n - 1 and n > 3 and ctx.chance(0.5)) else 1,
                                          "created_at": _ts(self.before(100, 600))})

    def event(self, a: Row, old: str | None, new: str, actor_type: str, recruiter_id: int | None, note: str,
              at: datetime) -> None:
        """One step of an application's status history, as the tools record it."""
        self.t.add("application_events", {"application_id": a["id"], "from_status": old, "to_status": new,
                                           "actor_type": actor_type, "recruiter_id": recruiter_id, "note": note,
                                           "created_at": _ts(at)})

    def scheduled_interview(self, a: Row, r: Row, sl: tuple[datetime, datetime], kind: str, created: datetime) -> None:
        self.t.add("interviews", {"application_id": a["id"], "interviewer_id": r["id"], "kind": kind,
                                  "starts_at": _ts(sl[0]), "ends_at": _ts(sl[1]), "status": "scheduled",
                                  "rating": None, "feedback": "", "created_at": _ts(created)})

    def active_recruiters(self, company_id: int) -> list[Row]:
        return [r for r in self.t["recruiters"] if r["company_id"] == company_id and r["is_active"]]

    # -- postings ---------------------------------------------------------------------------------
    def postings(self) -> None:
        ctx = self.ctx
        for c in self.t["companies"]:
            recs = self.active_recruiters(c["id"])
            for k in range(ctx.n(6, 40)):
                dept, title, pool = ctx.pick(ROLES)
                level = ctx.weighted({"junior": 0.2, "mid": 0.35, "senior": 0.3, "lead": 0.15})
                prefix, lo_k, hi_k = LEVELS[level]
                smin = self.rng.randint(lo_k, hi_k) * 1000
                smax = min(smin * 16 // 10 // 1000 * 1000, (int(smin * self.rng.uniform(1.15, 1.45)) // 1000) * 1000)
                status = ctx.weighted({"open": 0.55, "draft": 0.1, "paused": 0.1, "closed": 0.25})
                if k == 0:
                    status = "open"
                created = self.before(20, 90)
                posted = None if status == "draft" else self.ctx.between(created, created + timedelta(days=3))
                closed = (self.ctx.between(posted + timedelta(days=10), self.now - timedelta(days=1))
                          if status == "closed" else None)
                closes = (closed.date() if closed else self.now.date() + timedelta(days=self.rng.randint(6, 60)))
                remote = ctx.weighted({"onsite": 0.3, "hybrid": 0.4, "remote": 0.3})
                p = self.t.add("job_postings", {
                    "reference": "", "company_id": c["id"], "recruiter_id": ctx.pick(recs)["id"],
                    "title": prefix + title, "department": dept,
                    "location": c["hq_city"] if ctx.chance(0.7) else ctx.pick(CITIES), "remote_policy": remote,
                    "employment_type": ctx.weighted({"full_time": 0.75, "contract": 0.15, "part_time": 0.05,
                                                     "internship": 0.05}) if level != "junior" else "full_time",
                    "seniority": level, "salary_min": smin, "salary_max": smax,
                    "openings": ctx.weighted({1: 0.6, 2: 0.3, 3: 0.1}), "status": status,
                    "description": "" if status == "draft" and ctx.chance(0.5) else
                    f"{c['name']} is hiring a {prefix}{title} for its {dept} team. You will work with "
                    f"{', '.join(pool[:3])} on products used by thousands of customers.",
                    "closes_on": closes.isoformat(), "created_at": _ts(created),
                    "posted_at": _ts(posted) if posted else None, "closed_at": _ts(closed) if closed else None,
                    "updated_at": _ts(closed or posted or created)})
                p["reference"] = self.ctx.tools._reference(p["id"])
                p["_pool"], p["_posted"], p["_closed"] = pool, posted, closed
                skills = ctx.sample(pool, self.rng.randint(2, min(5, len(pool))))
                nreq = 0 if (status == "draft" and ctx.chance(0.5)) else self.rng.randint(1, min(3, len(skills)))
                for i, s in enumerate(skills):
                    self.t.add("posting_skills", {"posting_id": p["id"], "skill_id": self.skill_id[s],
                                                  "required": int(i < nreq)})
                qmode = ctx.weighted({"none": 0.35, "auth": 0.2, "two": 0.3, "three": 0.15})
                if k == 1:
                    qmode = "two"
                if qmode != "none":
                    self.t.add("screening_questions", {"posting_id": p["id"], "position": 1, "question": Q_AUTH,
                                                       "answer_type": "yes_no", "required": 1, "knockout_answer": "no"})
                if qmode in ("two", "three"):
                    self.t.add("screening_questions", {"posting_id": p["id"], "position": 2, "question": Q_YEARS,
                                                       "answer_type": "number", "required": 1, "knockout_answer": None})
                if qmode == "three":
                    self.t.add("screening_questions", {"posting_id": p["id"], "position": 3, "question": Q_MORE,
                                                       "answer_type": "text", "required": 0, "knockout_answer": None})
        if ctx.distractors:  # the same title at another company
            comps = self.t["companies"]
            for p in list(self.t["job_postings"])[:: 5]:
                other = comps[p["company_id"] % len(comps)]
                q = self.t.add("job_postings", {**{k: v for k, v in p.items() if not k.startswith("_") and k != "id"},
                                                "company_id": other["id"],
                                                "recruiter_id": self.active_recruiters(other["id"])[0]["id"]})
                q["reference"] = self.ctx.tools._reference(q["id"])
                q["_pool"], q["_posted"], q["_closed"] = p["_pool"], p["_posted"], p["_closed"]
                self.t.add("posting_skills", {"posting_id": q["id"], "skill_id": self.skill_id[p["_pool"][0]],
                                              "required": 1})

    # -- candidates ---------------------------------------------------------------------------------
    def candidates(self) -> None:
        ctx = self.ctx
        for _ in range(ctx.n(70, 650)):
            first, last = ctx.faker.first_name(), ctx.faker.last_name()
            dept, title, pool = ctx.pick(ROLES)
            yrs = self.rng.randint(0, 18)
            c = self.t.add("candidates", {"full_name": f"{first} {last}",
                                          "email": self.email(first, last, ctx.pick(EMAIL_DOMAINS)),
                                          "phone": ctx.faker.numerify("(###) ###-####"), "city": ctx.pick(CITIES),
                                          "headline": f"{title} with {yrs} years of experience",
                                          "years_experience": yrs, "open_to_remote": int(ctx.chance(0.8)),
                                          "created_at": _ts(self.before(60, 500))})
            extra = ctx.sample([s for s in SKILLS if s not in pool], 2)
            for s in ctx.sample(pool, self.rng.randint(2, min(4, len(pool)))) + extra:
                self.t.add("candidate_skills", {"candidate_id": c["id"], "skill_id": self.skill_id[s],
                                                "level": self.rng.randint(1, 5)})
            slug = _local(first, last).replace(".", "-")
            self.t.add("resumes", {"candidate_id": c["id"], "filename": f"{slug}-cv.pdf", "title": f"{title} CV",
                                   "is_primary": 1, "uploaded_at": _ts(self.before(30, 200))})
            if ctx.chance(0.3):
                self.t.add("resumes", {"candidate_id": c["id"], "filename": f"{slug}-cv-short.pdf",
                                       "title": "One-page resume", "is_primary": 0,
                                       "uploaded_at": _ts(self.before(20, 200))})
        if ctx.distractors:
            for c in list(self.t["candidates"])[:: 8]:
                first, last = c["full_name"].split(" ", 1)
                d = self.t.add("candidates", {**{k: v for k, v in c.items() if k != "id"},
                                              "email": self.email(first, last, ctx.pick(EMAIL_DOMAINS)),
                                              "city": ctx.pick(CITIES)})
                self.t.add("resumes", {"candidate_id": d["id"],
                                       "filename": f"{_local(first, last).replace('.', '-')}-resume.pdf",
                                       "title": "Resume", "is_primary": 1, "uploaded_at": _ts(self.before(20, 200))})

    def primary_resume(self, cid: int) -> int:
        return next(r["id"] for r in self.t["resumes"] if r["candidate_id"] == cid and r["is_primary"])

    # -- applications -------------------------------------------------------------------------------
    def applications(self) -> None:
        ctx = self.ctx
        cands = self.t["candidates"]
        qs_by_p: dict[int, list[Row]] = {}
        for q in self.t["screening_questions"]:
            qs_by_p.setdefault(q["posting_id"], []).append(q)
        for p in self.t["job_postings"]:
            if p["status"] == "draft":
                continue
            end = p["_closed"] or self.now
            hires_left = p["openings"] - (1 if p["status"] != "closed" else 0)
            for c in ctx.sample(cands, self.rng.randint(3, 7)):
                if p["status"] == "closed":
                    target = ctx.weighted({"hired": 0.25, "rejected": 0.6, "withdrawn": 0.15})
                else:
                    target = ctx.weighted({"applied": 0.3, "screening": 0.2, "interview": 0.2, "offer": 0.08,
                                           "hired": 0.04, "rejected": 0.12, "withdrawn": 0.06})
                if target == "hired":
                    if hires_left <= 0:
                        target = "rejected"
                    else:
                        hires_left -= 1
                self.application(p, c, target, end, qs_by_p.get(p["id"], []))

    def application(self, p: Row, c: Row, target: str, end: datetime, qs: list[Row]) -> Row:
        ctx = self.ctx
        applied = self.ctx.between(p["_posted"] + timedelta(hours=2), end - timedelta(days=4))
        knockout = target == "rejected" and qs and ctx.chance(0.3)
        a = self.t.add("applications", {"posting_id": p["id"], "candidate_id": c["id"],
                                        "resume_id": self.primary_resume(c["id"]), "status": target,
                                        "cover_note": ctx.pick(["", "", "I would love to join the team.",
                                                                "Happy to relocate."]),
                                        "rejection_reason": None,
                                        "applied_at": _ts(applied), "updated_at": _ts(applied)})
        for q in qs:
            if q["answer_type"] == "yes_no":
                ans = "no" if knockout else "yes"
            elif q["answer_type"] == "number":
                ans = str(min(c["years_experience"], 30))
            else:
                if ctx.chance(0.5):
                    continue
                ans = "Available to start within a month."
            self.t.add("screening_answers", {"application_id": a["id"], "question_id": q["id"], "answer": ans})
        recs = self.active_recruiters(p["company_id"])
        t = applied
        self.event(a, None, "applied", "candidate", None, "", t)
        if knockout:
            reason = f"Screening knock-out: {Q_AUTH}"
            a["rejection_reason"] = reason
            self.event(a, "applied", "rejected", "system", None, reason, t)
            return a
        stop = {"applied": 0, "screening": 1, "interview": 2, "offer": 3, "hired": 4}.get(target)
        if stop is None:  # rejected / withdrawn somewhere along the way
            stop = self.rng.randint(0, 2)
        step = (end - t) / 6
        status = "applied"
        for i in range(1, stop + 1):
            t = t + step * self.rng.uniform(0.5, 1.0)
            new = FLOW[i]
            if new == "screening" or new == "interview":
                actor = ("recruiter", p["recruiter_id"])
            elif new == "offer":
                actor = ("recruiter", p["recruiter_id"])
            else:
                actor = ("candidate", None)
            if new == "offer":  # interviews happen before the offer
                self.completed_interview(a, c, recs, applied, t)
            self.event(a, status, new, actor[0], actor[1], "", t)
            status = new
        if target in ("rejected", "withdrawn"):
            t = t + step * self.rng.uniform(0.5, 1.0)
            if status == "interview" and ctx.chance(0.5):
                self.completed_interview(a, c, recs, applied, t)
            reason = ctx.pick(REJECT_REASONS) if target == "rejected" else None
            a["rejection_reason"] = reason
            self.event(a, status, target, "recruiter" if target == "rejected" else "candidate",
                       p["recruiter_id"] if target == "rejected" else None, reason or "", t)
        a["updated_at"] = _ts(t)
        a["_last"] = t
        if target == "offer":
            exp = self.now.date() + timedelta(days=self.rng.randint(2, 14))
            self.offer(a, p, "extended", t, exp, None)
        elif target == "hired":
            self.offer(a, p, "accepted", t - step * 0.5, (t - step * 0.3).date(), t)
        return a

    def offer(self, a: Row, p: Row, status: str, made: datetime, exp: date, responded: datetime | None) -> None:
        sal = self.rng.randint(p["salary_min"] // 1000, p["salary_max"] // 1000) * 1000
        self.t.add("offers", {"application_id": a["id"], "salary": sal,
                              "start_date": (exp + timedelta(days=self.rng.randint(14, 45))).isoformat(),
                              "expires_on": exp.isoformat(), "status": status, "created_by": p["recruiter_id"],
                              "created_at": _ts(made), "responded_at": _ts(responded) if responded else None})

    def completed_interview(self, a: Row, c: Row, recs: list[Row], lo: datetime, hi: datetime) -> None:
        r = self.ctx.pick(recs)
        lo_d = -max(1, (self.now - lo).days - 1)
        hi_d = -max(1, (self.now - hi).days + 1)
        if lo_d > hi_d:
            return
        sl = self.slot(r["id"], c["id"], lo_d, hi_d, self.ctx.pick([30, 45, 60]))
        if sl is None:
            return
        self.t.add("interviews", {"application_id": a["id"], "interviewer_id": r["id"], "kind": self.ctx.pick(
            ["phone", "video", "onsite"]), "starts_at": _ts(sl[0]), "ends_at": _ts(sl[1]), "status": "completed",
              "rating": self.rng.randint(2, 5), "feedback": self.ctx.pick(FEEDBACK),
              "created_at": _ts(sl[0] - timedelta(days=2))})

    def upcoming_interviews(self) -> None:
        """Interviews for applications at the interview stage: scheduled ahead, or held without feedback."""
        ctx = self.ctx
        posts = {p["id"]: p for p in self.t["job_postings"]}
        apps = [a for a in self.t["applications"] if a["status"] == "interview"]
        for i, a in enumerate(apps):
            p = posts[a["posting_id"]]
            recs = self.active_recruiters(p["company_id"])
            r = ctx.pick(recs)
            mode = i % 3
            if mode == 0:
                sl = self.slot(r["id"], a["candidate_id"], 1, 10, ctx.pick([45, 60]))
            elif mode == 1:
                sl = self.slot(r["id"], a["candidate_id"], -2, -1, 45)
            else:
                continue
            if sl is None:
                continue
            self.scheduled_interview(a, r, sl, ctx.pick(["phone", "video", "onsite"]),
                                     max(a["_last"], sl[0] - timedelta(days=6)) if sl[0] < self.now else a["_last"])

    def busy_days(self) -> None:
        """Recruiters with two or three interviews on one future day."""
        ctx = self.ctx
        posts = {p["id"]: p for p in self.t["job_postings"]}
        by_company: dict[int, list[Row]] = {}
        for a in self.t["applications"]:
            if a["status"] == "interview":
                by_company.setdefault(posts[a["posting_id"]]["company_id"], []).append(a)
        for cid in sorted(by_company):
            apps = by_company[cid]
            if len(apps) < 2:
                continue
            r = ctx.pick(self.active_recruiters(cid))
            for _ in range(10):
                k = self.rng.randint(2, 9)
                if (self.now.date() + timedelta(days=k)).weekday() < 5:
                    break
            for a in ctx.sample(apps, 3):
                if any(i["application_id"] == a["id"] and i["status"] == "scheduled" and i["starts_at"] > _ts(self.now)
                       for i in self.t["interviews"]):
                    continue
                sl = self.slot(r["id"], a["candidate_id"], k, k, 45)
                if sl is None:
                    continue
                self.scheduled_interview(a, r, sl, "video", a["_last"])

    def extras(self) -> None:
        ctx = self.ctx
        live = [p for p in self.t["job_postings"] if p["status"] in ("open", "paused")]
        for c in self.t["candidates"]:
            for p in ctx.sample(live, self.rng.randint(0, 3)):
                self.t.add("saved_jobs", {"candidate_id": c["id"], "posting_id": p["id"],
                                          "created_at": _ts(self.ctx.between(p["_posted"], self.now))})
            if ctx.chance(0.4):
                kws: set[str] = set()
                for _ in range(self.rng.randint(1, 2)):
                    kw = ctx.pick(ROLES)[1].lower()
                    if kw in kws:
                        continue
                    kws.add(kw)
                    self.t.add("job_alerts", {"candidate_id": c["id"], "keywords": kw,
                                              "location": ctx.pick([None, c["city"]]),
                                              "remote_only": int(ctx.chance(0.3)),
                                              "min_salary": ctx.pick([None, 80000, 100000, 120000]),
                                              "frequency": ctx.pick(["daily", "weekly"]),
                                              "is_active": int(ctx.chance(0.85)),
                                              "created_at": _ts(self.before(3, 90))})

    # -- guarantees (run last; they change nothing in a world that already has the situation) ---------
    def _name_counts(self) -> tuple[Counter, Counter]:
        return (Counter(c["full_name"] for c in self.t["candidates"]),
                Counter(r["full_name"] for r in self.t["recruiters"]))

    def _has_busy_day(self) -> bool:
        """A future day on which an active recruiter with a unique name holds two or more scheduled
        interviews, all with candidates whose names are unique (template interviewer_day_candidates)."""
        cn, rn = self._name_counts()
        now = _ts(self.now)
        apps = {a["id"]: a for a in self.t["applications"]}
        cands = {c["id"]: c for c in self.t["candidates"]}
        recs = {r["id"]: r for r in self.t["recruiters"]}
        days: dict[tuple[int, str], list[Row]] = {}
        for i in self.t["interviews"]:
            if i["status"] == "scheduled":
                days.setdefault((i["interviewer_id"], i["starts_at"][:10]), []).append(i)
        for (rid, _day), ivs in sorted(days.items()):
            r = recs[rid]
            if sum(i["starts_at"] > now for i in ivs) < 2 or not r["is_active"] or rn[r["full_name"]] != 1:
                continue
            if all(cn[cands[apps[i["application_id"]]["candidate_id"]]["full_name"]] == 1 for i in ivs):
                return True
        return False

    def ensure_busy_day(self) -> None:
        """Plant a recruiter's busy future day with two interviews of uniquely named candidates when chance
        (namesakes among the interviewees) left none: first with applications that have no interview ahead,
        then with any application at the interview stage."""
        if self._has_busy_day():
            return
        cn, rn = self._name_counts()
        now = _ts(self.now)
        posts = {p["id"]: p for p in self.t["job_postings"]}
        cands = {c["id"]: c for c in self.t["candidates"]}
        for fresh_only in (True, False):
            ahead = {i["application_id"] for i in self.t["interviews"]
                     if i["status"] == "scheduled" and i["starts_at"] > now}
            by_company: dict[int, list[Row]] = {}
            for a in self.t["applications"]:
                if (a["status"] == "interview" and not (fresh_only and a["id"] in ahead)
                        and cn[cands[a["candidate_id"]]["full_name"]] == 1):
                    by_company.setdefault(posts[a["posting_id"]]["company_id"], []).append(a)
            for cid in sorted(by_company):
                apps = by_company[cid]
                if len({a["candidate_id"] for a in apps}) < 2:
                    continue
                for r in self.active_recruiters(cid):
                    if rn[r["full_name"]] != 1:
                        continue
                    for k in range(2, 15):
                        day = self.now.date() + timedelta(days=k)
                        if day.weekday() >= 5 or any(
                                i["interviewer_id"] == r["id"] and i["starts_at"][:10] == day.isoformat()
                                and i["status"] == "scheduled" for i in self.t["interviews"]):
                            continue
                        placed: list[int] = []
                        for a in apps:
                            if a["candidate_id"] in placed:
                                continue
                            sl = self.slot(r["id"], a["candidate_id"], k, k, 45)
                            if sl is None:
                                continue
                            self.scheduled_interview(a, r, sl, "video", a["_last"])
                            placed.append(a["candidate_id"])
                            if len(placed) == 2:
                                return
        raise RuntimeError("job_board world: could not plant a busy interview day")

    def _has_switch(self) -> bool:
        """An applied / screening application of a uniquely named candidate on a posting whose title is unique
        at its company, and another open posting of the same department without screening questions, with
        a title unique at its company, that the candidate has not applied to (template withdraw_and_apply)."""
        cn, _ = self._name_counts()
        today = self.now.date().isoformat()
        titles = Counter((p["company_id"], p["title"]) for p in self.t["job_postings"] if p["status"] != "draft")
        asked = {q["posting_id"] for q in self.t["screening_questions"]}
        cands = {c["id"]: c for c in self.t["candidates"]}
        posts = {p["id"]: p for p in self.t["job_postings"]}
        applied: dict[int, set[int]] = {}
        for a in self.t["applications"]:
            applied.setdefault(a["candidate_id"], set()).add(a["posting_id"])
        free = [p for p in self.t["job_postings"] if p["status"] == "open" and p["closes_on"] >= today
                and p["id"] not in asked and titles[(p["company_id"], p["title"])] == 1]
        for a in self.t["applications"]:
            pa = posts[a["posting_id"]]
            if (a["status"] not in ("applied", "screening") or cn[cands[a["candidate_id"]]["full_name"]] != 1
                    or titles[(pa["company_id"], pa["title"])] != 1):
                continue
            if any(z["id"] != pa["id"] and z["department"] == pa["department"]
                   and z["id"] not in applied[a["candidate_id"]] for z in free):
                return True
        return False

    def ensure_switch(self) -> None:
        """Plant an open posting without screening questions, in the department of an applied / screening
        application, when chance left no posting for a candidate to switch to."""
        if self._has_switch():
            return
        cn, _ = self._name_counts()
        cands = {c["id"]: c for c in self.t["candidates"]}
        posts = {p["id"]: p for p in self.t["job_postings"]}
        titles = Counter((p["company_id"], p["title"]) for p in self.t["job_postings"] if p["status"] != "draft")
        used = {(p["company_id"], p["title"]) for p in self.t["job_postings"]}
        for a in self.t["applications"]:
            pa = posts[a["posting_id"]]
            if (a["status"] not in ("applied", "screening") or cn[cands[a["candidate_id"]]["full_name"]] != 1
                    or titles[(pa["company_id"], pa["title"])] != 1):
                continue
            comps = sorted(self.t["companies"], key=lambda c: (c["id"] != pa["company_id"], c["id"]))
            for c in comps:
                for dept, title, pool in ROLES:
                    if dept != pa["department"]:
                        continue
                    for level in ("mid", "senior", "junior", "lead"):
                        if (c["id"], LEVELS[level][0] + title) in used:
                            continue
                        self.plant_posting(c, dept, title, pool, level)
                        return
        raise RuntimeError("job_board world: could not plant a posting to switch to")

    def plant_posting(self, c: Row, dept: str, title: str, pool: list[str], level: str) -> Row:
        """An open posting without screening questions (description and a required skill, closing ahead)."""
        prefix, lo_k, hi_k = LEVELS[level]
        smin = self.rng.randint(lo_k, hi_k) * 1000
        smax = (int(smin * 1.3) // 1000) * 1000
        created = self.before(10, 30)
        posted = self.ctx.between(created, created + timedelta(days=3))
        rec = self.ctx.pick(self.active_recruiters(c["id"]))
        p = self.t.add("job_postings", {
            "reference": "", "company_id": c["id"], "recruiter_id": rec["id"],
            "title": prefix + title, "department": dept, "location": c["hq_city"], "remote_policy": "hybrid",
            "employment_type": "full_time", "seniority": level, "salary_min": smin, "salary_max": smax,
            "openings": 1, "status": "open",
            "description": f"{c['name']} is hiring a {prefix}{title} for its {dept} team. You will work with "
                           f"{', '.join(pool[:3])} on products used by thousands of customers.",
            "closes_on": (self.now.date() + timedelta(days=self.rng.randint(14, 45))).isoformat(),
            "created_at": _ts(created), "posted_at": _ts(posted), "closed_at": None, "updated_at": _ts(posted)})
        p["reference"] = self.ctx.tools._reference(p["id"])
        p["_pool"], p["_posted"], p["_closed"] = pool, posted, None
        for i, s in enumerate(pool[:2]):
            self.t.add("posting_skills", {"posting_id": p["id"], "skill_id": self.skill_id[s], "required": int(i == 0)})
        return p

    def _skill_pairs(self) -> tuple[list[tuple[Row, int, list[Row]]], dict[tuple[int, int], Row]]:
        """(posting, required skill, applied / screening applications) for open and paused postings whose title
        is unique at their company, and the candidate_skills rows by (candidate, skill)."""
        titles = Counter((p["company_id"], p["title"]) for p in self.t["job_postings"] if p["status"] != "draft")
        early: dict[int, list[Row]] = {}
        for a in self.t["applications"]:
            if a["status"] in ("applied", "screening"):
                early.setdefault(a["posting_id"], []).append(a)
        levels = {(cs["candidate_id"], cs["skill_id"]): cs for cs in self.t["candidate_skills"]}
        posts = {p["id"]: p for p in self.t["job_postings"]}
        out = []
        for ps in self.t["posting_skills"]:
            p = posts[ps["posting_id"]]
            if (ps["required"] and p["status"] in ("open", "paused") and titles[(p["company_id"], p["title"])] == 1
                    and p["id"] in early):
                out.append((p, ps["skill_id"], early[p["id"]]))
        return out, levels

    def ensure_skill_match(self) -> None:
        """Give an applicant a required skill at level 3 or more when chance left no open or paused posting
        whose applied / screening applicants with that skill are all uniquely named (template
        applicants_with_skill)."""
        cn, _ = self._name_counts()
        cands = {c["id"]: c for c in self.t["candidates"]}
        pairs, levels = self._skill_pairs()

        def unique(a: Row) -> bool:
            return cn[cands[a["candidate_id"]]["full_name"]] == 1

        def skilled(a: Row, sid: int) -> bool:
            cs = levels.get((a["candidate_id"], sid))
            return cs is not None and cs["level"] >= 3

        for _p, sid, apps in pairs:
            hits = [a for a in apps if skilled(a, sid)]
            if hits and all(unique(a) for a in hits):
                return
        for _p, sid, apps in pairs:
            if any(skilled(a, sid) for a in apps):
                continue
            for a in apps:
                if unique(a):
                    cs = levels.get((a["candidate_id"], sid))
                    if cs is None:
                        self.t.add("candidate_skills", {"candidate_id": a["candidate_id"], "skill_id": sid,
                                                        "level": self.rng.randint(3, 5)})
                    else:
                        cs["level"] = self.rng.randint(3, 5)
                    return
        raise RuntimeError("job_board world: could not plant an applicant with a required skill")

    def rows(self) -> dict[str, list[Row]]:
        return {k: [{c: v for c, v in r.items() if not c.startswith("_")} for r in rows] for k, rows in self.t.items()}


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = World(ctx)
    w.base()
    w.postings()
    w.candidates()
    w.applications()
    w.busy_days()
    w.upcoming_interviews()
    w.extras()
    w.ensure_busy_day()
    w.ensure_switch()
    w.ensure_skill_match()
    return w.rows()
