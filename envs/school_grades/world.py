"""Randomized worlds of the school_grades environment.

``build(ctx)`` returns one school: departments, staff (teachers, heads of department, the registrar),
students with guardians, a fixed course catalogue with prerequisites, and three terms -- Fall 2025 being
graded (final grades mostly computed, report cards mostly published), Spring 2026 active (two assignments
past due, one upcoming, attendance for the last class meetings) and Fall 2026 in planning.

Grades follow the same rules as ``tools.py``: late days rounded up, penalty = days x per-day rate, points
= raw x (100 - penalty) / 100 rounded to 2 decimals; final grades are the category-weighted percentage of
graded work (rounded to 1 decimal) with letters A 90+ / B 80+ / C 70+ / D 60+ / F. Enrolments respect
capacity, prerequisites (completed fall courses) and schedule clashes; teachers never teach two sections at
the same time.

Planted in every world: ungraded recent submissions, students missing the latest assignment, open appeals
(one that can be accepted with a higher score, for a uniquely named student), uniquely named students
without a fall report card whose grades are all final, spring sections with free seats.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

# fmt: off
TERMS = [("2025FA", "Fall 2025", "2025-09-02", "2026-01-23", "grading"),
         ("2026SP", "Spring 2026", "2026-01-26", "2026-06-12", "active"),
         ("2026FA", "Fall 2026", "2026-08-31", "2027-01-22", "planning")]
DEPARTMENTS = [("MATH", "Mathematics"), ("ENG", "English"), ("SCI", "Science"), ("HIST", "History & Social Studies"),
               ("ART", "Arts"), ("LANG", "World Languages")]
# code, dept, title, credits, min grade, prerequisites [(code, min %)]
COURSES = [
    ("ALG1", "MATH", "Algebra I", 1.0, 9, []), ("GEOM", "MATH", "Geometry", 1.0, 9, [("ALG1", 60)]),
    ("ALG2", "MATH", "Algebra II", 1.0, 10, [("ALG1", 70)]), ("STAT", "MATH", "Statistics", 1.0, 11, []),
    ("PREC", "MATH", "Precalculus", 1.0, 11, [("GEOM", 75)]),
    ("ENG9", "ENG", "English 9", 1.0, 9, []), ("ENG10", "ENG", "English 10", 1.0, 10, [("ENG9", 60)]),
    ("AMLIT", "ENG", "American Literature", 1.0, 11, []), ("CRWR", "ENG", "Creative Writing", 0.5, 10, []),
    ("BIO", "SCI", "Biology", 1.0, 9, []), ("CHEM", "SCI", "Chemistry", 1.0, 10, [("ALG1", 65)]),
    ("ENVS", "SCI", "Environmental Science", 1.0, 9, []), ("PHYS", "SCI", "Physics", 1.0, 11, [("ALG2", 70)]),
    ("WHIST", "HIST", "World History", 1.0, 9, []), ("USHIST", "HIST", "US History", 1.0, 10, []),
    ("ECON", "HIST", "Economics", 0.5, 11, []), ("GOV", "HIST", "Government", 0.5, 12, []),
    ("ART1", "ART", "Studio Art I", 0.5, 9, []), ("PHOTO", "ART", "Photography", 0.5, 10, [("ART1", 60)]),
    ("MUSIC", "ART", "Music Theory", 0.5, 9, []),
    ("SPAN1", "LANG", "Spanish I", 1.0, 9, []), ("SPAN2", "LANG", "Spanish II", 1.0, 9, [("SPAN1", 70)]),
    ("FREN1", "LANG", "French I", 1.0, 9, []),
]
SLOTS = [("MWF", "08:00", "08:50"), ("MWF", "09:00", "09:50"), ("MWF", "10:00", "10:50"), ("MWF", "11:00", "11:50"),
         ("MWF", "13:00", "13:50"), ("TR", "08:00", "09:15"), ("TR", "09:30", "10:45"), ("TR", "11:00", "12:15"),
         ("TR", "13:00", "14:15")]
CATEGORY_SETS = [[("homework", 20), ("quizzes", 20), ("tests", 40), ("project", 20)],
                 [("homework", 30), ("quizzes", 30), ("tests", 40)],
                 [("homework", 25), ("tests", 50), ("participation", 25)]]
FALL_WORK = {"homework": ["Homework Packet"], "quizzes": ["Quiz 1"], "tests": ["Final Exam"],
             "project": ["Term Project"], "participation": ["Participation"]}
POINTS = {"homework": 20, "quizzes": 25, "tests": 100, "project": 50, "participation": 10}
ATT_DAYS = {"MWF": ["2026-02-04", "2026-02-06", "2026-02-09"], "TR": ["2026-02-03", "2026-02-05", "2026-02-10"]}
SUBJECTS = ["Missing homework", "Great progress this month", "Upcoming test", "Attendance concern", "Project reminder"]
# fmt: on


class _School:
    def __init__(self, ctx: WorldContext):
        self.ctx, self.rng = ctx, ctx.rng
        self.rules = ctx.tools  # late days, penalties, letters, weighted percentages and GPAs as the tools compute them
        self.now = ctx.clock.replace(microsecond=0)
        self.t = Tables([
            "terms", "departments", "teachers", "students", "guardians", "student_guardians", "courses",
            "course_prerequisites", "sections", "enrolments", "grade_categories", "assignments", "submissions",
            "grades", "attendance", "report_cards", "report_card_lines", "messages", "grade_appeals"])

    # ------------------------------------------------------------------------------------------
    def base(self) -> None:
        ctx, rng = self.ctx, self.rng
        for code, name, s, e, st in TERMS:
            self.t.add("terms", {"code": code, "name": name, "start_date": s, "end_date": e, "status": st})
        for code, name in DEPARTMENTS:
            self.t.add("departments", {"code": code, "name": name})
        self.dept = {d["code"]: d["id"] for d in self.t["departments"]}
        emails: set[str] = set()

        def staff(dept_id: int | None, role: str) -> dict:
            first, last = ctx.faker.first_name(), ctx.faker.last_name()
            email = ctx.unique(lambda: f"{first[0].lower()}{last.lower()}{rng.choice(['', str(rng.randint(2, 9))])}"
                                       "@northfield.edu", emails)
            return self.t.add("teachers", {"department_id": dept_id, "full_name": f"{first} {last}", "email": email,
                                           "role": role, "is_active": 1})

        staff(None, "registrar")
        for d in self.t["departments"]:
            staff(d["id"], "head_of_department")
            for _ in range(ctx.n(2, 9)):
                staff(d["id"], "teacher")
        if ctx.distractors:  # a namesake of a teacher in another department
            for tch in ctx.sample([x for x in self.t["teachers"] if x["role"] == "teacher"], 3):
                other = rng.choice([d["id"] for d in self.t["departments"] if d["id"] != tch["department_id"]])
                first, last = tch["full_name"].split(" ", 1)
                email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.randint(10, 99)}@northfield.edu", emails)
                self.t.add("teachers", {"department_id": other, "full_name": tch["full_name"], "email": email,
                                        "role": "teacher", "is_active": 1})
        for code, dept, title, credits, mg, _ in COURSES:
            self.t.add("courses", {"department_id": self.dept[dept], "code": code, "title": title, "credits": credits,
                                   "min_grade_level": mg})
        self.course = {c["code"]: c for c in self.t["courses"]}
        for code, _, _, _, _, pre in COURSES:
            for p, m in pre:
                self.t.add("course_prerequisites", {"course_id": self.course[code]["id"],
                                                    "prereq_course_id": self.course[p]["id"], "min_percent": m})
        self.prereqs = {c[0]: c[5] for c in COURSES}

    def people(self) -> None:
        ctx, rng = self.ctx, self.rng
        numbers: set[str] = set()
        emails: set[str] = set()
        gemails: set[str] = set()

        def student(first: str, last: str) -> dict:
            grade = rng.randint(9, 12)
            dob = date(2026 - (grade + 5), 1, 1) + timedelta(days=rng.randint(-200, 160))
            num = ctx.unique(lambda: "26" + "".join(str(rng.randint(0, 9)) for _ in range(5)), numbers)
            email = ctx.unique(lambda: f"{first.lower()}.{last.lower()}{rng.randint(10, 99)}@students.northfield.edu",
                               emails)
            s = self.t.add("students", {"student_number": num, "full_name": f"{first} {last}", "email": email,
                                        "grade_level": grade, "date_of_birth": dob.isoformat(), "status": "enrolled"})
            for k in range(1 if rng.random() < 0.4 else 2):
                gfirst = ctx.faker.first_name_female() if k == 0 else ctx.faker.first_name_male()
                gemail = ctx.unique(lambda: f"{gfirst.lower()}.{last.lower()}{rng.choice(['', str(rng.randint(1, 99))])}"
                                            f"@{rng.choice(['example.com', 'example.net', 'mail.test'])}", gemails)
                g = self.t.add("guardians", {"full_name": f"{gfirst} {last}", "email": gemail,
                                             "phone": f"555-{rng.randint(1000, 9999)}"})
                self.t.add("student_guardians", {
                    "student_id": s["id"], "guardian_id": g["id"],
                    "relationship": rng.choice(["mother", "guardian", "grandparent"]) if k == 0 else "father",
                    "is_primary": int(k == 0)})
            return s

        for _ in range(ctx.n(32, 420)):
            student(ctx.faker.first_name(), ctx.faker.last_name())
        if ctx.distractors:
            for s in ctx.sample(self.t["students"][:], max(4, len(self.t["students"]) // 8)):
                first, last = s["full_name"].split(" ", 1)
                student(first if rng.random() < 0.6 else ctx.faker.first_name(), last)

    # ------------------------------------------------------------------------------------------
    def sections(self) -> None:
        ctx, rng = self.ctx, self.rng
        busy: dict[tuple[int, int], set[int]] = {}  # (term, teacher) -> slot indexes
        self.sec_by_term: dict[int, list[dict]] = {1: [], 2: [], 3: []}
        for term in self.t["terms"]:
            for code, dept, *_ in COURSES:
                if term["id"] == 1 and self.prereqs[code]:
                    continue  # nobody has the prerequisites yet in the fall
                if term["id"] == 3 and rng.random() < 0.5:
                    continue
                n = ctx.n(1, 4) if term["id"] != 3 else 1
                if term["id"] == 2 and not self.prereqs[code] and rng.random() < 0.25:
                    n += 1
                for k in range(n):
                    teachers = [x for x in self.t["teachers"] if x["department_id"] == self.dept[dept]]
                    teachers.sort(key=lambda x: len(busy.get((term["id"], x["id"]), set())))
                    tch = teachers[0] if rng.random() < 0.7 else teachers[rng.randrange(len(teachers))]
                    used = busy.setdefault((term["id"], tch["id"]), set())
                    free = [i for i in range(len(SLOTS)) if i not in used]
                    i = free[rng.randrange(len(free))]
                    used.add(i)
                    days, s, e = SLOTS[i]
                    sec = self.t.add("sections", {
                        "course_id": self.course[code]["id"], "term_id": term["id"],
                        "section_code": f"{code}-{chr(65 + k)}", "teacher_id": tch["id"],
                        "room": f"R{rng.randint(101, 240)}", "meeting_days": days, "start_time": s, "end_time": e,
                        "capacity": rng.choice([14, 16, 18, 20, 24]) if not ctx.large else rng.choice([24, 28, 30])})
                    sec["_code"] = code
                    self.sec_by_term[term["id"]].append(sec)
                    cats = CATEGORY_SETS[rng.randrange(len(CATEGORY_SETS))]
                    sec["_cats"] = [self.t.add("grade_categories", {"section_id": sec["id"], "name": n_, "weight": w})
                                    for n_, w in cats]

    def enrol(self, term_id: int, when: str) -> None:
        rng = self.rng
        if term_id == 1:
            self.enr: dict[int, list[dict]] = {}
            self.count: dict[int, int] = {}
        count = self.count
        for st in self.t["students"]:
            if True:
                mine: list[dict] = []
                secs = self.sec_by_term[term_id][:]
                rng.shuffle(secs)
                taken_codes = {s["_code"] for s in self.enr.get(st["id"], [])}
                for sec in secs:
                    if len(mine) >= 3:
                        break
                    code = sec["_code"]
                    course = self.course[code]
                    if code in taken_codes or course["min_grade_level"] > st["grade_level"]:
                        continue
                    if count.get(sec["id"], 0) >= sec["capacity"]:
                        continue
                    if any(m["meeting_days"] == sec["meeting_days"] and m["start_time"] == sec["start_time"] for m in mine):
                        continue
                    ok = True
                    for p, mn in self.prereqs[code]:
                        best = [e["final_percent"] for e in self.t["enrolments"] if e["student_id"] == st["id"]
                                and e["status"] == "completed" and self.t["sections"][e["section_id"] - 1]["_code"] == p]
                        if not best or max(best) < mn:
                            ok = False
                    if not ok:
                        continue
                    mine.append(sec)
                    taken_codes.add(code)
                    count[sec["id"]] = count.get(sec["id"], 0) + 1
                    e = self.t.add("enrolments", {"student_id": st["id"], "section_id": sec["id"], "status": "enrolled",
                                                  "enrolled_at": f"{when}{rng.randint(0, 3)}T{rng.randint(9, 15):02d}:"
                                                                 f"{rng.choice(['00', '20', '40'])}:00",
                                                  "dropped_at": None, "final_percent": None, "final_letter": None})
                    if term_id == 1:
                        self.fall_work(st, sec, e)
                self.enr.setdefault(st["id"], []).extend(mine)

    # ------------------------------------------------------------------------------------------
    def _grade(self, st: dict, sec: dict, a: dict, sub_at: datetime, graded_at: datetime | None, skill: float) -> None:
        rng, rules = self.rng, self.rules
        days = rules.late_days(_iso(sub_at), a["due_at"])
        self.t.add("submissions", {"assignment_id": a["id"], "student_id": st["id"], "submitted_at": _iso(sub_at),
                                   "days_late": days})
        if graded_at is None:
            return
        raw = min(a["max_points"], max(0.0, round(a["max_points"] * min(1.0, rng.gauss(skill, 0.08)) * 2) / 2))
        pct = rules.penalty_pct(days, a["late_penalty_per_day"])
        self.t.add("grades", {"assignment_id": a["id"], "student_id": st["id"], "raw_points": raw,
                              "late_penalty_pct": pct, "points": rules.apply_penalty(raw, pct),
                              "graded_by": sec["teacher_id"], "graded_at": _iso(graded_at), "comment": ""})

    def fall_assignments(self) -> None:
        rng = self.rng
        for sec in self.sec_by_term[1]:
            items = []
            for cat in sec["_cats"]:
                for title in FALL_WORK[cat["name"]]:
                    items.append((cat, title))
            start = date(2025, 9, 20)
            sec["_work"] = []
            for i, (cat, title) in enumerate(items):
                due = start + timedelta(days=int(i * 110 / len(items)) + rng.randint(0, 5))
                if title == "Final Exam":
                    due = date(2026, 1, 16)
                a = self.t.add("assignments", {"section_id": sec["id"], "category_id": cat["id"], "title": title,
                                               "max_points": float(POINTS[cat["name"]]),
                                               "due_at": f"{due.isoformat()}T08:00:00", "late_penalty_per_day": 10.0,
                                               "max_late_days": 3, "status": "published",
                                               "created_at": f"{(due - timedelta(days=10)).isoformat()}T15:00:00"})
                sec["_work"].append(a)

    def fall_work(self, st: dict, sec: dict, e: dict) -> None:
        rng = self.rng
        skill = rng.uniform(0.6, 0.97)
        for a in sec["_work"]:
            if rng.random() < 0.08:
                continue  # never handed in
            due = datetime.fromisoformat(a["due_at"])
            sub = due - timedelta(hours=rng.randint(1, 60)) if rng.random() < 0.88 else \
                due + timedelta(hours=rng.randint(1, 70))
            self._grade(st, sec, a, sub, sub + timedelta(days=rng.randint(2, 6), hours=3), skill)

    def weighted(self, sec: dict, st_id: int) -> float | None:
        by_cat: dict[int, list[float]] = {}
        wid = {a["id"]: a for a in sec["_work"]}
        for g in self.t["grades"]:
            if g["student_id"] == st_id and g["assignment_id"] in wid:
                a = wid[g["assignment_id"]]
                acc = by_cat.setdefault(a["category_id"], [0.0, 0.0])
                acc[0] += g["points"]
                acc[1] += a["max_points"]
        if not by_cat:
            return None
        ws = {c["id"]: c["weight"] for c in sec["_cats"]}
        return self.rules.weighted_percent((ws[c], pts, mx) for c, (pts, mx) in by_cat.items())

    def finals(self) -> None:
        rng = self.rng
        pending = set(s["id"] for s in self.ctx.sample(self.sec_by_term[1], max(1, len(self.sec_by_term[1]) // 12)))
        secs = {s["id"]: s for s in self.sec_by_term[1]}
        for e in self.t["enrolments"]:
            sec = secs.get(e["section_id"])
            if sec is None or sec["id"] in pending:
                continue
            p = self.weighted(sec, e["student_id"])
            if p is not None:
                e.update(status="completed", final_percent=p, final_letter=self.rules.letter(p))
        # report cards for students whose fall grades are all final; at least two of them have none yet, so
        # the report-card templates always have students to draw
        fall_of = {st["id"]: [e for e in self.t["enrolments"] if e["student_id"] == st["id"] and e["section_id"] in secs]
                   for st in self.t["students"]}
        eligible = [st for st in self.t["students"]
                    if fall_of[st["id"]] and all(e["status"] == "completed" for e in fall_of[st["id"]])]
        # ... and at least two of those are uniquely named (a namesake makes the student ambiguous); this only
        # forces a skip where the world would otherwise end with fewer than two such students
        names: dict[str, int] = {}
        for st in self.t["students"]:
            names[st["full_name"]] = names.get(st["full_name"], 0) + 1
        unique_left = sum(1 for st in eligible if names[st["full_name"]] == 1)
        skipped = skipped_unique = 0
        for i, st in enumerate(eligible):
            fall = fall_of[st["id"]]
            r = rng.random()
            unique = names[st["full_name"]] == 1
            if unique:
                unique_left -= 1
            if r < 0.15 or len(eligible) - i <= 2 - skipped or (unique and unique_left < 2 - skipped_unique):
                skipped += 1
                skipped_unique += unique
                continue  # not generated yet
            gpa = self.rules.term_gpa((e["final_letter"], self.course[secs[e["section_id"]]["_code"]]["credits"])
                                      for e in fall)
            created = datetime(2026, 1, 30, 10) + timedelta(hours=rng.randint(0, 100))
            pub = r >= 0.27
            rc = self.t.add("report_cards", {
                "student_id": st["id"], "term_id": 1, "status": "published" if pub else "draft", "comment": "",
                "gpa": gpa, "created_at": _iso(created),
                "published_at": _iso(created + timedelta(days=2)) if pub else None, "published_by": 1 if pub else None})
            for e in fall:
                self.t.add("report_card_lines", {"report_card_id": rc["id"], "section_id": e["section_id"],
                                                 "final_percent": e["final_percent"],
                                                 "final_letter": e["final_letter"]})

    # ------------------------------------------------------------------------------------------
    def spring(self) -> None:
        ctx, rng = self.ctx, self.rng
        secs = {s["id"]: s for s in self.sec_by_term[2]}
        for sec in self.sec_by_term[2]:
            cats = {c["name"]: c for c in sec["_cats"]}
            c1 = cats["homework"]
            c2 = cats.get("quizzes") or cats.get("participation") or cats["tests"]
            plan = [(c1, "Homework 1", "2026-01-30T08:00:00", "published"),
                    (c2, "Quiz 1" if c2["name"] == "quizzes" else "Week 2 Check-in", "2026-02-09T08:00:00", "published"),
                    (cats["tests"], "Unit 1 Test", "2026-02-20T08:00:00", "published")]
            if rng.random() < 0.3:
                plan.append((c1, "Homework 2", "2026-03-06T08:00:00", "draft"))
            sec["_work"] = []
            for cat, title, due, status in plan:
                sec["_work"].append(self.t.add("assignments", {
                    "section_id": sec["id"], "category_id": cat["id"], "title": title,
                    "max_points": float(POINTS[cat["name"]]), "due_at": due, "late_penalty_per_day": 10.0,
                    "max_late_days": 3, "status": status, "created_at": "2026-01-26T15:00:00"}))
        spring_enr = [e for e in self.t["enrolments"] if e["section_id"] in secs]
        # a few drops early in the term
        for e in ctx.sample(spring_enr, max(2, len(spring_enr) // 30)):
            e.update(status="dropped", dropped_at="2026-01-29T11:00:00")
        for e in spring_enr:
            if e["status"] != "enrolled":
                continue
            sec = secs[e["section_id"]]
            st = self.t["students"][e["student_id"] - 1]
            skill = rng.uniform(0.6, 0.97)
            a1, a2 = sec["_work"][0], sec["_work"][1]
            if rng.random() < 0.92:
                due = datetime.fromisoformat(a1["due_at"])
                sub = due - timedelta(hours=rng.randint(1, 48)) if rng.random() < 0.85 else due + timedelta(hours=rng.randint(2, 40))
                self._grade(st, sec, a1, sub, datetime(2026, 2, 2, 16) + timedelta(days=rng.randint(0, 3)), skill)
            if rng.random() < 0.8:
                due = datetime.fromisoformat(a2["due_at"])
                sub = due - timedelta(hours=rng.randint(1, 60)) if rng.random() < 0.85 else due + timedelta(hours=rng.randint(2, 24))
                graded = datetime(2026, 2, 10, 17) if rng.random() < 0.5 else None
                self._grade(st, sec, a2, sub, graded, skill)
            for day in ATT_DAYS[sec["meeting_days"]]:
                self.t.add("attendance", {"section_id": sec["id"], "student_id": st["id"], "day": day,
                                          "status": ctx.weighted({"present": 0.85, "late": 0.06, "absent": 0.06,
                                                                  "excused": 0.03}),
                                          "recorded_by": sec["teacher_id"]})
        # appeals on recent spring grades
        recent = [g for g in self.t["grades"] if g["graded_at"] >= "2026-02-01" and g["raw_points"] <
                  self.t["assignments"][g["assignment_id"] - 1]["max_points"]]
        for i, g in enumerate(ctx.sample(recent, ctx.n(8, 70))):
            opened = datetime.fromisoformat(g["graded_at"]) + timedelta(hours=rng.randint(5, 40))
            if opened >= self.now - timedelta(hours=3):
                continue
            status = "opened" if i % 3 != 2 else rng.choice(["accepted", "rejected"])
            sec = secs[self.t["assignments"][g["assignment_id"] - 1]["section_id"]]
            self.t.add("grade_appeals", {"grade_id": g["id"], "student_id": g["student_id"],
                                         "reason": rng.choice(["I think question 3 was marked wrong.",
                                                               "My late penalty should not apply; I submitted on time.",
                                                               "The rubric points do not add up."]),
                                         "status": status, "opened_at": _iso(opened),
                                         "decided_by": None if status == "opened" else sec["teacher_id"],
                                         "decided_at": None if status == "opened" else _iso(min(opened + timedelta(days=1), self.now - timedelta(hours=1))),
                                         "decision_note": None if status == "opened" else "Reviewed with the rubric."})
        # messages
        for e in ctx.sample([e for e in spring_enr if e["status"] == "enrolled"], ctx.n(10, 100)):
            sec = secs[e["section_id"]]
            links = [l for l in self.t["student_guardians"] if l["student_id"] == e["student_id"]]
            link = links[rng.randrange(len(links))]
            self.t.add("messages", {"teacher_id": sec["teacher_id"], "guardian_id": link["guardian_id"],
                                    "student_id": e["student_id"], "subject": rng.choice(SUBJECTS),
                                    "body": "Please get in touch if you have any questions.",
                                    "sent_at": _iso(datetime(2026, 1, 28, 15) + timedelta(hours=rng.randint(0, 300)))})
        self.plant_open_appeal()

    def plant_open_appeal(self) -> None:
        """Make sure an open appeal can be accepted with a higher score for a uniquely named student (the
        appeal templates draw from these); plants one only where the world has none."""
        names: dict[str, int] = {}
        for st in self.t["students"]:
            names[st["full_name"]] = names.get(st["full_name"], 0) + 1
        grades = {g["id"]: g for g in self.t["grades"]}

        def raisable(g: dict) -> bool:
            mx = self.t["assignments"][g["assignment_id"] - 1]["max_points"]
            return int((g["raw_points"] + (mx - g["raw_points"]) / 2.0) * 2) / 2.0 > g["raw_points"]

        def fits(g: dict) -> bool:
            return names[self.t["students"][g["student_id"] - 1]["full_name"]] == 1 and raisable(g)

        if any(ap["status"] == "opened" and fits(grades[ap["grade_id"]]) for ap in self.t["grade_appeals"]):
            return
        appealed = {ap["grade_id"] for ap in self.t["grade_appeals"]}
        spring = {s["id"] for s in self.sec_by_term[2]}
        cands = [g for g in self.t["grades"] if g["id"] not in appealed and g["graded_at"] >= "2026-02-01"
                 and self.t["assignments"][g["assignment_id"] - 1]["section_id"] in spring and fits(g)
                 and datetime.fromisoformat(g["graded_at"]) + timedelta(hours=5) < self.now - timedelta(hours=3)]
        g = cands[self.rng.randrange(len(cands))]
        self.t.add("grade_appeals", {"grade_id": g["id"], "student_id": g["student_id"],
                                     "reason": "The rubric points do not add up.", "status": "opened",
                                     "opened_at": _iso(datetime.fromisoformat(g["graded_at"]) + timedelta(hours=5)),
                                     "decided_by": None, "decided_at": None, "decision_note": None})

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        out = {}
        for k, rows in self.t.items():
            out[k] = [{c: v for c, v in r.items() if not c.startswith("_")} for r in rows]
        return out


def build(ctx: WorldContext) -> dict[str, list[dict[str, Any]]]:
    w = _School(ctx)
    w.base()
    w.people()
    w.sections()
    w.fall_assignments()
    w.enrol(1, "2025-08-2")
    w.finals()
    w.enrol(2, "2026-01-1")
    w.spring()
    return w.tables()
