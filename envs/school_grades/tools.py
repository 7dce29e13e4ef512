"""Tools of the school_grades world: the records of one secondary school (grades 9-12).

Students are named by their 7-digit student numbers (or e-mails for their own actions), staff and
guardians by e-mail, terms by code ("2026SP"), courses by code ("ALG2"), and sections, assignments,
grades, report cards and appeals by the ids the read tools return.

Who may do what: the registrar enrols and drops students and generates and publishes report cards; a
section's own teacher creates its assignments, grades its work, takes its attendance and computes its
final grades; a head of department may also decide grade appeals for courses of their department;
students submit their own work and appeal their own grades.

Terms move planning -> active -> grading -> closed. Work is submitted and attendance taken only in the
active term; final grades and report cards belong to the term being graded; a published report card locks
every grade of that student in that term.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, filters, like_any, parse_day, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

APPEAL_WINDOW_DAYS = 14
LETTER_POINTS = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0, "F": 0.0}
WEEKDAYS = {"MWF": (0, 2, 4), "TR": (1, 3)}

Category = Literal["homework", "quizzes", "tests", "project", "participation"]
AttendanceStatus = Literal["present", "absent", "late", "excused"]


# ----------------------------------------------------------------------------------------------
# grading rules (the world builder uses the same formulas)
# ----------------------------------------------------------------------------------------------

def late_days(submitted_at: str, due_at: str) -> int:
    """Whole days late, rounded up; 0 when on time."""
    secs = (datetime.fromisoformat(submitted_at) - datetime.fromisoformat(due_at)).total_seconds()
    return 0 if secs <= 0 else math.ceil(secs / 86400)


def penalty_pct(days: int, per_day: float) -> float:
    return min(100.0, days * per_day)


def apply_penalty(raw: float, pct: float) -> float:
    return round(raw * (100.0 - pct) / 100.0, 2)


def letter(percent: float) -> str:
    return "A" if percent >= 90 else "B" if percent >= 80 else "C" if percent >= 70 else "D" if percent >= 60 else "F"


def weighted_percent(categories: Iterable[tuple[float, float, float]]) -> float:
    """The category-weighted percentage of graded work, rounded to 1 decimal: one (weight, points, max points)
    per category that has graded work; the weights of the others are left out."""
    parts = list(categories)
    total_w = sum(w for w, _, _ in parts)
    return round(100.0 * sum(w * pts / mx for w, pts, mx in parts) / total_w + 1e-9, 1)


def term_gpa(lines: Iterable[tuple[str, float]]) -> float:
    """The credit-weighted GPA (A=4 ... F=0) of (final letter, credits) lines, rounded to 2 decimals."""
    parts = list(lines)
    credits = sum(c for _, c in parts)
    return round(sum(LETTER_POINTS[grade] * c for grade, c in parts) / credits + 1e-9, 2)


def _weighted_percent(db: Db, section_id: int, student_id: int) -> float | None:
    rows = db.query("SELECT c.weight, SUM(g.points) AS pts, SUM(a.max_points) AS mx FROM grades g "
                    "JOIN assignments a ON a.id = g.assignment_id JOIN grade_categories c ON c.id = a.category_id "
                    "WHERE a.section_id = ? AND g.student_id = ? AND a.status = 'published' GROUP BY c.id ORDER BY c.id",
                    (section_id, student_id))
    if not rows:
        return None
    return weighted_percent((r["weight"], r["pts"], r["mx"]) for r in rows)


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _staff(db: Db, email: str) -> dict[str, Any]:
    row = db.one("SELECT * FROM teachers WHERE lower(email) = lower(?)", (email.strip(),),
                 missing=f"No staff member with e-mail {email!r}. Use find_teachers to look staff up by name.")
    if not row["is_active"]:
        raise ToolError(f"{row['full_name']}'s staff account is deactivated.")
    return row


def _registrar(db: Db, email: str, what: str) -> dict[str, Any]:
    s = _staff(db, email)
    if s["role"] != "registrar":
        raise ToolError(f"{s['full_name']} is not the registrar; only the registrar can {what}.")
    return s


def _student(db: Db, student_number: str) -> dict[str, Any]:
    return db.one("SELECT * FROM students WHERE student_number = ?", (student_number.strip(),),
                  missing=f"No student with number {student_number!r}. Student numbers have 7 digits; use "
                          "find_students to look a student up by name.")


def _student_by_email(db: Db, email: str) -> dict[str, Any]:
    return db.one("SELECT * FROM students WHERE lower(email) = lower(?)", (email.strip(),),
                  missing=f"No student account with e-mail {email!r}; students act under their own school e-mail.")


def _term(db: Db, code: str) -> dict[str, Any]:
    return db.one("SELECT * FROM terms WHERE upper(code) = upper(?)", (code.strip(),),
                  missing=f"No term with code {code!r}. Use list_terms to see the term codes.")


_SECTION_SQL = ("SELECT s.*, c.code AS course_code, c.title AS course_title, c.department_id, c.credits, "
                "c.min_grade_level, t.code AS term_code, t.status AS term_status, t.start_date, t.end_date, "
                "tc.full_name AS teacher_name, tc.email AS teacher_email FROM sections s "
                "JOIN courses c ON c.id = s.course_id JOIN terms t ON t.id = s.term_id "
                "JOIN teachers tc ON tc.id = s.teacher_id WHERE s.id = ?")


def _section(db: Db, section_id: int) -> dict[str, Any]:
    return db.one(_SECTION_SQL, (section_id,),
                  missing=f"No section with id {section_id}. Use list_sections to find section ids.")


def _own_section(db: Db, actor: dict[str, Any], sec: dict[str, Any], what: str) -> None:
    require_owner(sec, "teacher_id", actor["id"],
                  f"{actor['full_name']} does not teach {sec['course_code']} section {sec['section_code']} "
                  f"({sec['teacher_name']} does); only a section's own teacher can {what}.")


def _teacher_section(db: Db, teacher_email: str, section_id: int, what: str) -> tuple[dict, dict]:
    """The acting teacher and their own section (``what`` names the action refused to anyone else)."""
    actor = _staff(db, teacher_email)
    sec = _section(db, section_id)
    _own_section(db, actor, sec, what)
    return actor, sec


def _assignment(db: Db, assignment_id: int) -> dict[str, Any]:
    return db.one("SELECT a.*, c.name AS category FROM assignments a JOIN grade_categories c ON c.id = a.category_id "
                  "WHERE a.id = ?", (assignment_id,),
                  missing=f"No assignment with id {assignment_id}. Use list_assignments with the section id.")


def _assignment_section(db: Db, assignment_id: int) -> tuple[dict, dict]:
    """An assignment and the section it belongs to."""
    a = _assignment(db, assignment_id)
    return a, _section(db, a["section_id"])


def _report_card(db: Db, report_card_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM report_cards WHERE id = ?", (report_card_id,),
                  missing=f"No report card with id {report_card_id}.")


def _enrolment(db: Db, student_id: int, section_id: int) -> dict[str, Any] | None:
    return db.one("SELECT * FROM enrolments WHERE student_id = ? AND section_id = ?", (student_id, section_id))


def _locked(db: Db, student_id: int, term_id: int) -> bool:
    return db.value("SELECT 1 FROM report_cards WHERE student_id = ? AND term_id = ? AND status = 'published'",
                    (student_id, term_id)) is not None


def _enrolled(db: Db, student: dict[str, Any], sec: dict[str, Any]) -> dict[str, Any]:
    """The student's enrolment in the section, which must be live (enrolled, not dropped or completed)."""
    e = _enrolment(db, student["id"], sec["id"])
    if e is None or e["status"] != "enrolled":
        raise ToolError(f"{student['full_name']} is not enrolled in {sec['course_code']} section "
                        f"{sec['section_code']}.")
    return e


def _check_unlocked(db: Db, student: dict[str, Any], sec: dict[str, Any]) -> None:
    if sec["term_status"] == "closed":
        raise ToolError(f"Term {sec['term_code']} is closed; its records can no longer change.")
    if _locked(db, student["id"], sec["term_id"]):
        raise ToolError(f"{student['full_name']}'s report card for {sec['term_code']} is published, which locks "
                        "their grades for that term.")


def _set_grade(db: Db, grade_id: int, raw: float, pct: float) -> float:
    pts = apply_penalty(raw, pct)
    db.execute("UPDATE grades SET raw_points = ?, points = ? WHERE id = ?", (raw, pts, grade_id))
    return pts


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def list_terms(db: Db) -> list[dict]:
    """List the school's terms with their codes, dates and status (planning, active, grading, closed)."""
    return db.query("SELECT code, name, start_date, end_date, status FROM terms ORDER BY start_date")


@tool
def find_students(db: Db, query: str, grade_level: int | None = None, limit: int = 10) -> list[dict]:
    """Find students by part of their name, e-mail or student number.

    Args:
        query: text to look for, e.g. "Nguyen".
        grade_level: only students in this grade (9 to 12).
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(full_name)", "lower(email)", "student_number", lower=True)
    where, filter_params = filters(("grade_level = ?", grade_level))
    return db.query("SELECT student_number, full_name, email, grade_level, status FROM students WHERE "
                    f"{who} AND {where} ORDER BY full_name, id LIMIT ?", (*params, *filter_params, limit))


@tool
def get_student(db: Db, student_number: str) -> dict:
    """Show a student: grade level, status and guardians (with their e-mails and relationship).

    Args:
        student_number: the student's 7-digit number.
    """
    s = _student(db, student_number)
    guardians = db.query("SELECT g.full_name, g.email, g.phone, sg.relationship, sg.is_primary FROM student_guardians sg "
                         "JOIN guardians g ON g.id = sg.guardian_id WHERE sg.student_id = ? ORDER BY sg.is_primary DESC, "
                         "g.id", (s["id"],))
    return {"student_number": s["student_number"], "full_name": s["full_name"], "email": s["email"],
            "grade_level": s["grade_level"], "date_of_birth": s["date_of_birth"], "status": s["status"],
            "guardians": guardians}


@tool
def find_teachers(db: Db, query: str = "", department_code: str | None = None, limit: int = 10) -> list[dict]:
    """Find staff by part of their name or e-mail, optionally within a department.

    Args:
        query: text to look for; empty lists everyone (with the other filter).
        department_code: only staff of this department, e.g. "MATH".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(t.full_name)", "lower(t.email)", lower=True)
    where, filter_params = filters(("upper(d.code) = upper(?)", department_code))
    return db.query("SELECT t.full_name, t.email, t.role, d.code AS department_code FROM teachers t "
                    f"LEFT JOIN departments d ON d.id = t.department_id WHERE {who} AND {where} "
                    "AND t.is_active = 1 ORDER BY t.full_name, t.id LIMIT ?", (*params, *filter_params, limit))


@tool
def list_courses(db: Db, department_code: str | None = None, query: str = "", limit: int = 20) -> list[dict]:
    """List courses with their credits, minimum grade level and prerequisites (course code and minimum final
    percentage needed).

    Args:
        department_code: only this department's courses, e.g. "SCI".
        query: words in the course title or code.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    where, filter_params = filters(("upper(d.code) = upper(?)", department_code))
    what, params = like_any(query.strip(), "lower(c.title)", "lower(c.code)", lower=True)
    rows = db.query("SELECT c.id, c.code, c.title, d.code AS department_code, c.credits, c.min_grade_level FROM courses c "
                    f"JOIN departments d ON d.id = c.department_id WHERE {where} AND {what} ORDER BY c.code LIMIT ?",
                    (*filter_params, *params, limit))
    for r in rows:
        r["prerequisites"] = db.query("SELECT p.code, p.title, cp.min_percent FROM course_prerequisites cp JOIN courses p "
                                      "ON p.id = cp.prereq_course_id WHERE cp.course_id = ? ORDER BY p.code", (r["id"],))
        del r["id"]
    return rows


@tool
def list_sections(db: Db, term_code: str, course_code: str | None = None, teacher_email: str | None = None,
                  limit: int = 20) -> list[dict]:
    """List the sections (classes) of a term with their teacher, meeting pattern and time, room, capacity and
    seats left.

    Args:
        term_code: the term, e.g. "2026SP".
        course_code: only sections of this course, e.g. "ALG2".
        teacher_email: only sections taught by this teacher.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    t = _term(db, term_code)
    where, params = filters(("upper(c.code) = upper(?)", course_code), ("lower(tc.email) = lower(?)", teacher_email))
    return db.query("SELECT s.id AS section_id, c.code AS course_code, c.title AS course_title, s.section_code, "
                    "tc.full_name AS teacher, s.meeting_days, s.start_time, s.end_time, s.room, s.capacity, "
                    "s.capacity - (SELECT COUNT(*) FROM enrolments e WHERE e.section_id = s.id AND e.status <> 'dropped') "
                    "AS seats_left FROM sections s JOIN courses c ON c.id = s.course_id JOIN teachers tc ON "
                    f"tc.id = s.teacher_id WHERE s.term_id = ? AND {where} ORDER BY c.code, s.section_code LIMIT ?",
                    (t["id"], *params, limit))


@tool
def get_section(db: Db, section_id: int) -> dict:
    """Show a section: course, term, teacher, schedule, capacity, enrolment count and its grade categories with
    their weights.

    Args:
        section_id: the section's id, from list_sections.
    """
    s = _section(db, section_id)
    n = db.value("SELECT COUNT(*) FROM enrolments WHERE section_id = ? AND status <> 'dropped'", (section_id,))
    cats = db.query("SELECT name, weight FROM grade_categories WHERE section_id = ? ORDER BY id", (section_id,))
    return {"section_id": s["id"], "course_code": s["course_code"], "course_title": s["course_title"],
            "section_code": s["section_code"], "term_code": s["term_code"], "term_status": s["term_status"],
            "teacher": s["teacher_name"], "teacher_email": s["teacher_email"], "meeting_days": s["meeting_days"],
            "start_time": s["start_time"], "end_time": s["end_time"], "room": s["room"], "capacity": s["capacity"],
            "enrolled": n, "seats_left": s["capacity"] - n, "grade_categories": cats}


@tool
def list_section_roster(db: Db, section_id: int, limit: int = 40) -> list[dict]:
    """List the students of a section (enrolled or completed, not dropped) with their final grade if computed.

    Args:
        section_id: the section's id.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    _section(db, section_id)
    return db.query("SELECT st.student_number, st.full_name, st.grade_level, e.status, e.final_percent, e.final_letter "
                    "FROM enrolments e JOIN students st ON st.id = e.student_id WHERE e.section_id = ? AND "
                    "e.status <> 'dropped' ORDER BY st.full_name LIMIT ?", (section_id, limit))


@tool
def list_student_schedule(db: Db, student_number: str, term_code: str) -> list[dict]:
    """List a student's sections in a term (including dropped ones) with times, teacher, status and final grade.

    Args:
        student_number: the student's 7-digit number.
        term_code: the term, e.g. "2026SP".
    """
    st = _student(db, student_number)
    t = _term(db, term_code)
    return db.query("SELECT s.id AS section_id, c.code AS course_code, c.title AS course_title, s.section_code, "
                    "tc.full_name AS teacher, s.meeting_days, s.start_time, s.end_time, e.status, e.final_percent, "
                    "e.final_letter FROM enrolments e JOIN sections s ON s.id = e.section_id JOIN courses c ON "
                    "c.id = s.course_id JOIN teachers tc ON tc.id = s.teacher_id WHERE e.student_id = ? AND "
                    "s.term_id = ? ORDER BY s.meeting_days, s.start_time", (st["id"], t["id"]))


@tool
def list_assignments(db: Db, section_id: int, limit: int = 30) -> list[dict]:
    """List a section's assignments with category, maximum points, due time, late rules and status.

    Args:
        section_id: the section's id.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    _section(db, section_id)
    return db.query("SELECT a.id AS assignment_id, a.title, c.name AS category, a.max_points, a.due_at, "
                    "a.late_penalty_per_day, a.max_late_days, a.status FROM assignments a JOIN grade_categories c "
                    "ON c.id = a.category_id WHERE a.section_id = ? ORDER BY a.due_at, a.id LIMIT ?",
                    (section_id, limit))


@tool
def list_submissions(db: Db, assignment_id: int, limit: int = 40) -> list[dict]:
    """List the submissions to an assignment with days late and the grade given, if any.

    Args:
        assignment_id: the assignment's id.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    _assignment(db, assignment_id)
    return db.query("SELECT st.student_number, st.full_name, sb.submitted_at, sb.days_late, g.id AS grade_id, "
                    "g.raw_points, g.late_penalty_pct, g.points FROM submissions sb JOIN students st ON "
                    "st.id = sb.student_id LEFT JOIN grades g ON g.assignment_id = sb.assignment_id AND "
                    "g.student_id = sb.student_id WHERE sb.assignment_id = ? ORDER BY st.full_name LIMIT ?",
                    (assignment_id, limit))


@tool
def get_student_grades(db: Db, student_number: str, section_id: int) -> dict:
    """Show a student's work in a section: each published assignment with submission, raw points, late penalty
    and points counted, and the current weighted percentage (category weights applied to graded work only).

    Args:
        student_number: the student's 7-digit number.
        section_id: the section's id.
    """
    st = _student(db, student_number)
    sec = _section(db, section_id)
    e = _enrolment(db, st["id"], section_id)
    if e is None:
        raise ToolError(f"{st['full_name']} is not in {sec['course_code']} section {sec['section_code']}.")
    items = db.query("SELECT a.id AS assignment_id, a.title, c.name AS category, a.max_points, a.due_at, "
                     "sb.submitted_at, sb.days_late, g.id AS grade_id, g.raw_points, g.late_penalty_pct, g.points "
                     "FROM assignments a JOIN grade_categories c ON c.id = a.category_id LEFT JOIN submissions sb ON "
                     "sb.assignment_id = a.id AND sb.student_id = ? LEFT JOIN grades g ON g.assignment_id = a.id AND "
                     "g.student_id = ? WHERE a.section_id = ? AND a.status = 'published' ORDER BY a.due_at, a.id",
                     (st["id"], st["id"], section_id))
    pct = _weighted_percent(db, section_id, st["id"])
    return {"student": st["full_name"], "course_code": sec["course_code"], "section_code": sec["section_code"],
            "enrolment_status": e["status"], "assignments": items, "current_percent": pct,
            "current_letter": letter(pct) if pct is not None else None, "final_percent": e["final_percent"],
            "final_letter": e["final_letter"]}


@tool
def list_attendance(db: Db, section_id: int, student_number: str | None = None, date_from: str | None = None,
                    date_to: str | None = None, limit: int = 40) -> list[dict]:
    """List attendance records of a section, newest first, optionally for one student or a date range.

    Args:
        section_id: the section's id.
        student_number: only this student's records.
        date_from: only days on or after this date, YYYY-MM-DD.
        date_to: only days on or before this date, YYYY-MM-DD.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    _section(db, section_id)
    sid = _student(db, student_number)["id"] if student_number else None
    f = parse_day(date_from, "date_from", "2026-02-02").isoformat() if date_from else None
    t = parse_day(date_to, "date_to", "2026-02-13").isoformat() if date_to else None
    where, params = filters(("a.student_id = ?", sid), ("a.day >= ?", f), ("a.day <= ?", t))
    return db.query("SELECT a.day, st.student_number, st.full_name, a.status FROM attendance a JOIN students st ON "
                    f"st.id = a.student_id WHERE a.section_id = ? AND {where} "
                    "ORDER BY a.day DESC, st.full_name LIMIT ?", (section_id, *params, limit))


@tool
def get_report_card(db: Db, student_number: str, term_code: str) -> dict:
    """Show a student's report card for a term (status, comment, GPA and one line per section), or whether it
    is missing.

    Args:
        student_number: the student's 7-digit number.
        term_code: the term, e.g. "2025FA".
    """
    st = _student(db, student_number)
    t = _term(db, term_code)
    rc = db.one("SELECT * FROM report_cards WHERE student_id = ? AND term_id = ?", (st["id"], t["id"]))
    if rc is None:
        return {"student": st["full_name"], "term_code": t["code"], "report_card": None}
    lines = db.query("SELECT c.code AS course_code, c.title AS course_title, l.final_percent, l.final_letter FROM "
                     "report_card_lines l JOIN sections s ON s.id = l.section_id JOIN courses c ON c.id = s.course_id "
                     "WHERE l.report_card_id = ? ORDER BY c.code", (rc["id"],))
    return {"student": st["full_name"], "term_code": t["code"], "report_card_id": rc["id"], "status": rc["status"],
            "comment": rc["comment"], "gpa": rc["gpa"], "published_at": rc["published_at"], "lines": lines}


@tool
def list_messages(db: Db, student_number: str, limit: int = 20) -> list[dict]:
    """List the messages sent to a student's guardians, newest first.

    Args:
        student_number: the student's 7-digit number.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    st = _student(db, student_number)
    return db.query("SELECT m.id AS message_id, t.full_name AS teacher, g.full_name AS guardian, g.email AS guardian_email, "
                    "m.subject, m.body, m.sent_at FROM messages m JOIN teachers t ON t.id = m.teacher_id JOIN guardians g "
                    "ON g.id = m.guardian_id WHERE m.student_id = ? ORDER BY m.sent_at DESC, m.id DESC LIMIT ?",
                    (st["id"], limit))


@tool
def list_appeals(db: Db, section_id: int | None = None, student_number: str | None = None,
                 status: Literal["opened", "accepted", "rejected"] | None = None, limit: int = 20) -> list[dict]:
    """List grade appeals by section or student, with the assignment, the grade appealed and the decision.

    Args:
        section_id: only appeals on this section's assignments.
        student_number: only this student's appeals.
        status: only appeals with this status.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    if section_id is None and student_number is None:
        raise ToolError("Give a section_id or a student_number.")
    sid = _student(db, student_number)["id"] if student_number else None
    where, params = filters(("a.section_id = ?", section_id), ("ap.student_id = ?", sid), ("ap.status = ?", status))
    return db.query("SELECT ap.id AS appeal_id, st.student_number, st.full_name, a.id AS assignment_id, a.title, "
                    "a.section_id, a.max_points, g.id AS grade_id, g.raw_points, g.points, ap.reason, ap.status, "
                    "ap.opened_at, ap.decided_at, ap.decision_note FROM grade_appeals ap JOIN grades g ON "
                    "g.id = ap.grade_id JOIN assignments a ON a.id = g.assignment_id JOIN students st ON "
                    f"st.id = ap.student_id WHERE {where} ORDER BY ap.opened_at, ap.id LIMIT ?", (*params, limit))


# ----------------------------------------------------------------------------------------------
# write tools: enrolment (registrar)
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def enrol_student(db: Db, registrar_email: str, student_number: str, section_id: int) -> dict:
    """Enrol a student in a section. Registrar only.

    Rules: the term must be in planning or active; the student must be currently enrolled at the school and
    in at least the course's minimum grade level; the section must have a free seat; the student may not
    already be in another section of the same course that term; every prerequisite course must have been
    completed with at least its minimum final percentage; and the section may not clash with the student's
    other sections that term (same meeting days and overlapping times).

    Args:
        registrar_email: the registrar's e-mail.
        student_number: the student's 7-digit number.
        section_id: the section's id.
    """
    _registrar(db, registrar_email, "enrol students")
    st = _student(db, student_number)
    sec = _section(db, section_id)
    if sec["term_status"] not in ("planning", "active"):
        raise ToolError(f"Term {sec['term_code']} is {sec['term_status']}; enrolment is only open for planning or "
                        "active terms.")
    if st["status"] != "enrolled":
        raise ToolError(f"{st['full_name']} has withdrawn from the school.")
    if st["grade_level"] < sec["min_grade_level"]:
        raise ToolError(f"{sec['course_code']} is for grade {sec['min_grade_level']} and up; {st['full_name']} is in "
                        f"grade {st['grade_level']}.")
    existing = _enrolment(db, st["id"], section_id)
    if existing and existing["status"] != "dropped":
        raise ToolError(f"{st['full_name']} is already in this section.")
    same = db.one("SELECT s.section_code FROM enrolments e JOIN sections s ON s.id = e.section_id WHERE e.student_id = ? "
                  "AND s.term_id = ? AND s.course_id = ? AND e.status <> 'dropped'",
                  (st["id"], sec["term_id"], sec["course_id"]))
    if same:
        raise ToolError(f"{st['full_name']} is already in {sec['course_code']} section {same['section_code']} this term; "
                        "drop that section first to switch.")
    for pre in db.query("SELECT cp.min_percent, p.id, p.code FROM course_prerequisites cp JOIN courses p ON "
                        "p.id = cp.prereq_course_id WHERE cp.course_id = ?", (sec["course_id"],)):
        best = db.value("SELECT MAX(e.final_percent) FROM enrolments e JOIN sections s ON s.id = e.section_id WHERE "
                        "e.student_id = ? AND s.course_id = ? AND e.status = 'completed'", (st["id"], pre["id"]))
        if best is None or best < pre["min_percent"]:
            raise ToolError(f"{sec['course_code']} requires {pre['code']} completed with at least {pre['min_percent']:g}%; "
                            f"{st['full_name']} has {'not completed it' if best is None else f'{best:g}%'}.")
    clash = db.one("SELECT c.code, s.section_code, s.start_time, s.end_time FROM enrolments e JOIN sections s ON "
                   "s.id = e.section_id JOIN courses c ON c.id = s.course_id WHERE e.student_id = ? AND s.term_id = ? "
                   "AND e.status <> 'dropped' AND s.meeting_days = ? AND s.start_time < ? AND s.end_time > ?",
                   (st["id"], sec["term_id"], sec["meeting_days"], sec["end_time"], sec["start_time"]))
    if clash:
        raise ToolError(f"Schedule clash: {st['full_name']} already has {clash['code']} section {clash['section_code']} "
                        f"on {sec['meeting_days']} {clash['start_time']}-{clash['end_time']}.")
    taken = db.value("SELECT COUNT(*) FROM enrolments WHERE section_id = ? AND status <> 'dropped'", (section_id,))
    if taken >= sec["capacity"]:
        raise ToolError(f"{sec['course_code']} section {sec['section_code']} is full ({sec['capacity']} seats).")
    if existing:
        db.execute("UPDATE enrolments SET status = 'enrolled', enrolled_at = ?, dropped_at = NULL WHERE id = ?",
                   (_now(db), existing["id"]))
        eid = existing["id"]
    else:
        eid = db.insert("enrolments", {"student_id": st["id"], "section_id": section_id, "status": "enrolled",
                                       "enrolled_at": _now(db)})
    return {"enrolment_id": eid, "student": st["full_name"], "course_code": sec["course_code"],
            "section_code": sec["section_code"], "status": "enrolled", "seats_left": sec["capacity"] - taken - 1}


@tool(write=True)
def drop_enrolment(db: Db, registrar_email: str, student_number: str, section_id: int) -> dict:
    """Drop a student from a section they are enrolled in (planning or active terms only). Registrar only.

    Args:
        registrar_email: the registrar's e-mail.
        student_number: the student's 7-digit number.
        section_id: the section's id.
    """
    _registrar(db, registrar_email, "drop enrolments")
    st = _student(db, student_number)
    sec = _section(db, section_id)
    e = _enrolled(db, st, sec)
    if sec["term_status"] not in ("planning", "active"):
        raise ToolError(f"Term {sec['term_code']} is {sec['term_status']}; enrolments can no longer be dropped.")
    db.execute("UPDATE enrolments SET status = 'dropped', dropped_at = ? WHERE id = ?", (_now(db), e["id"]))
    return {"student": st["full_name"], "course_code": sec["course_code"], "section_code": sec["section_code"],
            "status": "dropped"}


# ----------------------------------------------------------------------------------------------
# write tools: assignments, submissions and grades
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_assignment(db: Db, teacher_email: str, section_id: int, title: str, category: Category,
                      max_points: float, due_at: str, late_penalty_per_day: float = 10.0, max_late_days: int = 3,
                      publish: bool = True) -> dict:
    """Create an assignment in one of the teacher's own sections of the active term.

    Rules: the category must be one of the section's grade categories; titles are unique within a section;
    the due time must fall inside the term and not in the past; maximum points are positive; the late
    penalty is a percentage of the score per day late (0-100) and work more than max_late_days late is not
    accepted.

    Args:
        teacher_email: the section teacher's e-mail.
        section_id: the section's id.
        title: the assignment's title.
        category: the grade category it counts toward.
        max_points: the maximum score.
        due_at: due date and time, YYYY-MM-DDTHH:MM.
        late_penalty_per_day: percent deducted per day late (default 10).
        max_late_days: how many days late work is still accepted (default 3).
        publish: publish it to students now (default true) or keep it as a draft.
    """
    actor, sec = _teacher_section(db, teacher_email, section_id, "add assignments")
    if sec["term_status"] != "active":
        raise ToolError(f"Term {sec['term_code']} is {sec['term_status']}; assignments are added in the active term.")
    cat = db.one("SELECT id FROM grade_categories WHERE section_id = ? AND name = ?", (section_id, category))
    if cat is None:
        names = [r["name"] for r in db.query("SELECT name FROM grade_categories WHERE section_id = ?", (section_id,))]
        raise ToolError(f"This section has no {category!r} category; use one of {names}.")
    title = title.strip()
    if not title:
        raise ToolError("Give the assignment a title.")
    db.none("SELECT 1 FROM assignments WHERE section_id = ? AND lower(title) = lower(?)", (section_id, title),
            found=f"This section already has an assignment called {title!r}.")
    if max_points <= 0:
        raise ToolError("max_points must be positive.")
    if not 0 <= late_penalty_per_day <= 100 or max_late_days < 0:
        raise ToolError("late_penalty_per_day must be 0-100 and max_late_days 0 or more.")
    try:
        due = datetime.fromisoformat(due_at.strip())
    except ValueError:
        raise ToolError(f"due_at must look like 2026-02-20T08:00 (got {due_at!r}).") from None
    if due <= db.now():
        raise ToolError("The due time must be in the future.")
    if not sec["start_date"] <= due.date().isoformat() <= sec["end_date"]:
        raise ToolError(f"The due date must fall inside term {sec['term_code']} ({sec['start_date']} to {sec['end_date']}).")
    aid = db.insert("assignments", {"section_id": section_id, "category_id": cat["id"], "title": title,
                                    "max_points": max_points, "due_at": due.isoformat(timespec="seconds"),
                                    "late_penalty_per_day": late_penalty_per_day, "max_late_days": max_late_days,
                                    "status": "published" if publish else "draft", "created_at": _now(db)})
    return {"assignment_id": aid, "title": title, "status": "published" if publish else "draft"}


@tool(write=True)
def publish_assignment(db: Db, teacher_email: str, assignment_id: int) -> dict:
    """Publish a draft assignment of one of the teacher's own sections so students see it and it counts.

    Args:
        teacher_email: the section teacher's e-mail.
        assignment_id: the assignment's id.
    """
    actor = _staff(db, teacher_email)
    a, sec = _assignment_section(db, assignment_id)
    _own_section(db, actor, sec, "publish its assignments")
    if a["status"] != "draft":
        raise ToolError(f"'{a['title']}' is already published.")
    if sec["term_status"] != "active":
        raise ToolError(f"Term {sec['term_code']} is {sec['term_status']}.")
    db.execute("UPDATE assignments SET status = 'published' WHERE id = ?", (assignment_id,))
    return {"assignment_id": assignment_id, "status": "published"}


@tool(write=True)
def submit_assignment(db: Db, student_email: str, assignment_id: int) -> dict:
    """Hand in the student's own work for a published assignment, now. Late work (after the due time) is
    recorded with its days late, rounded up, and is refused once more than the assignment's max_late_days
    late. Each assignment is submitted once.

    Args:
        student_email: the student's school e-mail (the account acting).
        assignment_id: the assignment's id.
    """
    st = _student_by_email(db, student_email)
    a, sec = _assignment_section(db, assignment_id)
    _enrolled(db, st, sec)
    if a["status"] != "published" or sec["term_status"] != "active":
        raise ToolError(f"'{a['title']}' is not open for submissions.")
    db.none("SELECT 1 FROM submissions WHERE assignment_id = ? AND student_id = ?", (assignment_id, st["id"]),
            found=f"{st['full_name']} has already submitted '{a['title']}'.")
    now = _now(db)
    days = late_days(now, a["due_at"])
    if days > a["max_late_days"]:
        raise ToolError(f"'{a['title']}' was due {a['due_at']}; work more than {a['max_late_days']} day(s) late is not "
                        "accepted.")
    sid = db.insert("submissions", {"assignment_id": assignment_id, "student_id": st["id"], "submitted_at": now,
                                    "days_late": days})
    return {"submission_id": sid, "title": a["title"], "submitted_at": now, "days_late": days,
            "late_penalty_pct": penalty_pct(days, a["late_penalty_per_day"])}


@tool(write=True)
def grade_submission(db: Db, teacher_email: str, assignment_id: int, student_number: str, raw_points: float,
                     comment: str = "") -> dict:
    """Grade a student's submission in one of the teacher's own sections. The late penalty is applied
    automatically: points counted = raw points x (100 - days late x penalty per day) / 100, rounded to 2
    decimals. The raw score must be between 0 and the assignment's maximum. Work already graded is changed
    with update_grade instead.

    Args:
        teacher_email: the section teacher's e-mail.
        assignment_id: the assignment's id.
        student_number: the student's 7-digit number.
        raw_points: the score before any late penalty.
        comment: optional feedback for the student.
    """
    actor = _staff(db, teacher_email)
    a, sec = _assignment_section(db, assignment_id)
    _own_section(db, actor, sec, "grade its work")
    st = _student(db, student_number)
    _check_unlocked(db, st, sec)
    sub = db.one("SELECT * FROM submissions WHERE assignment_id = ? AND student_id = ?", (assignment_id, st["id"]),
                 missing=f"{st['full_name']} has not submitted '{a['title']}'; only submitted work can be graded.")
    db.none("SELECT 1 FROM grades WHERE assignment_id = ? AND student_id = ?", (assignment_id, st["id"]),
            found=f"'{a['title']}' is already graded for {st['full_name']}; use update_grade to change it.")
    if not 0 <= raw_points <= a["max_points"]:
        raise ToolError(f"The score must be between 0 and {a['max_points']:g} points.")
    pct = penalty_pct(sub["days_late"], a["late_penalty_per_day"])
    pts = apply_penalty(raw_points, pct)
    gid = db.insert("grades", {"assignment_id": assignment_id, "student_id": st["id"], "raw_points": raw_points,
                               "late_penalty_pct": pct, "points": pts, "graded_by": actor["id"], "graded_at": _now(db),
                               "comment": comment.strip()})
    return {"grade_id": gid, "raw_points": raw_points, "late_penalty_pct": pct, "points": pts,
            "max_points": a["max_points"]}


@tool(write=True)
def update_grade(db: Db, teacher_email: str, grade_id: int, raw_points: float) -> dict:
    """Change the raw score of an existing grade in one of the teacher's own sections; the recorded late
    penalty is applied again. Not possible once the student's report card for that term is published.

    Args:
        teacher_email: the section teacher's e-mail.
        grade_id: the grade's id, from get_student_grades or list_submissions.
        raw_points: the corrected score before the late penalty.
    """
    actor = _staff(db, teacher_email)
    g = db.one("SELECT * FROM grades WHERE id = ?", (grade_id,),
               missing=f"No grade with id {grade_id}.")
    a, sec = _assignment_section(db, g["assignment_id"])
    _own_section(db, actor, sec, "change its grades")
    st = db.one("SELECT * FROM students WHERE id = ?", (g["student_id"],))
    _check_unlocked(db, st, sec)
    if not 0 <= raw_points <= a["max_points"]:
        raise ToolError(f"The score must be between 0 and {a['max_points']:g} points.")
    if raw_points == g["raw_points"]:
        raise ToolError("That is already the recorded score.")
    pts = _set_grade(db, grade_id, raw_points, g["late_penalty_pct"])
    return {"grade_id": grade_id, "raw_points": raw_points, "points": pts}


@tool(write=True)
def record_attendance(db: Db, teacher_email: str, section_id: int, student_number: str, day: str,
                      status: AttendanceStatus) -> dict:
    """Record (or correct) a student's attendance for one class meeting of the teacher's own section in the
    active term. The day must be a meeting day of the section (MWF = Monday/Wednesday/Friday, TR =
    Tuesday/Thursday), inside the term, and not in the future.

    Args:
        teacher_email: the section teacher's e-mail.
        section_id: the section's id.
        student_number: the student's 7-digit number.
        day: the class day, YYYY-MM-DD.
        status: present, absent, late or excused.
    """
    actor, sec = _teacher_section(db, teacher_email, section_id, "take its attendance")
    if sec["term_status"] != "active":
        raise ToolError(f"Term {sec['term_code']} is {sec['term_status']}; attendance is taken in the active term.")
    d = parse_day(day, "day", "2026-02-09")
    if d > db.today() or not sec["start_date"] <= d.isoformat() <= sec["end_date"]:
        raise ToolError(f"{d.isoformat()} is in the future or outside the term.")
    if d.weekday() not in WEEKDAYS[sec["meeting_days"]]:
        raise ToolError(f"This section meets {sec['meeting_days']}; {d.isoformat()} is a {d.strftime('%A')}.")
    st = _student(db, student_number)
    e = _enrolment(db, st["id"], section_id)
    if e is None or e["status"] != "enrolled":
        raise ToolError(f"{st['full_name']} is not enrolled in this section.")
    old = db.one("SELECT * FROM attendance WHERE section_id = ? AND student_id = ? AND day = ?",
                 (section_id, st["id"], d.isoformat()))
    if old:
        if old["status"] == status:
            raise ToolError(f"{st['full_name']} is already marked {status} on {d.isoformat()}.")
        db.execute("UPDATE attendance SET status = ?, recorded_by = ? WHERE id = ?", (status, actor["id"], old["id"]))
    else:
        db.insert("attendance", {"section_id": section_id, "student_id": st["id"], "day": d.isoformat(),
                                 "status": status, "recorded_by": actor["id"]})
    return {"student": st["full_name"], "day": d.isoformat(), "status": status,
            "previous": old["status"] if old else None}


# ----------------------------------------------------------------------------------------------
# write tools: final grades, report cards
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def compute_final_grade(db: Db, teacher_email: str, section_id: int, student_number: str) -> dict:
    """Compute and record a student's final grade in the teacher's own section for a term being graded: the
    category-weighted percentage of the graded work (categories without graded work are left out and the
    other weights scaled up), rounded to one decimal, and its letter (A 90+, B 80+, C 70+, D 60+, else F).
    The enrolment becomes completed. It can be recomputed until the report card is published.

    Args:
        teacher_email: the section teacher's e-mail.
        section_id: the section's id.
        student_number: the student's 7-digit number.
    """
    actor, sec = _teacher_section(db, teacher_email, section_id, "compute its final grades")
    if sec["term_status"] != "grading":
        raise ToolError(f"Term {sec['term_code']} is {sec['term_status']}; final grades are computed while a term is "
                        "being graded.")
    st = _student(db, student_number)
    e = _enrolment(db, st["id"], section_id)
    if e is None or e["status"] == "dropped":
        raise ToolError(f"{st['full_name']} is not in this section.")
    _check_unlocked(db, st, sec)
    pct = _weighted_percent(db, section_id, st["id"])
    if pct is None:
        raise ToolError(f"{st['full_name']} has no graded work in this section yet.")
    db.execute("UPDATE enrolments SET status = 'completed', final_percent = ?, final_letter = ? WHERE id = ?",
               (pct, letter(pct), e["id"]))
    return {"student": st["full_name"], "course_code": sec["course_code"], "final_percent": pct,
            "final_letter": letter(pct)}


@tool(write=True)
def generate_report_card(db: Db, registrar_email: str, student_number: str, term_code: str) -> dict:
    """Create a student's draft report card for a term being graded, with one line per section from the final
    grades and a credit-weighted GPA (A=4, B=3, C=2, D=1, F=0, rounded to 2 decimals). Every section the
    student took that term (not dropped) must have its final grade computed first. Registrar only.

    Args:
        registrar_email: the registrar's e-mail.
        student_number: the student's 7-digit number.
        term_code: the term, e.g. "2025FA".
    """
    _registrar(db, registrar_email, "generate report cards")
    st = _student(db, student_number)
    t = _term(db, term_code)
    if t["status"] != "grading":
        raise ToolError(f"Term {t['code']} is {t['status']}; report cards are generated while a term is being graded.")
    db.none("SELECT 1 FROM report_cards WHERE student_id = ? AND term_id = ?", (st["id"], t["id"]),
            found=f"{st['full_name']} already has a report card for {t['code']}; use get_report_card.")
    rows = db.query("SELECT e.section_id, e.status, e.final_percent, e.final_letter, c.code, c.credits FROM enrolments e "
                    "JOIN sections s ON s.id = e.section_id JOIN courses c ON c.id = s.course_id WHERE e.student_id = ? "
                    "AND s.term_id = ? AND e.status <> 'dropped' ORDER BY c.code", (st["id"], t["id"]))
    if not rows:
        raise ToolError(f"{st['full_name']} took no sections in {t['code']}.")
    pending = [r["code"] for r in rows if r["status"] != "completed"]
    if pending:
        raise ToolError(f"Final grades are still missing for {', '.join(pending)}; the teachers must compute them first.")
    gpa = term_gpa((r["final_letter"], r["credits"]) for r in rows)
    rid = db.insert("report_cards", {"student_id": st["id"], "term_id": t["id"], "status": "draft", "comment": "",
                                     "gpa": gpa, "created_at": _now(db)})
    for r in rows:
        db.insert("report_card_lines", {"report_card_id": rid, "section_id": r["section_id"],
                                        "final_percent": r["final_percent"], "final_letter": r["final_letter"]})
    return {"report_card_id": rid, "status": "draft", "gpa": gpa, "lines": len(rows)}


@tool(write=True)
def set_report_card_comment(db: Db, registrar_email: str, report_card_id: int, comment: str) -> dict:
    """Set the overall comment of a draft report card. Registrar only; published report cards are locked.

    Args:
        registrar_email: the registrar's e-mail.
        report_card_id: the report card's id.
        comment: the comment, up to 500 characters.
    """
    _registrar(db, registrar_email, "edit report cards")
    rc = _report_card(db, report_card_id)
    if rc["status"] != "draft":
        raise ToolError("This report card is published and locked.")
    if not 1 <= len(comment.strip()) <= 500:
        raise ToolError("The comment must have 1 to 500 characters.")
    db.execute("UPDATE report_cards SET comment = ? WHERE id = ?", (comment.strip(), report_card_id))
    return {"report_card_id": report_card_id, "comment": comment.strip()}


@tool(write=True)
def publish_report_card(db: Db, registrar_email: str, report_card_id: int) -> dict:
    """Publish a draft report card to the student and guardians. Publishing locks the student's grades for that
    term. Registrar only.

    Args:
        registrar_email: the registrar's e-mail.
        report_card_id: the report card's id.
    """
    actor = _registrar(db, registrar_email, "publish report cards")
    rc = _report_card(db, report_card_id)
    if rc["status"] != "draft":
        raise ToolError("This report card is already published.")
    stale = db.value("SELECT COUNT(*) FROM report_card_lines l JOIN enrolments e ON e.section_id = l.section_id AND "
                     "e.student_id = ? WHERE l.report_card_id = ? AND (e.final_percent IS NOT l.final_percent)",
                     (rc["student_id"], report_card_id))
    if stale:
        raise ToolError("A final grade changed after this draft was generated; it cannot be published as it is.")
    db.execute("UPDATE report_cards SET status = 'published', published_at = ?, published_by = ? WHERE id = ?",
               (_now(db), actor["id"], report_card_id))
    return {"report_card_id": report_card_id, "status": "published"}


# ----------------------------------------------------------------------------------------------
# write tools: messages and appeals
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def send_parent_message(db: Db, teacher_email: str, student_number: str, guardian_email: str, subject: str,
                        body: str) -> dict:
    """Send a message to a student's guardian. The teacher must teach the student in a term that is active or
    being graded, and the guardian must be one of the student's guardians.

    Args:
        teacher_email: the teacher's e-mail.
        student_number: the student's 7-digit number.
        guardian_email: the guardian's e-mail (see get_student).
        subject: the subject line, up to 120 characters.
        body: the message text.
    """
    actor = _staff(db, teacher_email)
    st = _student(db, student_number)
    db.one("SELECT 1 FROM enrolments e JOIN sections s ON s.id = e.section_id JOIN terms t ON t.id = s.term_id "
           "WHERE e.student_id = ? AND s.teacher_id = ? AND e.status <> 'dropped' AND t.status IN "
           "('active', 'grading')", (st["id"], actor["id"]),
           missing=f"{actor['full_name']} does not teach {st['full_name']} this year; only their teachers can "
                   "message the family.")
    g = db.one("SELECT g.* FROM guardians g JOIN student_guardians sg ON sg.guardian_id = g.id WHERE sg.student_id = ? "
               "AND lower(g.email) = lower(?)", (st["id"], guardian_email.strip()),
               missing=f"{guardian_email!r} is not a guardian of {st['full_name']}; "
                       "see get_student for their guardians.")
    if not 1 <= len(subject.strip()) <= 120 or not body.strip():
        raise ToolError("Give a subject (1 to 120 characters) and a message body.")
    mid = db.insert("messages", {"teacher_id": actor["id"], "guardian_id": g["id"], "student_id": st["id"],
                                 "subject": subject.strip(), "body": body.strip(), "sent_at": _now(db)})
    return {"message_id": mid, "to": g["full_name"], "subject": subject.strip()}


@tool(write=True)
def open_grade_appeal(db: Db, student_email: str, grade_id: int, reason: str) -> dict:
    """Appeal one of the student's own grades. Appeals must be opened within 14 days of grading, one open
    appeal per grade, and not once the report card for that term is published.

    Args:
        student_email: the student's school e-mail (the account acting).
        grade_id: the grade's id, from get_student_grades.
        reason: why the grade should be reviewed.
    """
    st = _student_by_email(db, student_email)
    not_theirs = f"{st['full_name']} has no grade with id {grade_id}; students can only appeal their own grades."
    g = db.one("SELECT * FROM grades WHERE id = ?", (grade_id,), missing=not_theirs)
    require_owner(g, "student_id", st["id"], not_theirs)
    a, sec = _assignment_section(db, g["assignment_id"])
    _check_unlocked(db, st, sec)
    if db.now() - datetime.fromisoformat(g["graded_at"]) > timedelta(days=APPEAL_WINDOW_DAYS):
        raise ToolError(f"'{a['title']}' was graded on {g['graded_at'][:10]}; appeals must be opened within "
                        f"{APPEAL_WINDOW_DAYS} days.")
    db.none("SELECT 1 FROM grade_appeals WHERE grade_id = ? AND status = 'opened'", (grade_id,),
            found=f"There is already an open appeal on '{a['title']}'.")
    if not reason.strip():
        raise ToolError("Give a reason for the appeal.")
    aid = db.insert("grade_appeals", {"grade_id": grade_id, "student_id": st["id"], "reason": reason.strip(),
                                      "status": "opened", "opened_at": _now(db)})
    return {"appeal_id": aid, "title": a["title"], "status": "opened"}


@tool(write=True)
def decide_grade_appeal(db: Db, staff_email: str, appeal_id: int, decision: Literal["accepted", "rejected"],
                        note: str, new_raw_points: float | None = None) -> dict:
    """Decide an open grade appeal. The section's teacher or the head of the course's department decides.
    Accepting requires a new raw score above the current one and at most the maximum; the grade is updated
    (late penalty re-applied) and, if the final grade was already computed, it is recomputed. Rejecting
    leaves the grade unchanged. A note explaining the decision is required.

    Args:
        staff_email: the deciding teacher's or head of department's e-mail.
        appeal_id: the appeal's id, from list_appeals.
        decision: "accepted" or "rejected".
        note: the explanation given to the student.
        new_raw_points: the new raw score (required when accepting).
    """
    actor = _staff(db, staff_email)
    ap = db.one("SELECT * FROM grade_appeals WHERE id = ?", (appeal_id,),
                missing=f"No appeal with id {appeal_id}. Use list_appeals.")
    g = db.one("SELECT * FROM grades WHERE id = ?", (ap["grade_id"],))
    a, sec = _assignment_section(db, g["assignment_id"])
    if sec["teacher_id"] != actor["id"] and not (actor["role"] == "head_of_department"
                                                 and actor["department_id"] == sec["department_id"]):
        raise ToolError(f"Only {sec['teacher_name']} (the section's teacher) or the head of its department can decide "
                        "this appeal.")
    if ap["status"] != "opened":
        raise ToolError(f"Appeal {appeal_id} was already {ap['status']}.")
    st = db.one("SELECT * FROM students WHERE id = ?", (ap["student_id"],))
    _check_unlocked(db, st, sec)
    if not note.strip():
        raise ToolError("Give a note explaining the decision.")
    result: dict[str, Any] = {"appeal_id": appeal_id, "status": decision}
    if decision == "accepted":
        if new_raw_points is None:
            raise ToolError("Accepting an appeal needs new_raw_points.")
        if not g["raw_points"] < new_raw_points <= a["max_points"]:
            raise ToolError(f"The new score must be above the current {g['raw_points']:g} and at most "
                            f"{a['max_points']:g}.")
        result["points"] = _set_grade(db, g["id"], new_raw_points, g["late_penalty_pct"])
        e = _enrolment(db, st["id"], sec["id"])
        if e and e["status"] == "completed":
            pct = _weighted_percent(db, sec["id"], st["id"])
            db.execute("UPDATE enrolments SET final_percent = ?, final_letter = ? WHERE id = ?",
                       (pct, letter(pct), e["id"]))
            result["final_percent"] = pct
    elif new_raw_points is not None:
        raise ToolError("A rejected appeal does not change the score; leave new_raw_points empty.")
    db.execute("UPDATE grade_appeals SET status = ?, decided_by = ?, decided_at = ?, decision_note = ? WHERE id = ?",
               (decision, actor["id"], _now(db), note.strip(), appeal_id))
    return result
