"""Tools of the job_board world: a job marketplace.

Companies are named by name or slug, job postings by reference ("JOB-1042"), recruiters and
candidates by e-mail, and applications, interviews, offers and alerts by the ids the read tools
return. Salaries are whole US dollars per year. Recruiters act with ``actor_email`` and may only
manage their own company's postings; candidates act with ``candidate_email`` on their own records.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, filters, like_any, like_contains, parse_day, parse_moment, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import iso_seconds as _ts
from awm.tooling import now_iso as _now

LIVE_APP = ("applied", "screening", "interview", "offer")
MAX_ALERTS = 5
MAX_RESUMES = 5
MAX_QUESTIONS = 10
DAY_START, DAY_END = "08:00", "18:00"  # interviews run on weekdays inside these hours
MAX_OFFER_DAYS = 30
MAX_POSTING_DAYS = 120
# recruiter-driven application moves (offers and hires have their own tools)
MOVES = {"screening": ("applied",), "interview": ("screening",), "rejected": ("applied", "screening", "interview", "offer")}

Remote = Literal["onsite", "hybrid", "remote"]
EmploymentType = Literal["full_time", "part_time", "contract", "internship"]
Seniority = Literal["junior", "mid", "senior", "lead"]
AppStatus = Literal["applied", "screening", "interview", "offer", "hired", "rejected", "withdrawn"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _day(value: str, what: str) -> date:
    return parse_day(value, what, "2026-06-01")


def _moment(value: str, what: str) -> datetime:
    return parse_moment(value, what, "2026-05-26T10:30")


def _recruiter(db: Db, email: str, what: str = "recruiter") -> dict[str, Any]:
    row = db.one("SELECT r.*, c.name AS company_name FROM recruiters r JOIN companies c ON c.id = r.company_id "
                 "WHERE lower(r.email) = lower(?)", (email.strip(),),
                 missing=f"No {what} with e-mail {email!r}. Use find_recruiters to look recruiters up by name.")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']} ({row['email']}) no longer recruits for {row['company_name']}; ask an "
                        "active recruiter of the company.")
    return row


def _candidate(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM candidates WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No candidate with e-mail {email!r}. Use find_candidates to look people up by name.")


def _company(db: Db, company: str) -> dict[str, Any]:
    return db.one("SELECT * FROM companies WHERE lower(name) = lower(?) OR lower(slug) = lower(?)",
                  (company.strip(), company.strip()),
                  missing=f"No company named {company!r}. Use list_companies to see them.")


_POSTING_SQL = ("SELECT p.*, c.name AS company_name, r.email AS recruiter_email FROM job_postings p "
                "JOIN companies c ON c.id = p.company_id JOIN recruiters r ON r.id = p.recruiter_id "
                "WHERE upper(p.reference) = upper(?)")


def _posting(db: Db, reference: str) -> dict[str, Any]:
    return db.one(_POSTING_SQL, (reference.strip(),),
                  missing=f"No job posting with reference {reference!r}. References look like 'JOB-1042'; use "
                          "search_jobs to find one by title or company.")


def _own_posting(db: Db, actor_email: str, reference: str) -> tuple[dict[str, Any], dict[str, Any]]:
    actor = _recruiter(db, actor_email, "acting recruiter")
    p = _posting(db, reference)
    require_owner(p, "company_id", actor["company_id"],
                  f"Posting {p['reference']} belongs to {p['company_name']}; {actor['full_name']} recruits for "
                  f"{actor['company_name']} and may only manage that company's postings.")
    return actor, p


def _own_application(db: Db, actor_email: str, application_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    actor = _recruiter(db, actor_email, "acting recruiter")
    a = db.one("SELECT a.*, p.company_id, p.reference, p.title, p.salary_min, p.salary_max, p.status AS posting_status, "
               "c.full_name AS candidate_name, c.email AS candidate_email FROM applications a "
               "JOIN job_postings p ON p.id = a.posting_id JOIN candidates c ON c.id = a.candidate_id WHERE a.id = ?",
               (application_id,),
               missing=f"No application with id {application_id}. Use list_applications to find it.")
    require_owner(a, "company_id", actor["company_id"],
                  f"Application {application_id} is for another company's posting; {actor['full_name']} cannot manage "
                  "it.")
    return actor, a


def _candidates_own(db: Db, candidate: dict[str, Any], sql: str, row_id: int, refusal: str) -> dict[str, Any]:
    """The row ``sql`` finds by id when it is the candidate's own (its ``candidate_id``); ``refusal`` when there is
    none or it is someone else's."""
    row = db.one(sql, (row_id,), missing=refusal)
    require_owner(row, "candidate_id", candidate["id"], refusal)
    return row


def _interview(db: Db, interview_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM interviews WHERE id = ?", (interview_id,),
                  missing=f"No interview with id {interview_id}.")


def _event(db: Db, app_id: int, old: str | None, new: str, actor_type: str, recruiter_id: int | None,
           note: str = "") -> None:
    db.insert("application_events", {"application_id": app_id, "from_status": old, "to_status": new,
                                     "actor_type": actor_type, "recruiter_id": recruiter_id, "note": note,
                                     "created_at": _now(db)})


def _set_status(db: Db, app: dict[str, Any], new: str, actor_type: str, recruiter_id: int | None, note: str = "",
                reason: str | None = None) -> None:
    db.execute("UPDATE applications SET status = ?, rejection_reason = ?, updated_at = ? WHERE id = ?",
               (new, reason if new == "rejected" else None, _now(db), app["id"]))
    _event(db, app["id"], app["status"], new, actor_type, recruiter_id, note)


def _check_salary(lo: int, hi: int) -> None:
    if lo < 15000:
        raise ToolError("salary_min must be at least 15000 dollars a year.")
    if hi < lo:
        raise ToolError("salary_max must be at least salary_min.")
    if hi > 1_000_000:
        raise ToolError("salary_max may not exceed 1000000.")
    if hi * 10 > lo * 16:
        raise ToolError(f"The range {lo}-{hi} is too wide: salary_max may be at most 1.6 times salary_min "
                        f"(at most {lo * 16 // 10}).")


def _check_closes(db: Db, closes_on: str) -> str:
    d = _day(closes_on, "closes_on")
    if d <= db.today():
        raise ToolError(f"closes_on must be after today ({db.today().isoformat()}).")
    if d > db.today() + timedelta(days=MAX_POSTING_DAYS):
        raise ToolError(f"closes_on may be at most {MAX_POSTING_DAYS} days ahead.")
    return d.isoformat()


def _reference(posting_id: int) -> str:
    """A posting's reference: "JOB-" and 1000 plus its id."""
    return f"JOB-{1000 + posting_id}"


def _posting_out(p: dict[str, Any]) -> dict[str, Any]:
    return {"reference": p["reference"], "title": p["title"], "company": p["company_name"], "location": p["location"],
            "remote_policy": p["remote_policy"], "employment_type": p["employment_type"], "seniority": p["seniority"],
            "salary_min": p["salary_min"], "salary_max": p["salary_max"], "status": p["status"],
            "closes_on": p["closes_on"]}


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_companies(db: Db, industry: str | None = None, city: str | None = None) -> list[dict]:
    """List the companies hiring on the board.

    Args:
        industry: only this industry, e.g. "Fintech".
        city: only companies headquartered in this city.
    """
    return db.query("SELECT name, slug, industry, hq_city, size_band, verified, (SELECT COUNT(*) FROM job_postings p "
                    "WHERE p.company_id = c.id AND p.status = 'open') AS open_postings FROM companies c "
                    "WHERE (? IS NULL OR lower(industry) = lower(?)) AND (? IS NULL OR lower(hq_city) = lower(?)) "
                    "ORDER BY name LIMIT 60", (industry, industry, city, city))


@tool
def find_recruiters(db: Db, query: str | None = None, company: str | None = None, limit: int = 10) -> list[dict]:
    """Find recruiters by part of their name or e-mail, optionally within one company.

    Args:
        query: words of the recruiter's name or e-mail.
        company: a company name or slug.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    cid = _company(db, company)["id"] if company else None
    who, params = like_any((query or "").strip(), "r.full_name", "r.email")
    return db.query("SELECT r.full_name, r.email, r.title, r.role, r.is_active, c.name AS company FROM recruiters r "
                    f"JOIN companies c ON c.id = r.company_id WHERE {who} AND (? IS NULL OR r.company_id = ?) "
                    "ORDER BY r.full_name, r.id LIMIT ?", (*params, cid, cid, limit))


@tool
def list_skills(db: Db, query: str | None = None) -> list[str]:
    """The skill names used on the board (postings and profiles can only use these).

    Args:
        query: part of a skill name, e.g. "py".
    """
    return [r["name"] for r in db.query("SELECT name FROM skills WHERE (? IS NULL OR name LIKE ? ESCAPE '\\') "
                                        "ORDER BY name LIMIT 100", (query, like_contains(query) if query else None))]


@tool
def search_jobs(db: Db, text: str | None = None, company: str | None = None, location: str | None = None,
                remote_policy: Remote | None = None, employment_type: EmploymentType | None = None,
                seniority: Seniority | None = None, min_salary: int | None = None, skill: str | None = None,
                status: Literal["draft", "open", "paused", "closed", "any"] = "open", limit: int = 10,
                offset: int = 0) -> list[dict]:
    """Search job postings. By default only open postings are returned; pass status "any" for all.

    Args:
        text: words in the title or department, e.g. "backend".
        company: a company name or slug.
        location: the posting's location (city), e.g. "Chicago".
        remote_policy: onsite, hybrid or remote.
        employment_type: full_time, part_time, contract or internship.
        seniority: junior, mid, senior or lead.
        min_salary: only postings whose salary_max is at least this.
        skill: only postings asking for this skill.
        status: the posting status to match, or "any".
        limit: maximum number of results, 1 to 50.
        offset: results to skip, for paging.
    """
    _limit(limit)
    if offset < 0:
        raise ToolError("offset must be 0 or more")
    cid = _company(db, company)["id"] if company else None
    t = like_contains(text.strip()) if text else None
    where, params = filters(
        ("p.company_id = ?", cid), ("lower(p.location) = lower(?)", location), ("p.remote_policy = ?", remote_policy),
        ("p.employment_type = ?", employment_type), ("p.seniority = ?", seniority), ("p.salary_max >= ?", min_salary),
        ("EXISTS (SELECT 1 FROM posting_skills ps JOIN skills s ON s.id = ps.skill_id WHERE ps.posting_id = p.id "
         "AND lower(s.name) = lower(?))", skill))
    rows = db.query(
        "SELECT p.*, c.name AS company_name FROM job_postings p JOIN companies c ON c.id = p.company_id "
        "WHERE (? = 'any' OR p.status = ?) AND (? IS NULL OR p.title LIKE ? ESCAPE '\\' "
        f"OR p.department LIKE ? ESCAPE '\\') AND {where} ORDER BY p.id LIMIT ? OFFSET ?",
        (status, status, t, t, t, *params, limit, offset))
    return [_posting_out(r) for r in rows]


@tool
def get_job(db: Db, reference: str) -> dict:
    """Everything about one posting: details, skills, screening questions (in order) and the owner.

    Args:
        reference: the posting reference, e.g. "JOB-1042".
    """
    p = _posting(db, reference)
    out = _posting_out(p)
    out.update({
        "department": p["department"], "description": p["description"], "openings": p["openings"],
        "hired": db.value("SELECT COUNT(*) FROM applications WHERE posting_id = ? AND status = 'hired'", (p["id"],)),
        "recruiter_email": p["recruiter_email"], "posted_at": p["posted_at"], "closed_at": p["closed_at"],
        "skills": db.query("SELECT s.name, ps.required FROM posting_skills ps JOIN skills s ON s.id = ps.skill_id "
                           "WHERE ps.posting_id = ? ORDER BY ps.required DESC, s.name", (p["id"],)),
        "screening_questions": db.query("SELECT position, question, answer_type, required FROM screening_questions "
                                        "WHERE posting_id = ? ORDER BY position", (p["id"],)),
    })
    return out


@tool
def get_pipeline_summary(db: Db, reference: str) -> dict:
    """How many applications a posting has in each status.

    Args:
        reference: the posting reference.
    """
    p = _posting(db, reference)
    rows = db.query("SELECT status, COUNT(*) AS n FROM applications WHERE posting_id = ? GROUP BY status ORDER BY status",
                    (p["id"],))
    return {"reference": p["reference"], "title": p["title"], "status": p["status"],
            "applications": {r["status"]: r["n"] for r in rows}}


@tool
def find_candidates(db: Db, query: str | None = None, skill: str | None = None, limit: int = 10) -> list[dict]:
    """Find candidates by part of their name or e-mail, or by a skill on their profile.

    Args:
        query: words of the candidate's name or e-mail.
        skill: a skill name, e.g. "Python".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if not query and not skill:
        raise ToolError("Give a query or a skill.")
    who, params = like_any((query or "").strip(), "c.full_name", "c.email")
    return db.query("SELECT c.full_name, c.email, c.city, c.headline, c.years_experience FROM candidates c "
                    f"WHERE {who} AND (? IS NULL OR EXISTS "
                    "(SELECT 1 FROM candidate_skills cs JOIN skills s ON s.id = cs.skill_id WHERE cs.candidate_id = c.id AND "
                    "lower(s.name) = lower(?))) ORDER BY c.full_name, c.id LIMIT ?", (*params, skill, skill, limit))


@tool
def get_candidate(db: Db, candidate_email: str) -> dict:
    """A candidate's profile: skills with levels (1-5), resumes, and their applications.

    Args:
        candidate_email: the candidate's e-mail.
    """
    c = _candidate(db, candidate_email)
    return {
        "full_name": c["full_name"], "email": c["email"], "phone": c["phone"], "city": c["city"],
        "headline": c["headline"], "years_experience": c["years_experience"], "open_to_remote": c["open_to_remote"],
        "skills": db.query("SELECT s.name, cs.level FROM candidate_skills cs JOIN skills s ON s.id = cs.skill_id "
                           "WHERE cs.candidate_id = ? ORDER BY cs.level DESC, s.name", (c["id"],)),
        "resumes": db.query("SELECT id, filename, title, is_primary FROM resumes WHERE candidate_id = ? ORDER BY id",
                            (c["id"],)),
        "applications": db.query("SELECT a.id, p.reference, p.title, co.name AS company, a.status, a.applied_at FROM "
                                 "applications a JOIN job_postings p ON p.id = a.posting_id JOIN companies co ON "
                                 "co.id = p.company_id WHERE a.candidate_id = ? ORDER BY a.applied_at DESC LIMIT 20",
                                 (c["id"],)),
    }


@tool
def list_applications(db: Db, posting_reference: str | None = None, candidate_email: str | None = None,
                      status: AppStatus | None = None, limit: int = 20) -> list[dict]:
    """List applications to a posting or by a candidate (give at least one).

    Args:
        posting_reference: the posting reference.
        candidate_email: the candidate's e-mail.
        status: only applications with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if not posting_reference and not candidate_email:
        raise ToolError("Give a posting_reference or a candidate_email.")
    pid = _posting(db, posting_reference)["id"] if posting_reference else None
    cid = _candidate(db, candidate_email)["id"] if candidate_email else None
    where, params = filters(("a.posting_id = ?", pid), ("a.candidate_id = ?", cid), ("a.status = ?", status))
    return db.query("SELECT a.id, p.reference, p.title, c.full_name AS candidate, c.email AS candidate_email, a.status, "
                    "a.rejection_reason, a.applied_at, a.updated_at FROM applications a JOIN job_postings p ON "
                    f"p.id = a.posting_id JOIN candidates c ON c.id = a.candidate_id WHERE {where} "
                    "ORDER BY a.applied_at, a.id LIMIT ?", (*params, limit))


@tool
def get_application(db: Db, application_id: int) -> dict:
    """One application with its screening answers, status history, interviews and offers.

    Args:
        application_id: the application's id.
    """
    a = db.one("SELECT a.*, p.reference, p.title, c.full_name AS candidate, c.email AS candidate_email, r.filename "
               "AS resume FROM applications a JOIN job_postings p ON p.id = a.posting_id JOIN candidates c ON "
               "c.id = a.candidate_id JOIN resumes r ON r.id = a.resume_id WHERE a.id = ?", (application_id,),
               missing=f"No application with id {application_id}. Use list_applications to find it.")
    return {
        "id": a["id"], "reference": a["reference"], "title": a["title"], "candidate": a["candidate"],
        "candidate_email": a["candidate_email"], "status": a["status"], "resume": a["resume"],
        "cover_note": a["cover_note"], "rejection_reason": a["rejection_reason"], "applied_at": a["applied_at"],
        "answers": db.query("SELECT q.position, q.question, s.answer FROM screening_answers s JOIN screening_questions q "
                            "ON q.id = s.question_id WHERE s.application_id = ? ORDER BY q.position", (application_id,)),
        "history": db.query("SELECT e.from_status, e.to_status, e.actor_type, r.email AS recruiter, e.note, e.created_at "
                            "FROM application_events e LEFT JOIN recruiters r ON r.id = e.recruiter_id WHERE "
                            "e.application_id = ? ORDER BY e.created_at, e.id", (application_id,)),
        "interviews": db.query("SELECT i.id, r.email AS interviewer, i.kind, i.starts_at, i.ends_at, i.status, i.rating, "
                               "i.feedback FROM interviews i JOIN recruiters r ON r.id = i.interviewer_id WHERE "
                               "i.application_id = ? ORDER BY i.starts_at", (application_id,)),
        "offers": db.query("SELECT id, salary, start_date, expires_on, status FROM offers WHERE application_id = ? "
                           "ORDER BY id", (application_id,)),
    }


@tool
def get_interviewer_schedule(db: Db, recruiter_email: str, date: str) -> dict:
    """A recruiter's scheduled interviews on one day (interviews run Monday to Friday, 08:00-18:00).

    Args:
        recruiter_email: the interviewer's e-mail.
        date: the day, YYYY-MM-DD.
    """
    d = _day(date, "date")
    r = db.one("SELECT id, full_name, email FROM recruiters WHERE lower(email) = lower(?)", (recruiter_email.strip(),),
               missing=f"No recruiter with e-mail {recruiter_email!r}.")
    rows = db.query("SELECT i.id, i.starts_at, i.ends_at, i.kind, c.full_name AS candidate, p.reference FROM interviews i "
                    "JOIN applications a ON a.id = i.application_id JOIN candidates c ON c.id = a.candidate_id "
                    "JOIN job_postings p ON p.id = a.posting_id WHERE i.interviewer_id = ? AND i.status = 'scheduled' "
                    "AND substr(i.starts_at, 1, 10) = ? ORDER BY i.starts_at", (r["id"], d.isoformat()))
    return {"interviewer": r["full_name"], "date": d.isoformat(), "weekday": d.strftime("%A"),
            "working_day": d.weekday() < 5, "interviews": rows}


@tool
def list_interviews(db: Db, posting_reference: str | None = None, interviewer_email: str | None = None,
                    candidate_email: str | None = None,
                    status: Literal["scheduled", "completed", "cancelled"] | None = None,
                    date_from: str | None = None, date_to: str | None = None, limit: int = 20) -> list[dict]:
    """List interviews for a posting, an interviewer or a candidate (give at least one).

    Args:
        posting_reference: the posting reference.
        interviewer_email: the interviewer's e-mail.
        candidate_email: the candidate's e-mail.
        status: only interviews with this status.
        date_from: on or after this date, YYYY-MM-DD.
        date_to: on or before this date, YYYY-MM-DD.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if not (posting_reference or interviewer_email or candidate_email):
        raise ToolError("Give a posting_reference, an interviewer_email or a candidate_email.")
    pid = _posting(db, posting_reference)["id"] if posting_reference else None
    cid = _candidate(db, candidate_email)["id"] if candidate_email else None
    rid = db.one("SELECT id FROM recruiters WHERE lower(email) = lower(?)", (interviewer_email.strip(),),
                 missing=f"No recruiter with e-mail {interviewer_email!r}.")["id"] if interviewer_email else None
    d1 = _day(date_from, "date_from").isoformat() if date_from else None
    d2 = _day(date_to, "date_to").isoformat() if date_to else None
    where, params = filters(("a.posting_id = ?", pid), ("a.candidate_id = ?", cid), ("i.interviewer_id = ?", rid),
                            ("i.status = ?", status), ("substr(i.starts_at, 1, 10) >= ?", d1),
                            ("substr(i.starts_at, 1, 10) <= ?", d2))
    return db.query(
        "SELECT i.id, i.application_id, p.reference, c.full_name AS candidate, c.email AS candidate_email, "
        "r.email AS interviewer, i.kind, i.starts_at, i.ends_at, i.status, i.rating FROM interviews i "
        "JOIN applications a ON a.id = i.application_id JOIN job_postings p ON p.id = a.posting_id "
        "JOIN candidates c ON c.id = a.candidate_id JOIN recruiters r ON r.id = i.interviewer_id "
        f"WHERE {where} ORDER BY i.starts_at, i.id LIMIT ?", (*params, limit))


@tool
def list_offers(db: Db, company: str | None = None, candidate_email: str | None = None,
                status: Literal["extended", "accepted", "declined", "expired", "rescinded"] | None = None,
                limit: int = 20) -> list[dict]:
    """List job offers made by a company or to a candidate (give at least one).

    Args:
        company: a company name or slug.
        candidate_email: the candidate's e-mail.
        status: only offers with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if not company and not candidate_email:
        raise ToolError("Give a company or a candidate_email.")
    co = _company(db, company)["id"] if company else None
    cid = _candidate(db, candidate_email)["id"] if candidate_email else None
    where, params = filters(("p.company_id = ?", co), ("a.candidate_id = ?", cid), ("o.status = ?", status))
    return db.query("SELECT o.id, o.application_id, p.reference, p.title, c.full_name AS candidate, c.email AS "
                    "candidate_email, o.salary, o.start_date, o.expires_on, o.status FROM offers o JOIN applications a "
                    "ON a.id = o.application_id JOIN job_postings p ON p.id = a.posting_id JOIN candidates c ON "
                    f"c.id = a.candidate_id WHERE {where} ORDER BY o.created_at DESC, o.id DESC LIMIT ?",
                    (*params, limit))


@tool
def list_saved_jobs(db: Db, candidate_email: str) -> list[dict]:
    """The postings a candidate has saved.

    Args:
        candidate_email: the candidate's e-mail.
    """
    c = _candidate(db, candidate_email)
    return db.query("SELECT p.reference, p.title, co.name AS company, p.status, p.closes_on, s.created_at AS saved_at "
                    "FROM saved_jobs s JOIN job_postings p ON p.id = s.posting_id JOIN companies co ON "
                    "co.id = p.company_id WHERE s.candidate_id = ? ORDER BY s.created_at DESC LIMIT 50", (c["id"],))


@tool
def list_job_alerts(db: Db, candidate_email: str) -> list[dict]:
    """A candidate's job alerts.

    Args:
        candidate_email: the candidate's e-mail.
    """
    c = _candidate(db, candidate_email)
    return db.query("SELECT id, keywords, location, remote_only, min_salary, frequency, is_active, created_at "
                    "FROM job_alerts WHERE candidate_id = ? ORDER BY id", (c["id"],))


# ----------------------------------------------------------------------------------------------
# write tools: postings
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_posting(db: Db, actor_email: str, title: str, department: str, location: str, remote_policy: Remote,
                   employment_type: EmploymentType, seniority: Seniority, salary_min: int, salary_max: int,
                   closes_on: str, description: str = "", openings: int = 1) -> dict:
    """Create a draft job posting for the acting recruiter's company, owned by that recruiter. Salary
    ranges: salary_min at least 15000, salary_max at least salary_min and at most 1.6 times it. The closing
    date must be after today and at most 120 days ahead. Open it with change_posting_status.

    Args:
        actor_email: the e-mail of the recruiter creating it.
        title: the job title, e.g. "Senior Backend Engineer".
        department: e.g. "Engineering".
        location: the city, e.g. "Chicago".
        remote_policy: onsite, hybrid or remote.
        employment_type: full_time, part_time, contract or internship.
        seniority: junior, mid, senior or lead.
        salary_min: the bottom of the yearly salary range in dollars.
        salary_max: the top of the yearly salary range in dollars.
        closes_on: the last day to apply, YYYY-MM-DD.
        description: the job description (needed before opening).
        openings: how many people will be hired, 1 to 20.
    """
    actor = _recruiter(db, actor_email, "acting recruiter")
    if not title.strip() or not department.strip() or not location.strip():
        raise ToolError("title, department and location must not be empty.")
    _check_salary(salary_min, salary_max)
    closes = _check_closes(db, closes_on)
    if not 1 <= openings <= 20:
        raise ToolError("openings must be between 1 and 20.")
    new_id = (db.value("SELECT MAX(id) FROM job_postings") or 0) + 1
    ref = _reference(new_id)
    now = _now(db)
    db.insert("job_postings", {"id": new_id, "reference": ref, "company_id": actor["company_id"],
                               "recruiter_id": actor["id"], "title": title.strip(), "department": department.strip(),
                               "location": location.strip(), "remote_policy": remote_policy,
                               "employment_type": employment_type, "seniority": seniority, "salary_min": salary_min,
                               "salary_max": salary_max, "openings": openings, "status": "draft",
                               "description": description.strip(), "closes_on": closes, "created_at": now,
                               "updated_at": now})
    return {"reference": ref, "status": "draft", "title": title.strip()}


@tool(write=True)
def update_posting(db: Db, actor_email: str, reference: str, title: str | None = None, description: str | None = None,
                   salary_min: int | None = None, salary_max: int | None = None, closes_on: str | None = None,
                   openings: int | None = None) -> dict:
    """Edit a draft, open or paused posting of the recruiter's company. The salary range rules of
    create_posting apply to the resulting range; openings cannot drop below the people already hired.

    Args:
        actor_email: the e-mail of a recruiter of the posting's company.
        reference: the posting reference.
        title: the new title.
        description: the new description.
        salary_min: the new bottom of the salary range.
        salary_max: the new top of the salary range.
        closes_on: the new closing date, YYYY-MM-DD.
        openings: the new number of openings.
    """
    actor, p = _own_posting(db, actor_email, reference)
    if p["status"] == "closed":
        raise ToolError(f"Posting {p['reference']} is closed and can no longer be edited.")
    if all(v is None for v in (title, description, salary_min, salary_max, closes_on, openings)):
        raise ToolError("Nothing to change.")
    lo = salary_min if salary_min is not None else p["salary_min"]
    hi = salary_max if salary_max is not None else p["salary_max"]
    _check_salary(lo, hi)
    closes = _check_closes(db, closes_on) if closes_on is not None else p["closes_on"]
    if title is not None and not title.strip():
        raise ToolError("title must not be empty.")
    if openings is not None:
        hired = db.value("SELECT COUNT(*) FROM applications WHERE posting_id = ? AND status = 'hired'", (p["id"],))
        if not max(1, hired) <= openings <= 20:
            raise ToolError(f"openings must be between {max(1, hired)} (people already hired) and 20.")
    db.execute("UPDATE job_postings SET title = COALESCE(?, title), description = COALESCE(?, description), "
               "salary_min = ?, salary_max = ?, closes_on = ?, openings = COALESCE(?, openings), updated_at = ? "
               "WHERE id = ?", (title.strip() if title is not None else None,
                                description.strip() if description is not None else None, lo, hi, closes, openings,
                                _now(db), p["id"]))
    return _posting_out(_posting(db, p["reference"]))


@tool(write=True)
def change_posting_status(db: Db, actor_email: str, reference: str,
                          new_status: Literal["open", "paused", "closed"]) -> dict:
    """Move a posting through its life cycle: draft -> open (needs a description, at least one required
    skill and a closing date after today), open -> paused, paused -> open, and draft / open / paused ->
    closed. Closing rejects the applications still at applied or screening ("Posting closed"); later
    stages are kept. Closed is final.

    Args:
        actor_email: the e-mail of a recruiter of the posting's company.
        reference: the posting reference.
        new_status: "open", "paused" or "closed".
    """
    actor, p = _own_posting(db, actor_email, reference)
    old = p["status"]
    allowed = {"draft": ("open", "closed"), "open": ("paused", "closed"), "paused": ("open", "closed"), "closed": ()}
    if new_status not in allowed[old]:
        raise ToolError(f"Posting {p['reference']} is {old}; it can go to {', '.join(allowed[old]) or 'nothing (closed is final)'}.")
    now = _now(db)
    if new_status == "open":
        if not p["description"].strip():
            raise ToolError("The posting has no description; add one with update_posting first.")
        if not db.value("SELECT 1 FROM posting_skills WHERE posting_id = ? AND required = 1", (p["id"],)):
            raise ToolError("The posting lists no required skill; add one with add_posting_skill first.")
        if p["closes_on"] <= db.today().isoformat():
            raise ToolError(f"The closing date {p['closes_on']} has passed; set a new one with update_posting first.")
        db.execute("UPDATE job_postings SET status = 'open', posted_at = COALESCE(posted_at, ?), updated_at = ? "
                   "WHERE id = ?", (now, now, p["id"]))
        return {"reference": p["reference"], "status": "open"}
    if new_status == "paused":
        db.execute("UPDATE job_postings SET status = 'paused', updated_at = ? WHERE id = ?", (now, p["id"]))
        return {"reference": p["reference"], "status": "paused"}
    apps = db.query("SELECT * FROM applications WHERE posting_id = ? AND status IN ('applied', 'screening') ORDER BY id",
                    (p["id"],))
    for a in apps:
        _set_status(db, a, "rejected", "recruiter", actor["id"], "Posting closed", "Posting closed")
    db.execute("UPDATE job_postings SET status = 'closed', closed_at = ?, updated_at = ? WHERE id = ?",
               (now, now, p["id"]))
    return {"reference": p["reference"], "status": "closed", "applications_rejected": len(apps)}


@tool(write=True)
def add_posting_skill(db: Db, actor_email: str, reference: str, skill: str, required: bool = True) -> dict:
    """Add a skill (one of list_skills) to a posting that is not closed, as required or nice-to-have.

    Args:
        actor_email: the e-mail of a recruiter of the posting's company.
        reference: the posting reference.
        skill: the skill name, e.g. "Python".
        required: true for a required skill, false for nice-to-have.
    """
    actor, p = _own_posting(db, actor_email, reference)
    if p["status"] == "closed":
        raise ToolError(f"Posting {p['reference']} is closed.")
    s = db.one("SELECT * FROM skills WHERE lower(name) = lower(?)", (skill.strip(),),
               missing=f"Unknown skill {skill!r}; use list_skills to see the names the board uses.")
    db.none("SELECT 1 FROM posting_skills WHERE posting_id = ? AND skill_id = ?", (p["id"], s["id"]),
            found=f"{p['reference']} already lists {s['name']}.")
    db.insert("posting_skills", {"posting_id": p["id"], "skill_id": s["id"], "required": int(required)})
    return {"reference": p["reference"], "skill": s["name"], "required": required}


@tool(write=True)
def add_screening_question(db: Db, actor_email: str, reference: str, question: str,
                           answer_type: Literal["yes_no", "number", "text"], required: bool = True,
                           knockout_answer: Literal["yes", "no"] | None = None) -> dict:
    """Add a screening question at the end of a draft or paused posting's questionnaire (at most 10). A
    yes/no question may have a knock-out answer: applicants giving it are rejected automatically. A
    required question cannot be added once the posting has applications.

    Args:
        actor_email: the e-mail of a recruiter of the posting's company.
        reference: the posting reference.
        question: the question text.
        answer_type: "yes_no", "number" or "text".
        required: whether applicants must answer it.
        knockout_answer: for yes/no questions, the answer that rules an applicant out.
    """
    actor, p = _own_posting(db, actor_email, reference)
    if p["status"] not in ("draft", "paused"):
        raise ToolError(f"Posting {p['reference']} is {p['status']}; questions can only be added to draft or paused "
                        "postings (pause it first).")
    if not question.strip():
        raise ToolError("question must not be empty.")
    if knockout_answer is not None and answer_type != "yes_no":
        raise ToolError("Only yes/no questions can have a knock-out answer.")
    n = db.value("SELECT COUNT(*) FROM screening_questions WHERE posting_id = ?", (p["id"],))
    if n >= MAX_QUESTIONS:
        raise ToolError(f"{p['reference']} already has {MAX_QUESTIONS} questions.")
    if required and db.value("SELECT 1 FROM applications WHERE posting_id = ?", (p["id"],)):
        raise ToolError(f"{p['reference']} already has applications, so a new question cannot be required; add it "
                        "with required=false.")
    qid = db.insert("screening_questions", {"posting_id": p["id"], "position": n + 1, "question": question.strip(),
                                            "answer_type": answer_type, "required": int(required),
                                            "knockout_answer": knockout_answer})
    return {"question_id": qid, "position": n + 1}


# ----------------------------------------------------------------------------------------------
# write tools: applications
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def apply_to_job(db: Db, candidate_email: str, reference: str, answers: list[str] | None = None,
                 resume_filename: str | None = None, cover_note: str = "") -> dict:
    """Apply to an open posting whose closing date has not passed. One application per candidate per
    posting (even after withdrawing). Answer the screening questions in order (see get_job): "yes" / "no"
    for yes/no questions, a whole number for number questions, "" to skip an optional one. A knock-out
    answer gets the application rejected at once.

    Args:
        candidate_email: the candidate's e-mail.
        reference: the posting reference.
        answers: one answer per screening question, in question order.
        resume_filename: which of the candidate's resumes to send; default their primary resume.
        cover_note: an optional note to the recruiter.
    """
    c = _candidate(db, candidate_email)
    p = _posting(db, reference)
    if p["status"] != "open":
        raise ToolError(f"Posting {p['reference']} is {p['status']}; applications are only accepted while it is open.")
    if p["closes_on"] < db.today().isoformat():
        raise ToolError(f"Applications for {p['reference']} closed on {p['closes_on']}.")
    prev = db.one("SELECT id, status FROM applications WHERE posting_id = ? AND candidate_id = ?", (p["id"], c["id"]))
    if prev:
        raise ToolError(f"{c['full_name']} already applied to {p['reference']} (application {prev['id']}, "
                        f"{prev['status']}); only one application per posting is allowed.")
    if resume_filename:
        r = db.one("SELECT * FROM resumes WHERE candidate_id = ? AND lower(filename) = lower(?)",
                   (c["id"], resume_filename.strip()),
                   missing=f"{c['full_name']} has no resume named {resume_filename!r}; get_candidate lists them.")
    else:
        r = db.one("SELECT * FROM resumes WHERE candidate_id = ? AND is_primary = 1", (c["id"],),
                   missing=f"{c['full_name']} has no primary resume; upload one with upload_resume first.")
    qs = db.query("SELECT * FROM screening_questions WHERE posting_id = ? ORDER BY position", (p["id"],))
    answers = [a.strip() for a in (answers or [])]
    if len(answers) != len(qs):
        raise ToolError(f"{p['reference']} has {len(qs)} screening question(s); give exactly one answer per question, "
                        f"in order (got {len(answers)}).")
    knocked = None
    clean = []
    for q, a in zip(qs, answers):
        if not a:
            if q["required"]:
                raise ToolError(f"Question {q['position']} ({q['question']}) is required.")
            clean.append(None)
            continue
        if q["answer_type"] == "yes_no":
            a = a.lower()
            if a not in ("yes", "no"):
                raise ToolError(f"Question {q['position']} ({q['question']}) takes 'yes' or 'no'.")
            if q["knockout_answer"] == a and knocked is None:
                knocked = q["question"]
        elif q["answer_type"] == "number" and not re.fullmatch(r"\d{1,6}", a):
            raise ToolError(f"Question {q['position']} ({q['question']}) takes a whole number.")
        clean.append(a)
    now = _now(db)
    aid = db.insert("applications", {"posting_id": p["id"], "candidate_id": c["id"], "resume_id": r["id"],
                                     "status": "applied", "cover_note": cover_note.strip(), "applied_at": now,
                                     "updated_at": now})
    for q, a in zip(qs, clean):
        if a is not None:
            db.insert("screening_answers", {"application_id": aid, "question_id": q["id"], "answer": a})
    _event(db, aid, None, "applied", "candidate", None)
    status = "applied"
    if knocked:
        reason = f"Screening knock-out: {knocked}"
        db.execute("UPDATE applications SET status = 'rejected', rejection_reason = ? WHERE id = ?", (reason, aid))
        _event(db, aid, "applied", "rejected", "system", None, reason)
        status = "rejected"
    return {"application_id": aid, "reference": p["reference"], "status": status, "resume": r["filename"]}


@tool(write=True)
def withdraw_application(db: Db, candidate_email: str, application_id: int) -> dict:
    """Withdraw your own application while it is still live (applied, screening, interview or offer).
    Scheduled interviews are cancelled and an extended offer is declined.

    Args:
        candidate_email: the candidate's e-mail.
        application_id: the application's id.
    """
    c = _candidate(db, candidate_email)
    a = _candidates_own(db, c, "SELECT * FROM applications WHERE id = ?", application_id,
                        f"{c['full_name']} has no application with id {application_id}; get_candidate lists theirs.")
    if a["status"] not in LIVE_APP:
        raise ToolError(f"Application {application_id} is {a['status']} and can no longer be withdrawn.")
    now = _now(db)
    db.execute("UPDATE interviews SET status = 'cancelled' WHERE application_id = ? AND status = 'scheduled'",
               (application_id,))
    db.execute("UPDATE offers SET status = 'declined', responded_at = ? WHERE application_id = ? AND status = 'extended'",
               (now, application_id))
    _set_status(db, a, "withdrawn", "candidate", None, "Withdrawn by the candidate")
    return {"application_id": application_id, "status": "withdrawn"}


@tool(write=True)
def move_application(db: Db, actor_email: str, application_id: int,
                     new_status: Literal["screening", "interview", "rejected"], note: str = "",
                     rejection_reason: str | None = None) -> dict:
    """Move an application of your company's posting forward or reject it: applied -> screening,
    screening -> interview, and applied / screening / interview / offer -> rejected (a rejection_reason is
    required; an extended offer is rescinded and scheduled interviews cancelled). Offers are made with
    make_offer; hires happen when the candidate accepts.

    Args:
        actor_email: the e-mail of a recruiter of the posting's company.
        application_id: the application's id.
        new_status: "screening", "interview" or "rejected".
        note: an optional note for the history.
        rejection_reason: why, when rejecting, e.g. "Not enough Kubernetes experience".
    """
    actor, a = _own_application(db, actor_email, application_id)
    if a["status"] not in MOVES[new_status]:
        raise ToolError(f"Application {application_id} is {a['status']}; it can move to {new_status} only from "
                        f"{' or '.join(MOVES[new_status])}.")
    if new_status == "rejected":
        if not rejection_reason or not rejection_reason.strip():
            raise ToolError("Give a rejection_reason when rejecting.")
        now = _now(db)
        db.execute("UPDATE interviews SET status = 'cancelled' WHERE application_id = ? AND status = 'scheduled'",
                   (application_id,))
        db.execute("UPDATE offers SET status = 'rescinded', responded_at = ? WHERE application_id = ? "
                   "AND status = 'extended'", (now, application_id))
    elif rejection_reason:
        raise ToolError("rejection_reason is only for rejections.")
    _set_status(db, a, new_status, "recruiter", actor["id"], note.strip(),
                rejection_reason.strip() if rejection_reason else None)
    return {"application_id": application_id, "status": new_status}


@tool(write=True)
def schedule_interview(db: Db, actor_email: str, application_id: int, interviewer_email: str, starts_at: str,
                       duration_minutes: Literal[30, 45, 60, 90] = 45,
                       kind: Literal["phone", "video", "onsite"] = "video") -> dict:
    """Schedule an interview for an application at the interview stage. The interviewer must be an active
    recruiter of the same company. Interviews run Monday to Friday between 08:00 and 18:00, start on a
    quarter hour in the future, and may not overlap the interviewer's or the candidate's other scheduled
    interviews.

    Args:
        actor_email: the e-mail of the recruiter scheduling it.
        application_id: the application's id.
        interviewer_email: the e-mail of the recruiter who will interview.
        starts_at: the start, YYYY-MM-DDTHH:MM.
        duration_minutes: 30, 45, 60 or 90.
        kind: phone, video or onsite.
    """
    actor, a = _own_application(db, actor_email, application_id)
    if a["status"] != "interview":
        raise ToolError(f"Application {application_id} is {a['status']}; move it to the interview stage first.")
    iv = _recruiter(db, interviewer_email, "interviewer")
    if iv["company_id"] != actor["company_id"]:
        raise ToolError(f"{iv['full_name']} does not work for {actor['company_name']}; pick one of its recruiters.")
    start = _moment(starts_at, "starts_at")
    end = start + timedelta(minutes=duration_minutes)
    if start <= db.now():
        raise ToolError(f"starts_at must be in the future (it is now {_now(db)}).")
    if start.minute % 15 or start.second:
        raise ToolError("Interviews start on a quarter hour.")
    if start.weekday() >= 5 or start.strftime("%H:%M") < DAY_START or end.strftime("%H:%M") > DAY_END \
            or end.date() != start.date():
        raise ToolError(f"Interviews run Monday to Friday, {DAY_START}-{DAY_END}; {_ts(start)} to {_ts(end)} is outside.")
    clash = db.one("SELECT id, starts_at FROM interviews WHERE interviewer_id = ? AND status = 'scheduled' AND "
                   "starts_at < ? AND ends_at > ?", (iv["id"], _ts(end), _ts(start)))
    if clash:
        raise ToolError(f"{iv['full_name']} already has interview {clash['id']} at {clash['starts_at']}; use "
                        "get_interviewer_schedule to find a free slot.")
    clash = db.one("SELECT i.id, i.starts_at FROM interviews i JOIN applications x ON x.id = i.application_id WHERE "
                   "x.candidate_id = ? AND i.status = 'scheduled' AND i.starts_at < ? AND i.ends_at > ?",
                   (a["candidate_id"], _ts(end), _ts(start)))
    if clash:
        raise ToolError(f"{a['candidate_name']} already has interview {clash['id']} at {clash['starts_at']}.")
    iid = db.insert("interviews", {"application_id": application_id, "interviewer_id": iv["id"], "kind": kind,
                                   "starts_at": _ts(start), "ends_at": _ts(end), "status": "scheduled",
                                   "created_at": _now(db)})
    return {"interview_id": iid, "starts_at": _ts(start), "ends_at": _ts(end), "interviewer": iv["email"]}


@tool(write=True)
def cancel_interview(db: Db, actor_email: str, interview_id: int) -> dict:
    """Cancel a scheduled interview that has not started (a recruiter of the posting's company).

    Args:
        actor_email: the e-mail of a recruiter of the company.
        interview_id: the interview's id.
    """
    i = _interview(db, interview_id)
    actor, a = _own_application(db, actor_email, i["application_id"])
    if i["status"] != "scheduled":
        raise ToolError(f"Interview {interview_id} is {i['status']}.")
    if i["starts_at"] <= _now(db):
        raise ToolError(f"Interview {interview_id} has already started; record feedback instead.")
    db.execute("UPDATE interviews SET status = 'cancelled' WHERE id = ?", (interview_id,))
    return {"interview_id": interview_id, "status": "cancelled"}


@tool(write=True)
def record_interview_feedback(db: Db, actor_email: str, interview_id: int, rating: int, feedback: str) -> dict:
    """As the interviewer, record the rating (1-5) and feedback of a scheduled interview that has already
    started; it becomes completed.

    Args:
        actor_email: the interviewer's e-mail.
        interview_id: the interview's id.
        rating: 1 (poor) to 5 (excellent).
        feedback: a short written assessment.
    """
    actor = _recruiter(db, actor_email, "interviewer")
    i = _interview(db, interview_id)
    require_owner(i, "interviewer_id", actor["id"],
                  f"Only the interviewer of interview {interview_id} can record its feedback.")
    if i["status"] != "scheduled":
        raise ToolError(f"Interview {interview_id} is {i['status']}.")
    if i["starts_at"] > _now(db):
        raise ToolError(f"Interview {interview_id} starts at {i['starts_at']}; feedback can only be recorded afterwards.")
    if not 1 <= rating <= 5:
        raise ToolError("rating must be between 1 and 5.")
    if not feedback.strip():
        raise ToolError("feedback must not be empty.")
    db.execute("UPDATE interviews SET status = 'completed', rating = ?, feedback = ? WHERE id = ?",
               (rating, feedback.strip(), interview_id))
    return {"interview_id": interview_id, "status": "completed", "rating": rating}


@tool(write=True)
def make_offer(db: Db, actor_email: str, application_id: int, salary: int, start_date: str, expires_on: str) -> dict:
    """Extend a job offer on an application at the interview stage that has at least one completed
    interview. The salary must lie inside the posting's range; the offer expires after today and at most
    30 days ahead, and the start date comes after the expiry. The application moves to offer.

    Args:
        actor_email: the e-mail of a recruiter of the posting's company.
        application_id: the application's id.
        salary: the yearly salary in dollars.
        start_date: the proposed first day, YYYY-MM-DD.
        expires_on: the last day the candidate can accept, YYYY-MM-DD.
    """
    actor, a = _own_application(db, actor_email, application_id)
    if a["status"] != "interview":
        raise ToolError(f"Application {application_id} is {a['status']}; offers are made at the interview stage.")
    if not db.value("SELECT 1 FROM interviews WHERE application_id = ? AND status = 'completed'", (application_id,)):
        raise ToolError(f"{a['candidate_name']} has no completed interview for this posting yet.")
    if not a["salary_min"] <= salary <= a["salary_max"]:
        raise ToolError(f"The salary must be within the posting's range, {a['salary_min']}-{a['salary_max']}.")
    exp = _day(expires_on, "expires_on")
    start = _day(start_date, "start_date")
    if not db.today() < exp <= db.today() + timedelta(days=MAX_OFFER_DAYS):
        raise ToolError(f"expires_on must be after today and at most {MAX_OFFER_DAYS} days ahead.")
    if start <= exp:
        raise ToolError("start_date must come after expires_on.")
    now = _now(db)
    oid = db.insert("offers", {"application_id": application_id, "salary": salary, "start_date": start.isoformat(),
                               "expires_on": exp.isoformat(), "status": "extended", "created_by": actor["id"],
                               "created_at": now})
    _set_status(db, a, "offer", "recruiter", actor["id"], f"Offer {oid} extended")
    return {"offer_id": oid, "application_id": application_id, "status": "extended"}


@tool(write=True)
def rescind_offer(db: Db, actor_email: str, offer_id: int) -> dict:
    """Withdraw an extended offer (a recruiter of the company); the application goes back to interview.

    Args:
        actor_email: the e-mail of a recruiter of the company.
        offer_id: the offer's id.
    """
    o = db.one("SELECT * FROM offers WHERE id = ?", (offer_id,),
               missing=f"No offer with id {offer_id}.")
    actor, a = _own_application(db, actor_email, o["application_id"])
    if o["status"] != "extended":
        raise ToolError(f"Offer {offer_id} is {o['status']}; only an extended offer can be rescinded.")
    db.execute("UPDATE offers SET status = 'rescinded', responded_at = ? WHERE id = ?", (_now(db), offer_id))
    _set_status(db, a, "interview", "recruiter", actor["id"], f"Offer {offer_id} rescinded")
    return {"offer_id": offer_id, "status": "rescinded"}


@tool(write=True)
def respond_to_offer(db: Db, candidate_email: str, offer_id: int, decision: Literal["accept", "decline"]) -> dict:
    """As the candidate, accept or decline your extended offer before it expires. Accepting hires you;
    when the posting's openings are then all filled it closes and its applications still at applied,
    screening or interview are rejected ("Position filled"). Declining withdraws the application.

    Args:
        candidate_email: the candidate's e-mail.
        offer_id: the offer's id.
        decision: "accept" or "decline".
    """
    c = _candidate(db, candidate_email)
    o = _candidates_own(db, c, "SELECT o.*, a.candidate_id, a.posting_id FROM offers o JOIN applications a "
                        "ON a.id = o.application_id WHERE o.id = ?", offer_id,
                        f"{c['full_name']} has no offer with id {offer_id}; list_offers with their e-mail shows them.")
    if o["status"] != "extended":
        raise ToolError(f"Offer {offer_id} is {o['status']}; only an extended offer can be answered.")
    if o["expires_on"] < db.today().isoformat():
        raise ToolError(f"Offer {offer_id} expired on {o['expires_on']}.")
    now = _now(db)
    a = db.one("SELECT * FROM applications WHERE id = ?", (o["application_id"],))
    if decision == "decline":
        db.execute("UPDATE offers SET status = 'declined', responded_at = ? WHERE id = ?", (now, offer_id))
        _set_status(db, a, "withdrawn", "candidate", None, f"Offer {offer_id} declined")
        return {"offer_id": offer_id, "status": "declined"}
    db.execute("UPDATE offers SET status = 'accepted', responded_at = ? WHERE id = ?", (now, offer_id))
    _set_status(db, a, "hired", "candidate", None, f"Offer {offer_id} accepted")
    p = db.one("SELECT * FROM job_postings WHERE id = ?", (o["posting_id"],))
    hired = db.value("SELECT COUNT(*) FROM applications WHERE posting_id = ? AND status = 'hired'", (p["id"],))
    closed = False
    if hired >= p["openings"] and p["status"] != "closed":
        for x in db.query("SELECT * FROM applications WHERE posting_id = ? AND status IN ('applied', 'screening', "
                          "'interview') ORDER BY id", (p["id"],)):
            db.execute("UPDATE interviews SET status = 'cancelled' WHERE application_id = ? AND status = 'scheduled'",
                       (x["id"],))
            _set_status(db, x, "rejected", "system", None, "Position filled", "Position filled")
        db.execute("UPDATE job_postings SET status = 'closed', closed_at = ?, updated_at = ? WHERE id = ?",
                   (now, now, p["id"]))
        closed = True
    return {"offer_id": offer_id, "status": "accepted", "posting_closed": closed}


# ----------------------------------------------------------------------------------------------
# write tools: candidates
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def save_job(db: Db, candidate_email: str, reference: str) -> dict:
    """Save an open or paused posting to the candidate's list.

    Args:
        candidate_email: the candidate's e-mail.
        reference: the posting reference.
    """
    c = _candidate(db, candidate_email)
    p = _posting(db, reference)
    if p["status"] not in ("open", "paused"):
        raise ToolError(f"Posting {p['reference']} is {p['status']}; only open or paused postings can be saved.")
    db.none("SELECT 1 FROM saved_jobs WHERE candidate_id = ? AND posting_id = ?", (c["id"], p["id"]),
            found=f"{p['reference']} is already saved.")
    db.insert("saved_jobs", {"candidate_id": c["id"], "posting_id": p["id"], "created_at": _now(db)})
    return {"reference": p["reference"], "saved": True}


@tool(write=True)
def create_job_alert(db: Db, candidate_email: str, keywords: str, frequency: Literal["daily", "weekly"],
                     location: str | None = None, remote_only: bool = False, min_salary: int | None = None) -> dict:
    """Create a job alert. A candidate can have at most 5 active alerts, and not two active alerts with the
    same keywords and location.

    Args:
        candidate_email: the candidate's e-mail.
        keywords: words to match in job titles, e.g. "data engineer".
        frequency: "daily" or "weekly".
        location: only jobs in this city.
        remote_only: only remote jobs.
        min_salary: only jobs paying at least this (top of range), dollars a year.
    """
    c = _candidate(db, candidate_email)
    kw = " ".join(keywords.split())
    if not kw:
        raise ToolError("keywords must not be empty.")
    if min_salary is not None and min_salary <= 0:
        raise ToolError("min_salary must be positive.")
    if db.value("SELECT COUNT(*) FROM job_alerts WHERE candidate_id = ? AND is_active = 1", (c["id"],)) >= MAX_ALERTS:
        raise ToolError(f"{c['full_name']} already has {MAX_ALERTS} active alerts; deactivate one first.")
    db.none("SELECT 1 FROM job_alerts WHERE candidate_id = ? AND is_active = 1 AND lower(keywords) = lower(?) "
            "AND lower(COALESCE(location, '')) = lower(?)", (c["id"], kw, (location or "").strip()),
            found="An active alert with the same keywords and location already exists.")
    aid = db.insert("job_alerts", {"candidate_id": c["id"], "keywords": kw,
                                   "location": location.strip() if location else None, "remote_only": int(remote_only),
                                   "min_salary": min_salary, "frequency": frequency, "is_active": 1,
                                   "created_at": _now(db)})
    return {"alert_id": aid, "keywords": kw, "frequency": frequency}


@tool(write=True)
def deactivate_job_alert(db: Db, candidate_email: str, alert_id: int) -> dict:
    """Turn off one of your own active job alerts.

    Args:
        candidate_email: the candidate's e-mail.
        alert_id: the alert's id (see list_job_alerts).
    """
    c = _candidate(db, candidate_email)
    a = _candidates_own(db, c, "SELECT * FROM job_alerts WHERE id = ?", alert_id,
                        f"{c['full_name']} has no alert with id {alert_id}.")
    if not a["is_active"]:
        raise ToolError(f"Alert {alert_id} is already inactive.")
    db.execute("UPDATE job_alerts SET is_active = 0 WHERE id = ?", (alert_id,))
    return {"alert_id": alert_id, "is_active": False}


@tool(write=True)
def upload_resume(db: Db, candidate_email: str, filename: str, title: str, make_primary: bool = False) -> dict:
    """Add a resume (a .pdf or .docx file name) to the candidate's profile, at most 5. make_primary makes it
    the one sent by default (the previous primary stops being primary). A candidate's first resume is
    always primary.

    Args:
        candidate_email: the candidate's e-mail.
        filename: e.g. "jane-doe-2026.pdf".
        title: a label, e.g. "Data engineering CV".
        make_primary: make this the primary resume.
    """
    c = _candidate(db, candidate_email)
    name = filename.strip()
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*\.(pdf|docx)", name, re.I):
        raise ToolError("filename must be a plain file name ending in .pdf or .docx")
    if not title.strip():
        raise ToolError("title must not be empty.")
    db.none("SELECT 1 FROM resumes WHERE candidate_id = ? AND lower(filename) = lower(?)", (c["id"], name),
            found=f"{c['full_name']} already has a resume named {name!r}.")
    n = db.value("SELECT COUNT(*) FROM resumes WHERE candidate_id = ?", (c["id"],))
    if n >= MAX_RESUMES:
        raise ToolError(f"{c['full_name']} already has {MAX_RESUMES} resumes.")
    primary = make_primary or n == 0
    if primary:
        db.execute("UPDATE resumes SET is_primary = 0 WHERE candidate_id = ? AND is_primary = 1", (c["id"],))
    rid = db.insert("resumes", {"candidate_id": c["id"], "filename": name, "title": title.strip(),
                                "is_primary": int(primary), "uploaded_at": _now(db)})
    return {"resume_id": rid, "filename": name, "is_primary": primary}
