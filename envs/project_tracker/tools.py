"""Tools of the project_tracker world: a team project tracker.

People are named by e-mail, projects and teams by their short keys ("CHK", "PAY"), issues by their
keys ("CHK-12") and sprints / milestones / time entries by the ids the read tools return. Every
write tool takes the e-mail of the person acting (``actor_email``) and records what it did in the
activity log.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any, Literal

from awm.tooling import Db, ToolError, clean_text, filters, like_any, like_contains, parse_day, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

STATUSES = ("open", "in_progress", "in_review", "done", "cancelled")
RESOLVED = ("done", "cancelled")
PRIORITY_RANK = {"urgent": 0, "high": 1, "medium": 2, "low": 3}
POINT_SCALE = (0, 1, 2, 3, 5, 8, 13)
MAX_DAY_MINUTES = 960  # nobody logs more than 16 hours on one day
MAX_LOG_AGE_DAYS = 60  # time older than this is locked for invoicing
MAX_SPRINT_DAYS = 28

IssueStatus = Literal["open", "in_progress", "in_review", "done", "cancelled"]
Priority = Literal["urgent", "high", "medium", "low"]
IssueType = Literal["bug", "feature", "task", "chore"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _date(value: str, what: str) -> date:
    return parse_day(value, what, "2026-03-02")


def _offset(offset: int) -> None:
    if offset < 0:
        raise ToolError(f"offset must be 0 or more (got {offset})")


def _like(text: str | None) -> str | None:
    """A LIKE pattern for an optional search text (None when the agent gave no words)."""
    return like_contains(text.strip()) if text and text.strip() else None


def _user(db: Db, email: str, what: str = "user") -> dict[str, Any]:
    return db.one("SELECT u.*, o.name AS org_name FROM users u JOIN organizations o ON o.id = u.org_id "
                  "WHERE lower(u.email) = lower(?)", (email.strip(),),
                  missing=f"No {what} with e-mail {email!r}. Use find_users to look people up by name.")


def _active_user(db: Db, email: str, what: str = "user") -> dict[str, Any]:
    u = _user(db, email, what)
    if not u["is_active"]:
        raise ToolError(f"{u['full_name']} ({u['email']}) is deactivated and cannot do this; choose an active person.")
    return u


def _team(db: Db, team_key: str) -> dict[str, Any]:
    return db.one("SELECT t.*, o.name AS org_name FROM teams t JOIN organizations o ON o.id = t.org_id "
                  "WHERE upper(t.key) = upper(?)", (team_key.strip(),),
                  missing=f"No team with key {team_key!r}. Use list_teams to see the team keys.")


def _project(db: Db, project_key: str) -> dict[str, Any]:
    return db.one("SELECT p.*, t.key AS team_key, t.name AS team_name, t.org_id AS org_id "
                  "FROM projects p JOIN teams t ON t.id = p.team_id WHERE upper(p.key) = upper(?)",
                  (project_key.strip(),),
                  missing=f"No project with key {project_key!r}. Use list_projects to see the project keys.")


_ISSUE_SQL = (
    "SELECT i.*, p.key AS project_key, p.name AS project_name, p.status AS project_status, "
    "p.team_id AS team_id, t.key AS team_key, t.org_id AS org_id "
    "FROM issues i JOIN projects p ON p.id = i.project_id JOIN teams t ON t.id = p.team_id "
    "WHERE upper(i.key) = upper(?)")


def _issue(db: Db, issue_key: str) -> dict[str, Any]:
    return db.one(_ISSUE_SQL, (issue_key.strip(),),
                  missing=f"No issue with key {issue_key!r}. Keys look like 'CHK-12'; use search_issues to find one "
                  "by its title.")


def _sprint(db: Db, sprint_id: int) -> dict[str, Any]:
    return db.one("SELECT s.*, t.key AS team_key, t.name AS team_name, t.org_id AS org_id "
                  "FROM sprints s JOIN teams t ON t.id = s.team_id WHERE s.id = ?", (sprint_id,),
                  missing=f"No sprint with id {sprint_id}. Use list_sprints with the team key to find sprint ids.")


def _is_member(db: Db, team_id: int, user_id: int) -> bool:
    return db.value("SELECT 1 FROM team_members WHERE team_id = ? AND user_id = ?", (team_id, user_id)) is not None


def _is_lead(db: Db, team_id: int, user_id: int) -> bool:
    return db.value("SELECT 1 FROM team_members WHERE team_id = ? AND user_id = ? AND team_role = 'lead'",
                    (team_id, user_id)) is not None


def _team_name(db: Db, team_id: int) -> str:
    return db.value("SELECT name FROM teams WHERE id = ?", (team_id,))


def _editor(db: Db, actor_email: str, team_id: int, org_id: int) -> dict[str, Any]:
    """The acting user, who must be an active non-viewer member of the team (or an org admin)."""
    actor = _active_user(db, actor_email, "acting user")
    if actor["org_id"] != org_id:
        raise ToolError(f"{actor['full_name']} belongs to {actor['org_name']} and cannot change another "
                        "organisation's work.")
    if actor["org_role"] == "viewer":
        raise ToolError(f"{actor['full_name']} has a viewer account: viewers may only comment and watch issues. "
                        "Ask a team member to make this change.")
    if actor["org_role"] != "admin" and not _is_member(db, team_id, actor["id"]):
        raise ToolError(f"{actor['full_name']} is not on the {_team_name(db, team_id)} team; only its members "
                        "or an organisation admin can change its work.")
    return actor


def _org_member(db: Db, email: str, issue: dict[str, Any], what: str = "acting user") -> dict[str, Any]:
    """The active person acting on ``issue``, who must belong to the organisation that owns it."""
    u = _active_user(db, email, what)
    if u["org_id"] != issue["org_id"]:
        raise ToolError(f"{u['full_name']} is not in the organisation that owns {issue['key']}.")
    return u


def _editable_issue(db: Db, issue_key: str, actor_email: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """An issue of a project that is not archived, and the acting person, who must be allowed to edit it."""
    i = _issue(db, issue_key)
    _writable(i)
    return i, _editor(db, actor_email, i["team_id"], i["org_id"])


def _lead_or_admin(db: Db, actor_email: str, team_id: int, org_id: int, what: str) -> dict[str, Any]:
    actor = _editor(db, actor_email, team_id, org_id)
    if actor["org_role"] != "admin" and not _is_lead(db, team_id, actor["id"]):
        lead = db.value("SELECT u.full_name FROM team_members tm JOIN users u ON u.id = tm.user_id "
                        "WHERE tm.team_id = ? AND tm.team_role = 'lead'", (team_id,))
        raise ToolError(f"Only the team lead ({lead}) or an organisation admin can {what}.")
    return actor


def _writable(issue_or_project: dict[str, Any]) -> None:
    status = issue_or_project.get("project_status", issue_or_project.get("status"))
    key = issue_or_project.get("project_key", issue_or_project.get("key"))
    if status == "archived":
        raise ToolError(f"Project {key} is archived and read-only.")


def _unresolved(issue: dict[str, Any]) -> None:
    if issue["status"] in RESOLVED:
        raise ToolError(f"{issue['key']} is {issue['status']}; reopen it with transition_issue(to_status='open') "
                        "before changing it.")


def _log(db: Db, actor_id: int, action: str, *, issue_id: int | None = None, sprint_id: int | None = None,
         project_id: int | None = None, field: str | None = None, old: Any = None, new: Any = None) -> None:
    db.insert("activity_log", {
        "issue_id": issue_id, "sprint_id": sprint_id, "project_id": project_id, "actor_id": actor_id,
        "action": action, "field": field,
        "old_value": None if old is None else str(old), "new_value": None if new is None else str(new),
        "created_at": _now(db)})


def _touch(db: Db, issue_id: int) -> None:
    db.execute("UPDATE issues SET updated_at = ? WHERE id = ?", (_now(db), issue_id))


def _active_count(db: Db, user_id: int) -> int:
    return db.value("SELECT COUNT(*) FROM issues WHERE assignee_id = ? "
                    "AND status IN ('open', 'in_progress', 'in_review')", (user_id,))


def _blockers(db: Db, issue_id: int, unresolved_only: bool) -> list[dict[str, Any]]:
    rows = db.query("SELECT b.key, b.title, b.status FROM issue_dependencies d JOIN issues b ON b.id = d.blocker_id "
                    "WHERE d.blocked_id = ? ORDER BY b.project_id, b.number", (issue_id,))
    if unresolved_only:
        rows = [r for r in rows if r["status"] not in RESOLVED]
    return rows


def _committed(db: Db, sprint_id: int) -> int:
    return db.value("SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE sprint_id = ? AND status <> 'cancelled'",
                    (sprint_id,))


def _watch(db: Db, issue_id: int, user_id: int) -> bool:
    if db.value("SELECT 1 FROM watchers WHERE issue_id = ? AND user_id = ?", (issue_id, user_id)) is not None:
        return False
    db.insert("watchers", {"issue_id": issue_id, "user_id": user_id, "added_at": _now(db)})
    return True


def _check_assignable(db: Db, issue: dict[str, Any], assignee: dict[str, Any]) -> None:
    if not assignee["is_active"]:
        raise ToolError(f"{assignee['full_name']} is deactivated and cannot be assigned work.")
    if not _is_member(db, issue["team_id"], assignee["id"]):
        members = db.query("SELECT u.full_name FROM team_members tm JOIN users u ON u.id = tm.user_id "
                           "WHERE tm.team_id = ? AND u.is_active = 1 ORDER BY u.full_name", (issue["team_id"],))
        raise ToolError(f"{assignee['full_name']} is not on the {_team_name(db, issue['team_id'])} team, which owns "
                        f"{issue.get('project_key', '')}. Assign one of its members instead: "
                        + ", ".join(m["full_name"] for m in members) + ".")
    active = _active_count(db, assignee["id"])
    if active >= assignee["max_active_issues"]:
        raise ToolError(f"{assignee['full_name']} already has {active} active issues, their limit of "
                        f"{assignee['max_active_issues']}. Choose someone else (get_team_workload shows who has "
                        "room) or free up one of their issues first.")


def _points(value: int | None) -> None:
    if value is not None and value not in POINT_SCALE:
        raise ToolError(f"story_points must be one of {', '.join(map(str, POINT_SCALE))} (got {value}).")


def _due_date(db: Db, value: str) -> str:
    """A due date the agent gives: YYYY-MM-DD, today or later (ISO text)."""
    d = _date(value, "due_date")
    if d < db.today():
        raise ToolError(f"due_date {d.isoformat()} is in the past; today is {db.today().isoformat()}.")
    return d.isoformat()


def _label(db: Db, project_id: int, project_key: str, name: str) -> dict[str, Any]:
    """One of a project's labels by name (any case), or a refusal listing the labels it has."""
    lab = db.one("SELECT id, name FROM labels WHERE project_id = ? AND lower(name) = lower(?)",
                 (project_id, name.strip()))
    if lab is None:
        names = [r["name"] for r in db.query("SELECT name FROM labels WHERE project_id = ? ORDER BY name",
                                             (project_id,))]
        raise ToolError(f"{project_key} has no label {name!r}. Its labels are: {', '.join(names)} "
                        "(create_label adds a new one).")
    return lab


_TIME_FROM = "FROM time_logs tl JOIN issues i ON i.id = tl.issue_id JOIN users u ON u.id = tl.user_id "


def _time_totals(db: Db, select: str, where: str, params: Any) -> dict[str, Any]:
    """Totals over the time entries ``where`` picks (``select`` may add columns first): minutes, billable
    minutes, billable cost in cents, and hours."""
    tot = db.one(select + "COALESCE(SUM(tl.minutes), 0) AS minutes, "
                 "COALESCE(SUM(CASE WHEN tl.billable = 1 THEN tl.minutes ELSE 0 END), 0) AS billable_minutes, "
                 "COALESCE(SUM(CASE WHEN tl.billable = 1 THEN tl.minutes * tl.rate_cents / 60 ELSE 0 END), 0) "
                 "AS billable_cost_cents " + where, params)
    tot["hours"] = round(tot["minutes"] / 60, 2)
    return tot


def _billable_cost(db: Db, project_id: int) -> int:
    """The cost in cents of all billable time logged on a project's issues."""
    return db.value("SELECT COALESCE(SUM(tl.minutes * tl.rate_cents / 60), 0) FROM time_logs tl "
                    "JOIN issues i ON i.id = tl.issue_id WHERE i.project_id = ? AND tl.billable = 1", (project_id,))


def _issue_row(r: dict[str, Any]) -> dict[str, Any]:
    return {"key": r["key"], "title": r["title"], "type": r["issue_type"], "status": r["status"],
            "priority": r["priority"], "assignee": r.get("assignee_name"), "story_points": r["story_points"],
            "sprint": r.get("sprint_name"), "due_date": r["due_date"]}


# ----------------------------------------------------------------------------------------------
# read tools: organisation, teams, people
# ----------------------------------------------------------------------------------------------

@tool
def list_teams(db: Db) -> list[dict]:
    """List every team with its key, organisation, lead, member count and project keys."""
    teams = db.query("SELECT t.id, t.key, t.name, o.name AS organization, t.description FROM teams t "
                     "JOIN organizations o ON o.id = t.org_id ORDER BY o.id, t.name")
    out = []
    for t in teams:
        lead = db.value("SELECT u.full_name FROM team_members tm JOIN users u ON u.id = tm.user_id "
                        "WHERE tm.team_id = ? AND tm.team_role = 'lead'", (t["id"],))
        members = db.value("SELECT COUNT(*) FROM team_members tm JOIN users u ON u.id = tm.user_id "
                           "WHERE tm.team_id = ? AND u.is_active = 1", (t["id"],))
        projects = [r["key"] for r in db.query("SELECT key FROM projects WHERE team_id = ? ORDER BY key", (t["id"],))]
        out.append({"key": t["key"], "name": t["name"], "organization": t["organization"],
                    "description": t["description"], "lead": lead, "active_members": members, "projects": projects})
    return out


@tool
def get_team(db: Db, team_key: str) -> dict:
    """Show one team: its members (name, e-mail, team role, job title), projects and sprints in play.

    Args:
        team_key: the team's key, e.g. "PAY" (list_teams shows them).
    """
    t = _team(db, team_key)
    members = db.query(
        "SELECT u.full_name AS name, u.email, tm.team_role AS team_role, u.job_title, u.org_role, "
        "u.is_active AS active FROM team_members tm JOIN users u ON u.id = tm.user_id WHERE tm.team_id = ? "
        "ORDER BY tm.team_role, u.full_name", (t["id"],))
    for m in members:
        m["active"] = bool(m["active"])
    projects = db.query("SELECT key, name, status FROM projects WHERE team_id = ? ORDER BY key", (t["id"],))
    sprints = db.query("SELECT id, name, status, start_date, end_date FROM sprints WHERE team_id = ? "
                       "AND status IN ('active', 'planned') ORDER BY start_date", (t["id"],))
    return {"key": t["key"], "name": t["name"], "organization": t["org_name"], "description": t["description"],
            "members": members, "projects": projects, "open_sprints": sprints}


@tool
def find_users(db: Db, query: str | None = None, team_key: str | None = None, include_inactive: bool = False,
               limit: int = 20) -> dict:
    """Find people by part of their name, e-mail or job title, optionally only members of one team.

    Args:
        query: words to look for in the name, e-mail or job title, e.g. "dana" or "QA". Omit to list everyone.
        team_key: only members of this team, e.g. "MOB".
        include_inactive: also list deactivated accounts (default false).
        limit: maximum number of people to return, 1 to 50.
    """
    _limit(limit)
    team_id = _team(db, team_key)["id"] if team_key else None
    who, words = like_any(query, "u.full_name", "u.email", "u.job_title", optional=True)
    rows = db.query(
        "SELECT u.full_name AS name, u.email, u.job_title, u.org_role, o.name AS organization, u.is_active AS active "
        f"FROM users u JOIN organizations o ON o.id = u.org_id WHERE {who} "
        "AND (? IS NULL OR EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = ? AND tm.user_id = u.id)) "
        "AND (? = 1 OR u.is_active = 1) ORDER BY u.full_name LIMIT ?",
        (*words, team_id, team_id, 1 if include_inactive else 0, limit))
    for r in rows:
        r["active"] = bool(r["active"])
    return {"count": len(rows), "users": rows}


@tool
def get_user(db: Db, email: str) -> dict:
    """Show a person's profile: organisation, role, teams, hourly rate, workload and assigned active issues.

    Args:
        email: the person's e-mail address, e.g. "dana.whitfield@halcyon.io".
    """
    u = _user(db, email)
    teams = db.query("SELECT t.key, t.name, tm.team_role AS role FROM team_members tm "
                     "JOIN teams t ON t.id = tm.team_id "
                     "WHERE tm.user_id = ? ORDER BY t.name", (u["id"],))
    active = db.query(
        "SELECT i.key, i.title, i.issue_type, i.status, i.priority, i.story_points, i.due_date, i.project_id, "
        "s.name AS sprint_name, NULL AS assignee_name FROM issues i LEFT JOIN sprints s ON s.id = i.sprint_id "
        "WHERE i.assignee_id = ? AND i.status IN ('open', 'in_progress', 'in_review') "
        "ORDER BY i.project_id, i.number LIMIT 30", (u["id"],))
    issues = []
    for r in active:
        row = _issue_row(r)
        row.pop("assignee")
        issues.append(row)
    return {"name": u["full_name"], "email": u["email"], "organization": u["org_name"], "org_role": u["org_role"],
            "job_title": u["job_title"], "timezone": u["timezone"], "active": bool(u["is_active"]),
            "hourly_rate_cents": u["hourly_rate_cents"], "teams": teams,
            "active_issue_count": _active_count(db, u["id"]), "max_active_issues": u["max_active_issues"],
            "active_issues": issues}


@tool
def get_team_workload(db: Db, team_key: str) -> dict:
    """Per active team member: active issues (open, in progress, in review) against their limit, and the
    unfinished story points they hold in the team's current (active) sprint.

    Args:
        team_key: the team's key, e.g. "MOB".
    """
    t = _team(db, team_key)
    sprint = db.one("SELECT id, name, start_date, end_date FROM sprints WHERE team_id = ? AND status = 'active'",
                    (t["id"],))
    rows = db.query(
        "SELECT u.id, u.full_name AS name, u.email, tm.team_role, u.max_active_issues FROM team_members tm "
        "JOIN users u ON u.id = tm.user_id WHERE tm.team_id = ? AND u.is_active = 1 ORDER BY u.full_name",
        (t["id"],))
    out = []
    for r in rows:
        active = _active_count(db, r["id"])
        remaining = 0
        if sprint:
            remaining = db.value("SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE sprint_id = ? "
                                 "AND assignee_id = ? AND status IN ('open', 'in_progress', 'in_review')",
                                 (sprint["id"], r["id"]))
        out.append({"name": r["name"], "email": r["email"], "team_role": r["team_role"],
                    "active_issues": active, "max_active_issues": r["max_active_issues"],
                    "room_for": max(0, r["max_active_issues"] - active),
                    "unfinished_points_in_active_sprint": remaining})
    return {"team": t["key"], "active_sprint": sprint and {"id": sprint["id"], "name": sprint["name"]},
            "members": out}


# ----------------------------------------------------------------------------------------------
# read tools: projects, milestones, labels, workflow
# ----------------------------------------------------------------------------------------------

@tool
def list_projects(db: Db, team_key: str | None = None,
                  status: Literal["active", "on_hold", "archived"] | None = None) -> list[dict]:
    """List projects with their key, team, status, lead and count of unresolved issues.

    Args:
        team_key: only projects of this team, e.g. "PLT".
        status: only projects in this status.
    """
    team_id = _team(db, team_key)["id"] if team_key else None
    return db.query(
        "SELECT p.key, p.name, t.key AS team, p.status, u.full_name AS lead, p.target_date, "
        "(SELECT COUNT(*) FROM issues i WHERE i.project_id = p.id AND i.status NOT IN ('done', 'cancelled')) "
        "AS unresolved_issues FROM projects p JOIN teams t ON t.id = p.team_id JOIN users u ON u.id = p.lead_id "
        "WHERE (? IS NULL OR p.team_id = ?) AND (? IS NULL OR p.status = ?) ORDER BY t.org_id, p.key",
        (team_id, team_id, status, status))


@tool
def get_project(db: Db, project_key: str) -> dict:
    """Show a project: description, team, lead, dates, budget and money spent on logged time, issue counts by
    status and its milestones.

    Args:
        project_key: the project's key, e.g. "CHK".
    """
    p = _project(db, project_key)
    counts = {r["status"]: r["n"] for r in db.query(
        "SELECT status, COUNT(*) AS n FROM issues WHERE project_id = ? GROUP BY status", (p["id"],))}
    spent = _billable_cost(db, p["id"])
    milestones = db.query("SELECT id, name, due_date, status FROM milestones WHERE project_id = ? ORDER BY due_date",
                          (p["id"],))
    lead = db.one("SELECT full_name, email FROM users WHERE id = ?", (p["lead_id"],))
    return {"key": p["key"], "name": p["name"], "description": p["description"], "team": p["team_key"],
            "status": p["status"], "lead": lead["full_name"], "lead_email": lead["email"],
            "start_date": p["start_date"], "target_date": p["target_date"], "budget_cents": p["budget_cents"],
            "billable_cost_cents": spent, "issue_counts": {s: counts.get(s, 0) for s in STATUSES},
            "milestones": milestones}


@tool
def list_milestones(db: Db, project_key: str) -> list[dict]:
    """List a project's milestones with due date, status and progress (issues and story points done).

    Args:
        project_key: the project's key, e.g. "BIL".
    """
    p = _project(db, project_key)
    rows = db.query(
        "SELECT m.id, m.name, m.due_date, m.status, COUNT(i.id) AS issues, "
        "SUM(CASE WHEN i.status = 'done' THEN 1 ELSE 0 END) AS done_issues, "
        "SUM(CASE WHEN i.status NOT IN ('done', 'cancelled') THEN 1 ELSE 0 END) AS unresolved_issues "
        "FROM milestones m LEFT JOIN issues i ON i.milestone_id = m.id WHERE m.project_id = ? "
        "GROUP BY m.id ORDER BY m.due_date", (p["id"],))
    for r in rows:
        r["done_issues"] = r["done_issues"] or 0
        r["unresolved_issues"] = r["unresolved_issues"] or 0
    return rows


@tool
def get_milestone(db: Db, milestone_id: int) -> dict:
    """Show a milestone's progress: issues by status, story points done vs. planned, days left, and its
    unresolved issues.

    Args:
        milestone_id: the milestone id (list_milestones or get_project show them).
    """
    m = db.one("SELECT m.*, p.key AS project_key FROM milestones m JOIN projects p ON p.id = m.project_id "
               "WHERE m.id = ?", (milestone_id,),
               missing=f"No milestone with id {milestone_id}. Use list_milestones with the project key.")
    total = db.value("SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE milestone_id = ? "
                     "AND status <> 'cancelled'", (milestone_id,))
    done = db.value("SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE milestone_id = ? AND status = 'done'",
                    (milestone_id,))
    open_rows = db.query(
        "SELECT i.key, i.title, i.issue_type, i.status, i.priority, i.story_points, i.due_date, "
        "u.full_name AS assignee_name, s.name AS sprint_name FROM issues i LEFT JOIN users u ON u.id = i.assignee_id "
        "LEFT JOIN sprints s ON s.id = i.sprint_id WHERE i.milestone_id = ? "
        "AND i.status NOT IN ('done', 'cancelled') ORDER BY i.number LIMIT 30", (milestone_id,))
    days_left = (_date(m["due_date"], "due_date") - db.today()).days
    return {"id": m["id"], "project": m["project_key"], "name": m["name"], "description": m["description"],
            "due_date": m["due_date"], "status": m["status"], "days_left": days_left,
            "points_planned": total, "points_done": done,
            "percent_done": round(100.0 * done / total, 1) if total else 0.0,
            "unresolved_issues": [_issue_row(r) for r in open_rows]}


@tool
def list_labels(db: Db, project_key: str) -> list[dict]:
    """List the labels defined in a project, with how many issues carry each.

    Args:
        project_key: the project's key, e.g. "APP".
    """
    p = _project(db, project_key)
    return db.query("SELECT l.name, l.color, COUNT(il.id) AS issues FROM labels l "
                    "LEFT JOIN issue_labels il ON il.label_id = l.id WHERE l.project_id = ? "
                    "GROUP BY l.id ORDER BY l.name", (p["id"],))


@tool
def get_workflow(db: Db) -> list[dict]:
    """The issue workflow: every allowed status change and what it requires (an assignee, no unfinished
    blocking issues, a reviewer other than the assignee)."""
    rows = db.query("SELECT from_status, to_status, name, requires_assignee, requires_unblocked, requires_reviewer "
                    "FROM workflow_transitions ORDER BY id")
    for r in rows:
        for k in ("requires_assignee", "requires_unblocked", "requires_reviewer"):
            r[k] = bool(r[k])
    return rows


# ----------------------------------------------------------------------------------------------
# read tools: issues
# ----------------------------------------------------------------------------------------------

_SEARCH_SQL = (
    "SELECT i.key, i.title, i.issue_type, i.status, i.priority, i.story_points, i.due_date, i.project_id, "
    "i.number, i.updated_at, u.full_name AS assignee_name, s.name AS sprint_name, COUNT(*) OVER () AS total "
    "FROM issues i JOIN projects p ON p.id = i.project_id LEFT JOIN users u ON u.id = i.assignee_id "
    "LEFT JOIN users r ON r.id = i.reporter_id LEFT JOIN sprints s ON s.id = i.sprint_id "
    "WHERE (? IS NULL OR p.key = ?) AND (? IS NULL OR p.team_id = ?) "
    "AND (? IS NULL OR i.status = ? OR (? = 'unresolved' AND i.status NOT IN ('done', 'cancelled')) "
    "     OR (? = 'resolved' AND i.status IN ('done', 'cancelled'))) "
    "AND (? IS NULL OR i.priority = ?) AND (? IS NULL OR i.issue_type = ?) "
    "AND (? IS NULL OR lower(u.email) = ?) AND (? IS NULL OR lower(r.email) = ?) AND (? = 0 OR i.assignee_id IS NULL) "
    "AND (? IS NULL OR i.sprint_id = ?) AND (? = 0 OR i.sprint_id IS NULL) AND (? IS NULL OR i.milestone_id = ?) "
    "AND (? IS NULL OR EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id "
    "     WHERE il.issue_id = i.id AND lower(l.name) = ?)) "
    "AND (? IS NULL OR i.title LIKE ? ESCAPE '\\' OR i.description LIKE ? ESCAPE '\\' OR i.key = upper(?)) "
    "AND (? IS NULL OR (i.due_date IS NOT NULL AND i.due_date <= ?)) ")
_SEARCH_ORDER = {
    "priority": "ORDER BY CASE i.priority WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END, "
                "i.project_id, i.number LIMIT ? OFFSET ?",
    "key": "ORDER BY p.key, i.number LIMIT ? OFFSET ?",
    "due_date": "ORDER BY i.due_date IS NULL, i.due_date, i.project_id, i.number LIMIT ? OFFSET ?",
    "updated": "ORDER BY i.updated_at DESC, i.project_id, i.number LIMIT ? OFFSET ?",
}


@tool
def search_issues(db: Db, project_key: str | None = None, team_key: str | None = None,
                  status: Literal["open", "in_progress", "in_review", "done", "cancelled", "unresolved",
                                  "resolved"] | None = None,
                  priority: Priority | None = None, issue_type: IssueType | None = None,
                  assignee_email: str | None = None, reporter_email: str | None = None,
                  unassigned: bool = False, sprint_id: int | None = None, backlog_only: bool = False,
                  milestone_id: int | None = None, label: str | None = None, text: str | None = None,
                  due_before: str | None = None,
                  sort_by: Literal["priority", "key", "due_date", "updated"] = "priority",
                  limit: int = 20, offset: int = 0) -> dict:
    """Search issues with any combination of filters; returns the total number of matches and one page.

    Args:
        project_key: only this project, e.g. "CHK".
        team_key: only projects of this team, e.g. "PAY".
        status: one status, or "unresolved" (open, in_progress, in_review) or "resolved" (done, cancelled).
        priority: only this priority.
        issue_type: only this type.
        assignee_email: only issues assigned to this person.
        reporter_email: only issues reported by this person.
        unassigned: only issues nobody is assigned to.
        sprint_id: only issues in this sprint (list_sprints shows ids).
        backlog_only: only issues that are in no sprint.
        milestone_id: only issues of this milestone.
        label: only issues carrying this label name, e.g. "bug".
        text: words to look for in the title or description (or an exact issue key).
        due_before: only issues due on or before this date (YYYY-MM-DD).
        sort_by: "priority" (default, most urgent first), "key", "due_date" (soonest first) or "updated" (latest first).
        limit: page size, 1 to 50.
        offset: number of matches to skip, for paging.
    """
    _limit(limit)
    _offset(offset)
    team_id = _team(db, team_key)["id"] if team_key else None
    pkey = _project(db, project_key)["key"] if project_key else None
    a_email = _user(db, assignee_email, "assignee")["email"].lower() if assignee_email else None
    r_email = _user(db, reporter_email, "reporter")["email"].lower() if reporter_email else None
    if sprint_id is not None:
        _sprint(db, sprint_id)
    if due_before is not None:
        due_before = _date(due_before, "due_before").isoformat()
    like = _like(text)
    exact = text.strip() if like else None
    lab = label.strip().lower() if label and label.strip() else None
    st = status if status in STATUSES else None
    special = status if status in ("unresolved", "resolved") else None
    any_status = status
    rows = db.query(_SEARCH_SQL + _SEARCH_ORDER[sort_by], (
        pkey, pkey, team_id, team_id, any_status, st, special, special, priority, priority, issue_type, issue_type,
        a_email, a_email, r_email, r_email, 1 if unassigned else 0, sprint_id, sprint_id, 1 if backlog_only else 0,
        milestone_id, milestone_id, lab, lab, like, like, like, exact, due_before, due_before, limit, offset))
    total = rows[0]["total"] if rows else 0
    return {"total_matches": total, "returned": len(rows), "offset": offset,
            "issues": [_issue_row(r) for r in rows]}


@tool
def get_issue(db: Db, issue_key: str) -> dict:
    """Everything about one issue: fields, people, sprint, milestone, labels, watchers, dependencies (what blocks
    it and what it blocks), time logged, the latest comments and the status changes allowed from here.

    Args:
        issue_key: the issue key, e.g. "CHK-12".
    """
    i = _issue(db, issue_key)
    rep = db.one("SELECT full_name, email FROM users WHERE id = ?", (i["reporter_id"],))
    asg = db.one("SELECT full_name, email FROM users WHERE id = ?", (i["assignee_id"],)) if i["assignee_id"] else None
    sprint = db.one("SELECT id, name, status FROM sprints WHERE id = ?", (i["sprint_id"],)) if i["sprint_id"] else None
    ms = db.one("SELECT id, name, due_date, status FROM milestones WHERE id = ?",
                (i["milestone_id"],)) if i["milestone_id"] else None
    labels = [r["name"] for r in db.query("SELECT l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id "
                                          "WHERE il.issue_id = ? ORDER BY l.name", (i["id"],))]
    watchers = [r["full_name"] for r in db.query("SELECT u.full_name FROM watchers w JOIN users u ON u.id = w.user_id "
                                                 "WHERE w.issue_id = ? ORDER BY u.full_name", (i["id"],))]
    blocked_by = _blockers(db, i["id"], unresolved_only=False)
    blocks = db.query("SELECT b.key, b.title, b.status FROM issue_dependencies d JOIN issues b ON b.id = d.blocked_id "
                      "WHERE d.blocker_id = ? ORDER BY b.project_id, b.number", (i["id"],))
    logged = db.one("SELECT COALESCE(SUM(minutes), 0) AS minutes, COUNT(*) AS entries FROM time_logs "
                    "WHERE issue_id = ?", (i["id"],))
    comments = db.query("SELECT c.id, u.full_name AS author, c.body, c.created_at FROM comments c "
                        "JOIN users u ON u.id = c.author_id WHERE c.issue_id = ? ORDER BY c.created_at DESC, c.id DESC "
                        "LIMIT 3", (i["id"],))
    n_comments = db.value("SELECT COUNT(*) FROM comments WHERE issue_id = ?", (i["id"],))
    moves = [r["to_status"] for r in db.query("SELECT to_status FROM workflow_transitions WHERE from_status = ? "
                                               "ORDER BY id", (i["status"],))]
    return {
        "key": i["key"], "title": i["title"], "description": i["description"], "type": i["issue_type"],
        "status": i["status"], "priority": i["priority"], "project": i["project_key"], "team": i["team_key"],
        "reporter": rep["full_name"], "reporter_email": rep["email"],
        "assignee": asg["full_name"] if asg else None, "assignee_email": asg["email"] if asg else None,
        "sprint": sprint, "milestone": ms, "story_points": i["story_points"], "due_date": i["due_date"],
        "labels": labels, "watchers": watchers, "blocked_by": blocked_by, "blocks": blocks,
        "is_blocked": any(b["status"] not in RESOLVED for b in blocked_by),
        "time_logged_minutes": logged["minutes"], "time_entries": logged["entries"],
        "comment_count": n_comments, "latest_comments": comments,
        "created_at": i["created_at"], "updated_at": i["updated_at"], "resolved_at": i["resolved_at"],
        "allowed_next_statuses": moves,
    }


@tool
def list_comments(db: Db, issue_key: str, limit: int = 20, offset: int = 0) -> dict:
    """List the comments on an issue, oldest first.

    Args:
        issue_key: the issue key, e.g. "APP-3".
        limit: page size, 1 to 50.
        offset: number of comments to skip.
    """
    _limit(limit)
    _offset(offset)
    i = _issue(db, issue_key)
    rows = db.query("SELECT c.id, u.full_name AS author, u.email AS author_email, c.body, c.created_at "
                    "FROM comments c JOIN users u ON u.id = c.author_id WHERE c.issue_id = ? "
                    "ORDER BY c.created_at, c.id LIMIT ? OFFSET ?", (i["id"], limit, offset))
    total = db.value("SELECT COUNT(*) FROM comments WHERE issue_id = ?", (i["id"],))
    return {"issue": i["key"], "total": total, "comments": rows}


@tool
def list_dependencies(db: Db, issue_key: str, transitive: bool = False) -> dict:
    """Show what an issue waits for (its blockers) and what waits for it. With transitive=true, follows the
    chain of blockers all the way up (blockers of blockers).

    Args:
        issue_key: the issue key, e.g. "KUB-8".
        transitive: also list indirect blockers, each with its distance (1 = direct).
    """
    i = _issue(db, issue_key)
    blocks = db.query("SELECT b.key, b.title, b.status FROM issue_dependencies d JOIN issues b ON b.id = d.blocked_id "
                      "WHERE d.blocker_id = ? ORDER BY b.project_id, b.number", (i["id"],))
    if not transitive:
        blocked_by = _blockers(db, i["id"], unresolved_only=False)
        for b in blocked_by:
            b["depth"] = 1
    else:
        blocked_by = []
        seen = {i["id"]}
        frontier = [(i["id"], 0)]
        while frontier and len(blocked_by) < 50:
            current, depth = frontier.pop(0)
            for r in db.query("SELECT b.id, b.key, b.title, b.status FROM issue_dependencies d "
                              "JOIN issues b ON b.id = d.blocker_id WHERE d.blocked_id = ? "
                              "ORDER BY b.project_id, b.number", (current,)):
                if r["id"] in seen:
                    continue
                seen.add(r["id"])
                frontier.append((r["id"], depth + 1))
                blocked_by.append({"key": r["key"], "title": r["title"], "status": r["status"], "depth": depth + 1})
    unfinished = [b["key"] for b in blocked_by if b["status"] not in RESOLVED and b["depth"] == 1]
    return {"issue": i["key"], "status": i["status"], "blocked_by": blocked_by, "blocks": blocks,
            "unfinished_direct_blockers": unfinished, "can_start": not unfinished}


@tool
def get_activity(db: Db, issue_key: str | None = None, sprint_id: int | None = None,
                 project_key: str | None = None, actor_email: str | None = None, limit: int = 20) -> dict:
    """The activity log (who changed what, when), newest first. Give at least one filter.

    Args:
        issue_key: only entries about this issue, e.g. "BIL-7".
        sprint_id: only entries about this sprint (started, closed).
        project_key: only entries about this project's issues or labels.
        actor_email: only entries made by this person.
        limit: maximum entries, 1 to 50.
    """
    _limit(limit)
    if not (issue_key or sprint_id is not None or project_key or actor_email):
        raise ToolError("Give at least one filter: issue_key, sprint_id, project_key or actor_email.")
    iid = _issue(db, issue_key)["id"] if issue_key else None
    if sprint_id is not None:
        _sprint(db, sprint_id)
    pid = _project(db, project_key)["id"] if project_key else None
    aid = _user(db, actor_email)["id"] if actor_email else None
    rows = db.query(
        "SELECT a.id, a.created_at, u.full_name AS actor, a.action, i.key AS issue, s.name AS sprint, a.field, "
        "a.old_value, a.new_value FROM activity_log a JOIN users u ON u.id = a.actor_id "
        "LEFT JOIN issues i ON i.id = a.issue_id LEFT JOIN sprints s ON s.id = a.sprint_id "
        "WHERE (? IS NULL OR a.issue_id = ?) AND (? IS NULL OR a.sprint_id = ?) "
        "AND (? IS NULL OR i.project_id = ? OR a.project_id = ?) AND (? IS NULL OR a.actor_id = ?) "
        "ORDER BY a.created_at DESC, a.id DESC LIMIT ?",
        (iid, iid, sprint_id, sprint_id, pid, pid, pid, aid, aid, limit))
    return {"count": len(rows), "entries": rows}


# ----------------------------------------------------------------------------------------------
# read tools: sprints and time
# ----------------------------------------------------------------------------------------------

@tool
def list_sprints(db: Db, team_key: str, status: Literal["planned", "active", "closed"] | None = None) -> list[dict]:
    """List a team's sprints (id, name, dates, status, capacity and committed story points).

    Args:
        team_key: the team's key, e.g. "PAY".
        status: only sprints in this status.
    """
    t = _team(db, team_key)
    return db.query(
        "SELECT s.id, s.name, s.status, s.start_date, s.end_date, s.capacity_points, "
        "(SELECT COALESCE(SUM(i.story_points), 0) FROM issues i WHERE i.sprint_id = s.id AND i.status <> 'cancelled') "
        "AS committed_points, s.completed_points, s.goal FROM sprints s WHERE s.team_id = ? "
        "AND (? IS NULL OR s.status = ?) ORDER BY s.start_date", (t["id"], status, status))


@tool
def get_sprint(db: Db, sprint_id: int) -> dict:
    """Show a sprint: dates, goal, capacity, committed / done / remaining story points, days left, and its
    issues with status, assignee and points.

    Args:
        sprint_id: the sprint id (list_sprints shows them).
    """
    s = _sprint(db, sprint_id)
    issues = db.query(
        "SELECT i.key, i.title, i.issue_type, i.status, i.priority, i.story_points, i.due_date, "
        "u.full_name AS assignee_name, NULL AS sprint_name FROM issues i LEFT JOIN users u ON u.id = i.assignee_id "
        "WHERE i.sprint_id = ? ORDER BY CASE i.status WHEN 'done' THEN 4 WHEN 'cancelled' THEN 5 "
        "WHEN 'in_review' THEN 1 WHEN 'in_progress' THEN 2 ELSE 3 END, i.project_id, i.number LIMIT 50", (sprint_id,))
    committed = _committed(db, sprint_id)
    done = db.value("SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE sprint_id = ? AND status = 'done'",
                    (sprint_id,))
    rows = []
    for r in issues:
        row = _issue_row(r)
        row.pop("sprint")
        rows.append(row)
    return {"id": s["id"], "name": s["name"], "team": s["team_key"], "status": s["status"], "goal": s["goal"],
            "start_date": s["start_date"], "end_date": s["end_date"],
            "days_left": (_date(s["end_date"], "end_date") - db.today()).days,
            "capacity_points": s["capacity_points"], "committed_points": committed, "done_points": done,
            "remaining_points": committed - done, "free_capacity": s["capacity_points"] - committed,
            "completed_points_at_close": s["completed_points"], "closed_at": s["closed_at"], "issues": rows}


@tool
def list_time_logs(db: Db, issue_key: str | None = None, user_email: str | None = None,
                   project_key: str | None = None, date_from: str | None = None, date_to: str | None = None,
                   billable: bool | None = None, limit: int = 20, offset: int = 0) -> dict:
    """List time entries (newest work date first) with totals over all matching entries, not only this page.
    Give at least one of issue_key, user_email or project_key.

    Args:
        issue_key: only time logged on this issue.
        user_email: only time logged by this person.
        project_key: only time logged on this project's issues.
        date_from: first work date to include (YYYY-MM-DD).
        date_to: last work date to include (YYYY-MM-DD).
        billable: true for billable entries only, false for non-billable only.
        limit: page size, 1 to 50.
        offset: number of entries to skip.
    """
    _limit(limit)
    _offset(offset)
    if not (issue_key or user_email or project_key):
        raise ToolError("Give at least one of issue_key, user_email or project_key.")
    iid = _issue(db, issue_key)["id"] if issue_key else None
    uid = _user(db, user_email)["id"] if user_email else None
    pid = _project(db, project_key)["id"] if project_key else None
    d1 = _date(date_from, "date_from").isoformat() if date_from else None
    d2 = _date(date_to, "date_to").isoformat() if date_to else None
    b = None if billable is None else (1 if billable else 0)
    cond, params = filters(("tl.issue_id = ?", iid), ("tl.user_id = ?", uid), ("i.project_id = ?", pid),
                           ("tl.work_date >= ?", d1), ("tl.work_date <= ?", d2), ("tl.billable = ?", b))
    where = _TIME_FROM + f"WHERE {cond} "
    rows = db.query("SELECT tl.id, i.key AS issue, u.full_name AS user, tl.work_date, tl.minutes, tl.billable, "
                    "tl.note " + where + "ORDER BY tl.work_date DESC, tl.id DESC LIMIT ? OFFSET ?",
                    (*params, limit, offset))
    for r in rows:
        r["billable"] = bool(r["billable"])
    tot = _time_totals(db, "SELECT COUNT(*) AS entries, ", where, params)
    return {"totals": tot, "returned": len(rows), "entries": rows}


@tool
def get_time_report(db: Db, project_key: str, date_from: str | None = None, date_to: str | None = None,
                    group_by: Literal["user", "issue"] = "user") -> dict:
    """Time and cost report for a project: hours, billable hours and billable cost (minutes x the hourly rate
    recorded on each entry) grouped per person or per issue, with totals and the project budget.

    Args:
        project_key: the project's key, e.g. "KUB".
        date_from: first work date to include (YYYY-MM-DD); default: all time.
        date_to: last work date to include (YYYY-MM-DD); default: all time.
        group_by: "user" (default) or "issue".
    """
    p = _project(db, project_key)
    d1 = _date(date_from, "date_from").isoformat() if date_from else None
    d2 = _date(date_to, "date_to").isoformat() if date_to else None
    if d1 and d2 and d1 > d2:
        raise ToolError("date_from is after date_to; swap them.")
    agg = ("SUM(tl.minutes) AS minutes, SUM(CASE WHEN tl.billable = 1 THEN tl.minutes ELSE 0 END) AS billable_minutes, "
           "SUM(CASE WHEN tl.billable = 1 THEN tl.minutes * tl.rate_cents / 60 ELSE 0 END) AS billable_cost_cents ")
    where = _TIME_FROM + ("WHERE i.project_id = ? AND (? IS NULL OR tl.work_date >= ?) "
                          "AND (? IS NULL OR tl.work_date <= ?) ")
    params = (p["id"], d1, d1, d2, d2)
    if group_by == "user":
        rows = db.query("SELECT u.full_name AS name, u.email, " + agg + where +
                        "GROUP BY u.id ORDER BY minutes DESC, u.full_name LIMIT 50", params)
    else:
        rows = db.query("SELECT i.key AS issue, i.title, " + agg + where +
                        "GROUP BY i.id ORDER BY minutes DESC, i.number LIMIT 50", params)
    for r in rows:
        r["hours"] = round(r["minutes"] / 60, 2)
    tot = _time_totals(db, "SELECT ", where, params)
    all_time = _billable_cost(db, p["id"])
    return {"project": p["key"], "date_from": d1, "date_to": d2, "group_by": group_by, "rows": rows, "totals": tot,
            "budget_cents": p["budget_cents"], "budget_used_all_time_cents": all_time,
            "budget_remaining_cents": p["budget_cents"] - all_time}


# ----------------------------------------------------------------------------------------------
# write tools: issues
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_issue(db: Db, project_key: str, title: str, issue_type: IssueType, priority: Priority, actor_email: str,
                 description: str = "", assignee_email: str | None = None, story_points: int | None = None,
                 labels: list[str] | None = None, milestone_id: int | None = None,
                 due_date: str | None = None) -> dict:
    """File a new issue in a project. It gets the project's next key (e.g. "BIL-12"), status open, the acting
    person as reporter, and both reporter and assignee as watchers. To put it in a sprint afterwards use
    move_to_sprint.

    Args:
        project_key: the project's key, e.g. "BIL".
        title: a short summary, 5 to 200 characters.
        issue_type: bug, feature, task or chore.
        priority: urgent, high, medium or low.
        actor_email: e-mail of the person filing it (the reporter); must be on the project's team.
        description: longer details.
        assignee_email: assign it straight away to this team member (their workload limit applies).
        story_points: estimate on the 0, 1, 2, 3, 5, 8, 13 scale.
        labels: label names that exist in the project (list_labels shows them), e.g. ["bug", "tax"].
        milestone_id: an open milestone of the same project.
        due_date: due date YYYY-MM-DD, today or later.
    """
    p = _project(db, project_key)
    _writable(p)
    actor = _editor(db, actor_email, p["team_id"], p["org_id"])
    title = clean_text(title, "title", 5, 200)
    dup = db.value("SELECT key FROM issues WHERE project_id = ? AND lower(title) = lower(?) "
                   "AND status NOT IN ('done', 'cancelled')", (p["id"], title))
    if dup:
        raise ToolError(f"{dup} already has this title and is still unresolved; update or comment on it instead "
                        "of filing a duplicate.")
    _points(story_points)
    due = _due_date(db, due_date) if due_date is not None else None
    if milestone_id is not None:
        m = db.one("SELECT id, project_id, name, status FROM milestones WHERE id = ?", (milestone_id,))
        if m is None or m["project_id"] != p["id"]:
            raise ToolError(f"Milestone {milestone_id} is not a milestone of {p['key']}; list_milestones shows them.")
        if m["status"] != "open":
            raise ToolError(f"Milestone '{m['name']}' is closed; pick an open milestone.")
    label_ids = []
    for name in labels or []:
        lid = _label(db, p["id"], p["key"], name)["id"]
        if lid not in label_ids:
            label_ids.append(lid)
    assignee = None
    if assignee_email:
        assignee = _user(db, assignee_email, "assignee")
        _check_assignable(db, {**p, "team_id": p["team_id"], "project_key": p["key"]}, assignee)
    number = p["next_issue_number"]
    key = f"{p['key']}-{number}"
    now = _now(db)
    iid = db.insert("issues", {
        "project_id": p["id"], "number": number, "key": key, "title": title, "description": description.strip(),
        "issue_type": issue_type, "status": "open", "priority": priority, "reporter_id": actor["id"],
        "assignee_id": assignee["id"] if assignee else None, "sprint_id": None, "milestone_id": milestone_id,
        "story_points": story_points, "due_date": due, "created_at": now, "updated_at": now, "resolved_at": None})
    db.execute("UPDATE projects SET next_issue_number = next_issue_number + 1 WHERE id = ?", (p["id"],))
    for lid in label_ids:
        db.insert("issue_labels", {"issue_id": iid, "label_id": lid})
    _watch(db, iid, actor["id"])
    _log(db, actor["id"], "created", issue_id=iid, new=key)
    if assignee:
        _watch(db, iid, assignee["id"])
        _log(db, actor["id"], "assigned", issue_id=iid, field="assignee", new=assignee["email"])
    return {"key": key, "status": "open", "project": p["key"], "assignee": assignee["full_name"] if assignee else None,
            "labels": [db.value("SELECT name FROM labels WHERE id = ?", (lid,)) for lid in label_ids]}


@tool(write=True)
def update_issue(db: Db, issue_key: str, actor_email: str, title: str | None = None, description: str | None = None,
                 priority: Priority | None = None, issue_type: IssueType | None = None,
                 story_points: int | None = None, due_date: str | None = None, clear_due_date: bool = False) -> dict:
    """Change an unresolved issue's fields. Only the fields you pass change; each change is logged. Raising the
    story points of an issue in a planned or active sprint must still fit the sprint's capacity.

    Args:
        issue_key: the issue key, e.g. "CHK-9".
        actor_email: e-mail of the person making the change (a member of the project's team).
        title: new title, 5 to 200 characters.
        description: new description.
        priority: new priority.
        issue_type: new type.
        story_points: new estimate on the 0, 1, 2, 3, 5, 8, 13 scale.
        due_date: new due date YYYY-MM-DD, today or later.
        clear_due_date: true to remove the due date.
    """
    i, actor = _editable_issue(db, issue_key, actor_email)
    _unresolved(i)
    if due_date is not None and clear_due_date:
        raise ToolError("Pass either due_date or clear_due_date, not both.")
    changes: list[tuple[str, Any, Any]] = []
    if title is not None:
        t = clean_text(title, "title", 5, 200)
        if t != i["title"]:
            changes.append(("title", i["title"], t))
    if description is not None and description.strip() != i["description"]:
        changes.append(("description", i["description"], description.strip()))
    if priority is not None and priority != i["priority"]:
        changes.append(("priority", i["priority"], priority))
    if issue_type is not None and issue_type != i["issue_type"]:
        changes.append(("issue_type", i["issue_type"], issue_type))
    if story_points is not None and story_points != i["story_points"]:
        _points(story_points)
        if i["sprint_id"] is not None:
            s = _sprint(db, i["sprint_id"])
            if s["status"] != "closed":
                new_total = _committed(db, s["id"]) - (i["story_points"] or 0) + story_points
                if new_total > s["capacity_points"]:
                    raise ToolError(f"{s['name']} would hold {new_total} points, over its capacity of "
                                    f"{s['capacity_points']}. Move {i['key']} or another issue out of the sprint "
                                    "first.")
        changes.append(("story_points", i["story_points"], story_points))
    if due_date is not None:
        due = _due_date(db, due_date)
        if due != i["due_date"]:
            changes.append(("due_date", i["due_date"], due))
    if clear_due_date and i["due_date"] is not None:
        changes.append(("due_date", i["due_date"], None))
    if not changes:
        raise ToolError(f"Nothing to change: pass at least one field that differs from {i['key']}'s current values.")
    for field, old, new in changes:  # field: one of the issue columns named above
        db.execute(f"UPDATE issues SET {field} = ? WHERE id = ?", (new, i["id"]))
        _log(db, actor["id"], "field_changed", issue_id=i["id"], field=field, old=old, new=new)
    _touch(db, i["id"])
    return {"key": i["key"], "changed": {f: {"from": o, "to": n} for f, o, n in changes}}


@tool(write=True)
def transition_issue(db: Db, issue_key: str, to_status: IssueStatus, actor_email: str,
                     comment: str | None = None) -> dict:
    """Move an issue through the workflow (get_workflow lists the allowed moves): open -> in_progress ->
    in_review -> done, plus stop progress, request changes, cancel and reopen. Starting or finishing needs an
    assignee and no unfinished blocking issues; approving a review (in_review -> done) must be done by someone
    other than the assignee.

    Args:
        issue_key: the issue key, e.g. "BIL-7".
        to_status: the status to move to.
        actor_email: e-mail of the person making the change (a member of the project's team).
        comment: optional comment to add with the change, e.g. the reason for cancelling.
    """
    i, actor = _editable_issue(db, issue_key, actor_email)
    if to_status == i["status"]:
        raise ToolError(f"{i['key']} is already {to_status}.")
    tr = db.one("SELECT * FROM workflow_transitions WHERE from_status = ? AND to_status = ?", (i["status"], to_status))
    if tr is None:
        allowed = [r["to_status"] for r in db.query("SELECT to_status FROM workflow_transitions WHERE from_status = ? "
                                                     "ORDER BY id", (i["status"],))]
        raise ToolError(f"{i['key']} cannot go from {i['status']} to {to_status}. From {i['status']} it can go to: "
                        f"{', '.join(allowed)}.")
    if tr["requires_assignee"] and i["assignee_id"] is None:
        raise ToolError(f"{i['key']} has no assignee; assign it with assign_issue before moving it to {to_status}.")
    if tr["requires_unblocked"]:
        open_blockers = _blockers(db, i["id"], unresolved_only=True)
        if open_blockers:
            raise ToolError(f"{i['key']} is blocked by unfinished issues: "
                            + ", ".join(f"{b['key']} ({b['status']})" for b in open_blockers)
                            + ". Finish or cancel them first, or remove the dependency with remove_dependency.")
    if tr["requires_reviewer"] and i["assignee_id"] == actor["id"]:
        raise ToolError(f"{actor['full_name']} is the assignee of {i['key']} and cannot approve their own work; "
                        "another member of the team must make this transition.")
    now = _now(db)
    resolved_at = now if to_status in RESOLVED else None
    db.execute("UPDATE issues SET status = ?, resolved_at = ?, updated_at = ? WHERE id = ?",
               (to_status, resolved_at, now, i["id"]))
    _log(db, actor["id"], "status_changed", issue_id=i["id"], field="status", old=i["status"], new=to_status)
    if comment and comment.strip():
        db.insert("comments", {"issue_id": i["id"], "author_id": actor["id"], "body": comment.strip()[:4000],
                               "created_at": now})
        _log(db, actor["id"], "commented", issue_id=i["id"])
    result: dict[str, Any] = {"key": i["key"], "from": i["status"], "to": to_status, "transition": tr["name"]}
    if to_status in RESOLVED:
        freed = db.query("SELECT b.id, b.key FROM issue_dependencies d JOIN issues b ON b.id = d.blocked_id "
                         "WHERE d.blocker_id = ? AND b.status NOT IN ('done', 'cancelled') ORDER BY b.number",
                         (i["id"],))
        result["now_unblocked"] = [f["key"] for f in freed if not _blockers(db, f["id"], unresolved_only=True)]
    return result


@tool(write=True)
def assign_issue(db: Db, issue_key: str, assignee_email: str, actor_email: str) -> dict:
    """Assign (or reassign) an unresolved issue to a member of the project's team. The new assignee must be
    active and below their limit of active issues; they are added as a watcher.

    Args:
        issue_key: the issue key, e.g. "BIL-4".
        assignee_email: e-mail of the person who should do the work.
        actor_email: e-mail of the person making the change (a member of the project's team).
    """
    i, actor = _editable_issue(db, issue_key, actor_email)
    _unresolved(i)
    assignee = _user(db, assignee_email, "assignee")
    if i["assignee_id"] == assignee["id"]:
        raise ToolError(f"{i['key']} is already assigned to {assignee['full_name']}.")
    _check_assignable(db, i, assignee)
    old = db.value("SELECT email FROM users WHERE id = ?", (i["assignee_id"],)) if i["assignee_id"] else None
    db.execute("UPDATE issues SET assignee_id = ?, updated_at = ? WHERE id = ?", (assignee["id"], _now(db), i["id"]))
    _log(db, actor["id"], "assigned", issue_id=i["id"], field="assignee", old=old, new=assignee["email"])
    _watch(db, i["id"], assignee["id"])
    return {"key": i["key"], "assignee": assignee["full_name"], "previous_assignee": old,
            "assignee_active_issues": _active_count(db, assignee["id"]),
            "assignee_limit": assignee["max_active_issues"]}


@tool(write=True)
def unassign_issue(db: Db, issue_key: str, actor_email: str) -> dict:
    """Remove the assignee from an open issue (issues in progress or in review must keep an assignee: move them
    back to open first, or reassign them with assign_issue).

    Args:
        issue_key: the issue key.
        actor_email: e-mail of the person making the change (a member of the project's team).
    """
    i, actor = _editable_issue(db, issue_key, actor_email)
    _unresolved(i)
    if i["assignee_id"] is None:
        raise ToolError(f"{i['key']} has no assignee.")
    if i["status"] in ("in_progress", "in_review"):
        raise ToolError(f"{i['key']} is {i['status']} and must keep an assignee; reassign it with assign_issue or "
                        "move it back to open first.")
    old = db.value("SELECT email FROM users WHERE id = ?", (i["assignee_id"],))
    db.execute("UPDATE issues SET assignee_id = NULL, updated_at = ? WHERE id = ?", (_now(db), i["id"]))
    _log(db, actor["id"], "unassigned", issue_id=i["id"], field="assignee", old=old)
    return {"key": i["key"], "previous_assignee": old}


@tool(write=True)
def add_comment(db: Db, issue_key: str, author_email: str, body: str) -> dict:
    """Add a comment to an issue. Anyone active in the issue's organisation may comment, viewers included.

    Args:
        issue_key: the issue key.
        author_email: e-mail of the person writing the comment.
        body: the comment text, 1 to 4000 characters.
    """
    i = _issue(db, issue_key)
    _writable(i)
    author = _org_member(db, author_email, i, "author")
    text = clean_text(body, "body", 1, 4000)
    cid = db.insert("comments", {"issue_id": i["id"], "author_id": author["id"], "body": text, "created_at": _now(db)})
    _log(db, author["id"], "commented", issue_id=i["id"])
    return {"comment_id": cid, "issue": i["key"], "author": author["full_name"]}


@tool(write=True)
def add_dependency(db: Db, blocked_issue_key: str, blocker_issue_key: str, actor_email: str) -> dict:
    """Record that one issue cannot start or finish until another is done ("blocker blocks blocked"). Both must be
    in the same organisation; the blocked issue must be unresolved; cycles are refused.

    Args:
        blocked_issue_key: the issue that has to wait, e.g. "APP-14".
        blocker_issue_key: the issue that must be finished first, e.g. "APP-10".
        actor_email: e-mail of the person making the change (a member of the blocked issue's team).
    """
    blocked = _issue(db, blocked_issue_key)
    blocker = _issue(db, blocker_issue_key)
    _writable(blocked)
    actor = _editor(db, actor_email, blocked["team_id"], blocked["org_id"])
    if blocked["id"] == blocker["id"]:
        raise ToolError("An issue cannot block itself; give two different issue keys.")
    if blocked["org_id"] != blocker["org_id"]:
        raise ToolError("Dependencies can only link issues of the same organisation.")
    _unresolved(blocked)
    db.none("SELECT 1 FROM issue_dependencies WHERE blocker_id = ? AND blocked_id = ?", (blocker["id"], blocked["id"]),
            found=f"{blocker['key']} already blocks {blocked['key']}.")
    # a cycle appears if the blocker already (directly or indirectly) waits for the blocked issue
    path = {blocked["id"]: [blocked["key"]]}
    frontier = [blocked["id"]]
    while frontier:
        current = frontier.pop(0)
        for r in db.query("SELECT b.id, b.key FROM issue_dependencies d JOIN issues b ON b.id = d.blocked_id "
                          "WHERE d.blocker_id = ? ORDER BY b.id", (current,)):
            if r["id"] in path:
                continue
            path[r["id"]] = path[current] + [r["key"]]
            if r["id"] == blocker["id"]:
                chain = " -> ".join(path[r["id"]] + [blocked["key"]])
                raise ToolError(f"That would create a dependency cycle ({chain}, where 'A -> B' means A blocks B). "
                                "Remove one of the existing dependencies first if the plan has changed.")
            frontier.append(r["id"])
    db.insert("issue_dependencies", {"blocker_id": blocker["id"], "blocked_id": blocked["id"],
                                     "created_by": actor["id"], "created_at": _now(db)})
    _log(db, actor["id"], "dependency_added", issue_id=blocked["id"], field="blocked_by", new=blocker["key"])
    _touch(db, blocked["id"])
    out: dict[str, Any] = {"blocked": blocked["key"], "blocker": blocker["key"],
                           "blocked_is_now_blocked": blocker["status"] not in RESOLVED}
    if blocked["status"] in ("in_progress", "in_review") and blocker["status"] not in RESOLVED:
        out["warning"] = (f"{blocked['key']} is already {blocked['status']}; it cannot be finished until "
                          f"{blocker['key']} is done.")
    return out


@tool(write=True)
def remove_dependency(db: Db, blocked_issue_key: str, blocker_issue_key: str, actor_email: str) -> dict:
    """Delete the dependency "blocker blocks blocked".

    Args:
        blocked_issue_key: the issue that was waiting.
        blocker_issue_key: the issue it was waiting for.
        actor_email: e-mail of the person making the change (a member of the blocked issue's team).
    """
    blocked = _issue(db, blocked_issue_key)
    blocker = _issue(db, blocker_issue_key)
    _writable(blocked)
    actor = _editor(db, actor_email, blocked["team_id"], blocked["org_id"])
    n = db.execute("DELETE FROM issue_dependencies WHERE blocker_id = ? AND blocked_id = ?",
                   (blocker["id"], blocked["id"]))
    if n == 0:
        raise ToolError(f"{blocker['key']} does not block {blocked['key']}; list_dependencies shows the real links.")
    _log(db, actor["id"], "dependency_removed", issue_id=blocked["id"], field="blocked_by", old=blocker["key"])
    _touch(db, blocked["id"])
    return {"blocked": blocked["key"], "removed_blocker": blocker["key"],
            "remaining_unfinished_blockers": [b["key"] for b in _blockers(db, blocked["id"], unresolved_only=True)]}


@tool(write=True)
def add_label(db: Db, issue_key: str, label_name: str, actor_email: str) -> dict:
    """Attach one of the project's labels to an issue.

    Args:
        issue_key: the issue key.
        label_name: a label defined in the issue's project (list_labels shows them).
        actor_email: e-mail of the person making the change (a member of the project's team).
    """
    i, actor = _editable_issue(db, issue_key, actor_email)
    lab = _label(db, i["project_id"], i["project_key"], label_name)
    db.none("SELECT 1 FROM issue_labels WHERE issue_id = ? AND label_id = ?", (i["id"], lab["id"]),
            found=f"{i['key']} already has the label {lab['name']!r}.")
    db.insert("issue_labels", {"issue_id": i["id"], "label_id": lab["id"]})
    _log(db, actor["id"], "label_added", issue_id=i["id"], field="labels", new=lab["name"])
    return {"key": i["key"], "label_added": lab["name"]}


@tool(write=True)
def remove_label(db: Db, issue_key: str, label_name: str, actor_email: str) -> dict:
    """Take a label off an issue.

    Args:
        issue_key: the issue key.
        label_name: the label to remove.
        actor_email: e-mail of the person making the change (a member of the project's team).
    """
    i, actor = _editable_issue(db, issue_key, actor_email)
    lab = db.one("SELECT l.id, l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id "
                 "WHERE il.issue_id = ? AND lower(l.name) = lower(?)", (i["id"], label_name.strip()),
                 missing=f"{i['key']} does not carry the label {label_name!r}; get_issue lists its labels.")
    db.execute("DELETE FROM issue_labels WHERE issue_id = ? AND label_id = ?", (i["id"], lab["id"]))
    _log(db, actor["id"], "label_removed", issue_id=i["id"], field="labels", old=lab["name"])
    return {"key": i["key"], "label_removed": lab["name"]}


@tool(write=True)
def create_label(db: Db, project_key: str, name: str, color: str, actor_email: str) -> dict:
    """Define a new label in a project.

    Args:
        project_key: the project's key.
        name: lower-case label name, letters, digits and dashes, up to 30 characters, e.g. "performance".
        color: hex colour "#rrggbb", e.g. "#1d76db".
        actor_email: e-mail of the person making the change (a member of the project's team).
    """
    p = _project(db, project_key)
    _writable(p)
    actor = _editor(db, actor_email, p["team_id"], p["org_id"])
    n = name.strip()
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,29}", n):
        raise ToolError("name must be lower-case letters, digits and dashes (up to 30), e.g. 'customer-reported'.")
    c = color.strip().lower()
    if not re.fullmatch(r"#[0-9a-f]{6}", c):
        raise ToolError("color must be a hex colour like '#1d76db'.")
    db.none("SELECT 1 FROM labels WHERE project_id = ? AND name = ?", (p["id"], n),
            found=f"{p['key']} already has a label {n!r}.")
    db.insert("labels", {"project_id": p["id"], "name": n, "color": c})
    _log(db, actor["id"], "label_created", project_id=p["id"], field="labels", new=n)
    return {"project": p["key"], "label": n, "color": c}


@tool(write=True)
def add_watcher(db: Db, issue_key: str, user_email: str, actor_email: str) -> dict:
    """Subscribe a person to an issue's updates.

    Args:
        issue_key: the issue key.
        user_email: e-mail of the person who should watch it (same organisation, active).
        actor_email: e-mail of the person making the change (anyone active in the organisation).
    """
    i = _issue(db, issue_key)
    actor = _active_user(db, actor_email, "acting user")
    user = _active_user(db, user_email)
    if actor["org_id"] != i["org_id"] or user["org_id"] != i["org_id"]:
        raise ToolError(f"Both people must belong to the organisation that owns {i['key']}.")
    if not _watch(db, i["id"], user["id"]):
        raise ToolError(f"{user['full_name']} already watches {i['key']}.")
    _log(db, actor["id"], "watcher_added", issue_id=i["id"], field="watchers", new=user["email"])
    return {"key": i["key"], "watcher_added": user["full_name"]}


@tool(write=True)
def remove_watcher(db: Db, issue_key: str, user_email: str, actor_email: str) -> dict:
    """Unsubscribe a person from an issue.

    Args:
        issue_key: the issue key.
        user_email: e-mail of the watcher to remove.
        actor_email: e-mail of the person making the change (anyone active in the organisation).
    """
    i = _issue(db, issue_key)
    actor = _org_member(db, actor_email, i)
    user = _user(db, user_email)
    n = db.execute("DELETE FROM watchers WHERE issue_id = ? AND user_id = ?", (i["id"], user["id"]))
    if n == 0:
        raise ToolError(f"{user['full_name']} does not watch {i['key']}.")
    _log(db, actor["id"], "watcher_removed", issue_id=i["id"], field="watchers", old=user["email"])
    return {"key": i["key"], "watcher_removed": user["full_name"]}


@tool(write=True)
def set_milestone(db: Db, issue_key: str, actor_email: str, milestone_id: int | None = None) -> dict:
    """Put an issue under one of its project's open milestones, or take it out of any milestone.

    Args:
        issue_key: the issue key.
        actor_email: e-mail of the person making the change (a member of the project's team).
        milestone_id: an open milestone of the same project; omit (null) to clear the milestone.
    """
    i, actor = _editable_issue(db, issue_key, actor_email)
    _unresolved(i)
    new_name = None
    if milestone_id is not None:
        m = db.one("SELECT id, project_id, name, status FROM milestones WHERE id = ?", (milestone_id,))
        if m is None or m["project_id"] != i["project_id"]:
            raise ToolError(f"Milestone {milestone_id} does not belong to {i['project_key']}; list_milestones "
                            "shows the project's milestones.")
        if m["status"] != "open":
            raise ToolError(f"Milestone '{m['name']}' is closed; choose an open one.")
        new_name = m["name"]
    if milestone_id == i["milestone_id"]:
        raise ToolError(f"{i['key']} is already {'in that milestone' if milestone_id else 'in no milestone'}.")
    old_name = db.value("SELECT name FROM milestones WHERE id = ?", (i["milestone_id"],)) if i["milestone_id"] else None
    db.execute("UPDATE issues SET milestone_id = ?, updated_at = ? WHERE id = ?", (milestone_id, _now(db), i["id"]))
    _log(db, actor["id"], "milestone_changed", issue_id=i["id"], field="milestone", old=old_name, new=new_name)
    return {"key": i["key"], "milestone": new_name, "previous_milestone": old_name}


# ----------------------------------------------------------------------------------------------
# write tools: time
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def log_time(db: Db, issue_key: str, user_email: str, minutes: int, work_date: str, note: str = "",
             billable: bool = True) -> dict:
    """Log time someone spent on an issue, under their own name, at their current hourly rate. Time is logged in
    15-minute steps (15 to 720 minutes per entry), for today or a past day within 60 days, at most 16 hours per
    person per day, only by members of the project's team and never on cancelled issues.

    Args:
        issue_key: the issue key, e.g. "KUB-4".
        user_email: e-mail of the person who did the work.
        minutes: time spent in minutes, a multiple of 15 (e.g. 135 for 2h15m).
        work_date: the day the work was done, YYYY-MM-DD.
        note: what was done.
        billable: whether the time is billable (default true).
    """
    i, user = _editable_issue(db, issue_key, user_email)
    if i["status"] == "cancelled":
        raise ToolError(f"{i['key']} is cancelled; time cannot be logged on it.")
    if minutes % 15 != 0 or not 15 <= minutes <= 720:
        raise ToolError(f"minutes must be a multiple of 15 between 15 and 720 (got {minutes}); e.g. 1h30 is 90.")
    d = _date(work_date, "work_date")
    if d > db.today():
        raise ToolError(f"work_date {d.isoformat()} is in the future; today is {db.today().isoformat()}.")
    if d < db.today() - timedelta(days=MAX_LOG_AGE_DAYS):
        raise ToolError(f"work_date {d.isoformat()} is more than {MAX_LOG_AGE_DAYS} days ago and that period is "
                        "locked for invoicing.")
    day_total = db.value("SELECT COALESCE(SUM(minutes), 0) FROM time_logs WHERE user_id = ? AND work_date = ?",
                         (user["id"], d.isoformat()))
    if day_total + minutes > MAX_DAY_MINUTES:
        raise ToolError(f"{user['full_name']} already has {day_total} minutes logged on {d.isoformat()}; adding "
                        f"{minutes} would exceed {MAX_DAY_MINUTES // 60} hours for the day.")
    tid = db.insert("time_logs", {"issue_id": i["id"], "user_id": user["id"], "work_date": d.isoformat(),
                                  "minutes": minutes, "billable": 1 if billable else 0,
                                  "rate_cents": user["hourly_rate_cents"], "note": note.strip()[:500],
                                  "created_at": _now(db)})
    _log(db, user["id"], "time_logged", issue_id=i["id"], field="time", new=f"{minutes} min on {d.isoformat()}")
    total = db.value("SELECT SUM(minutes) FROM time_logs WHERE issue_id = ?", (i["id"],))
    return {"time_log_id": tid, "issue": i["key"], "user": user["full_name"], "minutes": minutes,
            "work_date": d.isoformat(), "billable": billable,
            "cost_cents": minutes * user["hourly_rate_cents"] // 60 if billable else 0,
            "issue_total_minutes": total}


@tool(write=True)
def delete_time_log(db: Db, time_log_id: int, actor_email: str) -> dict:
    """Delete a time entry (e.g. one logged on the wrong issue). Allowed for the person who logged it, the
    team's lead or an organisation admin, and only within 60 days of the work date.

    Args:
        time_log_id: the entry id (list_time_logs shows ids).
        actor_email: e-mail of the person deleting it.
    """
    tl = db.one("SELECT tl.*, i.key AS issue_key, i.id AS iid FROM time_logs tl JOIN issues i ON i.id = tl.issue_id "
                "WHERE tl.id = ?", (time_log_id,),
                missing=f"No time entry with id {time_log_id}; list_time_logs shows the ids.")
    i = _issue(db, tl["issue_key"])
    _writable(i)
    actor = _org_member(db, actor_email, i)
    if actor["id"] != tl["user_id"] and actor["org_role"] != "admin" and not _is_lead(db, i["team_id"], actor["id"]):
        raise ToolError("Only the person who logged the time, the team lead or an organisation admin can delete it.")
    if _date(tl["work_date"], "work_date") < db.today() - timedelta(days=MAX_LOG_AGE_DAYS):
        raise ToolError(f"Entry {time_log_id} is more than {MAX_LOG_AGE_DAYS} days old and locked for invoicing.")
    db.execute("DELETE FROM time_logs WHERE id = ?", (time_log_id,))
    _log(db, actor["id"], "time_deleted", issue_id=i["id"], field="time",
         old=f"{tl['minutes']} min on {tl['work_date']}")
    return {"deleted_time_log_id": time_log_id, "issue": i["key"], "minutes": tl["minutes"],
            "work_date": tl["work_date"], "note": tl["note"]}


# ----------------------------------------------------------------------------------------------
# write tools: sprints
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def move_to_sprint(db: Db, issue_key: str, actor_email: str, sprint_id: int | None = None) -> dict:
    """Put an unresolved, estimated issue into one of its team's planned or active sprints, or (sprint_id null)
    back to the backlog. The sprint's committed story points plus the issue's must not exceed its capacity.

    Args:
        issue_key: the issue key.
        actor_email: e-mail of the person making the change (a member of the project's team).
        sprint_id: the target sprint id (list_sprints shows them); omit (null) to move the issue to the backlog.
    """
    i, actor = _editable_issue(db, issue_key, actor_email)
    _unresolved(i)
    old = _sprint(db, i["sprint_id"]) if i["sprint_id"] else None
    if sprint_id is None:
        if old is None:
            raise ToolError(f"{i['key']} is already in the backlog.")
        new_name = None
    else:
        s = _sprint(db, sprint_id)
        if s["team_id"] != i["team_id"]:
            raise ToolError(f"{s['name']} belongs to the {s['team_name']} team; {i['key']} can only go into "
                            f"{i['team_key']} sprints.")
        if s["status"] == "closed":
            raise ToolError(f"{s['name']} is closed; choose an active or planned sprint.")
        if i["sprint_id"] == s["id"]:
            raise ToolError(f"{i['key']} is already in {s['name']}.")
        if i["story_points"] is None:
            raise ToolError(f"{i['key']} has no estimate; set story_points with update_issue first.")
        committed = _committed(db, s["id"])
        if committed + i["story_points"] > s["capacity_points"]:
            raise ToolError(f"{s['name']} has {committed} of {s['capacity_points']} points committed and "
                            f"{i['key']} needs {i['story_points']}. Move something out of the sprint first, or "
                            "choose another sprint.")
        new_name = s["name"]
    db.execute("UPDATE issues SET sprint_id = ?, updated_at = ? WHERE id = ?", (sprint_id, _now(db), i["id"]))
    _log(db, actor["id"], "sprint_changed", issue_id=i["id"], sprint_id=sprint_id, field="sprint",
         old=old["name"] if old else None, new=new_name)
    out: dict[str, Any] = {"key": i["key"], "sprint": new_name or "backlog",
                           "previous_sprint": old["name"] if old else None}
    if sprint_id is not None:
        out["sprint_committed_points"] = _committed(db, sprint_id)
    return out


@tool(write=True)
def create_sprint(db: Db, team_key: str, name: str, start_date: str, end_date: str, capacity_points: int,
                  actor_email: str, goal: str = "") -> dict:
    """Plan a new sprint for a team. Sprints last 1 to 28 days, may not overlap the team's other sprints and
    cannot start in the past.

    Args:
        team_key: the team's key, e.g. "DATA".
        name: a name unique within the team, e.g. "Data Sprint 3".
        start_date: first day, YYYY-MM-DD.
        end_date: last day, YYYY-MM-DD.
        capacity_points: story points the team can take on, 1 to 200.
        actor_email: e-mail of the team lead or an organisation admin.
        goal: what the sprint should achieve.
    """
    t = _team(db, team_key)
    actor = _lead_or_admin(db, actor_email, t["id"], t["org_id"], "plan sprints")
    n = clean_text(name, "name", 3, 80)
    db.none("SELECT 1 FROM sprints WHERE team_id = ? AND lower(name) = lower(?)", (t["id"], n),
            found=f"The {t['name']} team already has a sprint named {n!r}.")
    d1, d2 = _date(start_date, "start_date"), _date(end_date, "end_date")
    if d2 <= d1:
        raise ToolError("end_date must be after start_date.")
    if (d2 - d1).days + 1 > MAX_SPRINT_DAYS:
        raise ToolError(f"A sprint lasts at most {MAX_SPRINT_DAYS} days.")
    if d1 < db.today():
        raise ToolError(f"start_date {d1.isoformat()} is in the past; today is {db.today().isoformat()}.")
    if not 1 <= capacity_points <= 200:
        raise ToolError("capacity_points must be between 1 and 200.")
    clash = db.one("SELECT name, start_date, end_date FROM sprints WHERE team_id = ? AND start_date <= ? "
                   "AND end_date >= ? ORDER BY start_date", (t["id"], d2.isoformat(), d1.isoformat()))
    if clash:
        raise ToolError(f"Those dates overlap {clash['name']} ({clash['start_date']} to {clash['end_date']}); "
                        "pick dates after it.")
    sid = db.insert("sprints", {"team_id": t["id"], "name": n, "goal": goal.strip(), "start_date": d1.isoformat(),
                                "end_date": d2.isoformat(), "status": "planned", "capacity_points": capacity_points,
                                "completed_points": None, "closed_at": None})
    _log(db, actor["id"], "sprint_created", sprint_id=sid, new=n)
    return {"sprint_id": sid, "name": n, "team": t["key"], "status": "planned"}


@tool(write=True)
def start_sprint(db: Db, sprint_id: int, actor_email: str) -> dict:
    """Start a planned sprint. A team has at most one active sprint, so close the current one first
    (close_sprint). Reports the committed points against capacity.

    Args:
        sprint_id: the planned sprint's id.
        actor_email: e-mail of the team lead or an organisation admin.
    """
    s = _sprint(db, sprint_id)
    actor = _lead_or_admin(db, actor_email, s["team_id"], s["org_id"], "start a sprint")
    if s["status"] != "planned":
        raise ToolError(f"{s['name']} is {s['status']}; only a planned sprint can be started.")
    active = db.one("SELECT id, name FROM sprints WHERE team_id = ? AND status = 'active'", (s["team_id"],))
    if active:
        raise ToolError(f"{active['name']} (id {active['id']}) is still active; close it with close_sprint first.")
    if _date(s["end_date"], "end_date") < db.today():
        raise ToolError(f"{s['name']} ended on {s['end_date']}; plan a new sprint with create_sprint instead.")
    db.execute("UPDATE sprints SET status = 'active' WHERE id = ?", (sprint_id,))
    _log(db, actor["id"], "sprint_started", sprint_id=sprint_id, field="status", old="planned", new="active")
    committed = _committed(db, sprint_id)
    out: dict[str, Any] = {"sprint_id": sprint_id, "name": s["name"], "status": "active",
                           "committed_points": committed, "capacity_points": s["capacity_points"]}
    if committed > s["capacity_points"]:
        out["warning"] = (f"{s['name']} is over capacity by {committed - s['capacity_points']} points; consider "
                          "moving lower-priority issues back to the backlog.")
    return out


@tool(write=True)
def close_sprint(db: Db, sprint_id: int, actor_email: str,
                 unfinished_to: Literal["next_sprint", "backlog"] = "next_sprint") -> dict:
    """Close the active sprint: records the completed story points (issues done), and moves every unfinished issue
    (open, in progress, in review) to the team's next planned sprint, or to the backlog when asked or when no
    sprint is planned. Issue statuses do not change. Does not start the next sprint (use start_sprint).

    Args:
        sprint_id: the active sprint's id.
        actor_email: e-mail of the team lead or an organisation admin.
        unfinished_to: "next_sprint" (default) or "backlog".
    """
    s = _sprint(db, sprint_id)
    actor = _lead_or_admin(db, actor_email, s["team_id"], s["org_id"], "close a sprint")
    if s["status"] != "active":
        raise ToolError(f"{s['name']} is {s['status']}; only the active sprint can be closed.")
    target = None
    if unfinished_to == "next_sprint":
        target = db.one("SELECT id, name, capacity_points FROM sprints WHERE team_id = ? AND status = 'planned' "
                        "AND start_date > ? ORDER BY start_date LIMIT 1", (s["team_id"], s["start_date"]))
    unfinished = db.query("SELECT id, key FROM issues WHERE sprint_id = ? AND status IN "
                          "('open', 'in_progress', 'in_review') ORDER BY project_id, number", (sprint_id,))
    done = db.value("SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE sprint_id = ? AND status = 'done'",
                    (sprint_id,))
    now = _now(db)
    for u in unfinished:
        db.execute("UPDATE issues SET sprint_id = ?, updated_at = ? WHERE id = ?",
                   (target["id"] if target else None, now, u["id"]))
        _log(db, actor["id"], "sprint_changed", issue_id=u["id"], sprint_id=target["id"] if target else None,
             field="sprint", old=s["name"], new=target["name"] if target else None)
    db.execute("UPDATE sprints SET status = 'closed', completed_points = ?, closed_at = ? WHERE id = ?",
               (done, now, sprint_id))
    _log(db, actor["id"], "sprint_closed", sprint_id=sprint_id, field="status", old="active", new="closed")
    out: dict[str, Any] = {"sprint": s["name"], "status": "closed", "completed_points": done,
                           "moved_issues": [u["key"] for u in unfinished],
                           "moved_to": target["name"] if target else "backlog"}
    if target:
        committed = _committed(db, target["id"])
        out["next_sprint"] = {"id": target["id"], "name": target["name"], "committed_points": committed,
                              "capacity_points": target["capacity_points"]}
        if committed > target["capacity_points"]:
            out["warning"] = (f"{target['name']} now holds {committed} points, over its capacity of "
                              f"{target['capacity_points']}.")
    return out
