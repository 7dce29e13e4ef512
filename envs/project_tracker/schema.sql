-- project_tracker: a team project tracker (organisations, teams, projects, sprints, issues).
-- Timestamps are ISO-8601 text without time zone ("2026-03-02T09:30:00"), dates are "YYYY-MM-DD".
-- Money is integer cents.

CREATE TABLE organizations (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    slug            TEXT NOT NULL UNIQUE,
    plan            TEXT NOT NULL CHECK (plan IN ('free', 'team', 'business', 'enterprise')),
    billing_email   TEXT NOT NULL,
    country         TEXT NOT NULL,
    created_at      TEXT NOT NULL
);

CREATE TABLE users (
    id                  INTEGER PRIMARY KEY,
    org_id              INTEGER NOT NULL REFERENCES organizations(id),
    full_name           TEXT NOT NULL,
    email               TEXT NOT NULL UNIQUE,
    org_role            TEXT NOT NULL CHECK (org_role IN ('admin', 'member', 'viewer')),
    job_title           TEXT NOT NULL,
    timezone            TEXT NOT NULL,
    hourly_rate_cents   INTEGER NOT NULL CHECK (hourly_rate_cents >= 0),
    max_active_issues   INTEGER NOT NULL DEFAULT 6 CHECK (max_active_issues BETWEEN 1 AND 20),
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at          TEXT NOT NULL
);

CREATE TABLE teams (
    id          INTEGER PRIMARY KEY,
    org_id      INTEGER NOT NULL REFERENCES organizations(id),
    name        TEXT NOT NULL,
    key         TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    UNIQUE (org_id, name)
);

CREATE TABLE team_members (
    id          INTEGER PRIMARY KEY,
    team_id     INTEGER NOT NULL REFERENCES teams(id),
    user_id     INTEGER NOT NULL REFERENCES users(id),
    team_role   TEXT NOT NULL CHECK (team_role IN ('lead', 'member')),
    joined_at   TEXT NOT NULL,
    UNIQUE (team_id, user_id)
);

CREATE TABLE projects (
    id                  INTEGER PRIMARY KEY,
    team_id             INTEGER NOT NULL REFERENCES teams(id),
    key                 TEXT NOT NULL UNIQUE CHECK (length(key) BETWEEN 2 AND 6),
    name                TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    status              TEXT NOT NULL CHECK (status IN ('active', 'on_hold', 'archived')),
    lead_id             INTEGER NOT NULL REFERENCES users(id),
    next_issue_number   INTEGER NOT NULL CHECK (next_issue_number >= 1),
    budget_cents        INTEGER NOT NULL DEFAULT 0 CHECK (budget_cents >= 0),
    start_date          TEXT NOT NULL,
    target_date         TEXT,
    created_at          TEXT NOT NULL
);

CREATE TABLE milestones (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id),
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    due_date    TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    UNIQUE (project_id, name)
);

CREATE TABLE sprints (
    id                  INTEGER PRIMARY KEY,
    team_id             INTEGER NOT NULL REFERENCES teams(id),
    name                TEXT NOT NULL,
    goal                TEXT NOT NULL DEFAULT '',
    start_date          TEXT NOT NULL,
    end_date            TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('planned', 'active', 'closed')),
    capacity_points     INTEGER NOT NULL CHECK (capacity_points > 0),
    completed_points    INTEGER CHECK (completed_points IS NULL OR completed_points >= 0),
    closed_at           TEXT,
    UNIQUE (team_id, name),
    CHECK (end_date > start_date),
    CHECK ((status = 'closed') = (closed_at IS NOT NULL))
);

-- The workflow: which status changes are allowed and what each one requires.
CREATE TABLE workflow_transitions (
    id                  INTEGER PRIMARY KEY,
    from_status         TEXT NOT NULL CHECK (from_status IN ('open', 'in_progress', 'in_review', 'done', 'cancelled')),
    to_status           TEXT NOT NULL CHECK (to_status IN ('open', 'in_progress', 'in_review', 'done', 'cancelled')),
    name                TEXT NOT NULL,
    requires_assignee   INTEGER NOT NULL DEFAULT 0 CHECK (requires_assignee IN (0, 1)),
    requires_unblocked  INTEGER NOT NULL DEFAULT 0 CHECK (requires_unblocked IN (0, 1)),
    requires_reviewer   INTEGER NOT NULL DEFAULT 0 CHECK (requires_reviewer IN (0, 1)),
    UNIQUE (from_status, to_status),
    CHECK (from_status <> to_status)
);

CREATE TABLE issues (
    id              INTEGER PRIMARY KEY,
    project_id      INTEGER NOT NULL REFERENCES projects(id),
    number          INTEGER NOT NULL CHECK (number >= 1),
    key             TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    issue_type      TEXT NOT NULL CHECK (issue_type IN ('bug', 'feature', 'task', 'chore')),
    status          TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'in_review', 'done', 'cancelled')),
    priority        TEXT NOT NULL CHECK (priority IN ('urgent', 'high', 'medium', 'low')),
    reporter_id     INTEGER NOT NULL REFERENCES users(id),
    assignee_id     INTEGER REFERENCES users(id),
    sprint_id       INTEGER REFERENCES sprints(id),
    milestone_id    INTEGER REFERENCES milestones(id),
    story_points    INTEGER CHECK (story_points IS NULL OR story_points IN (0, 1, 2, 3, 5, 8, 13)),
    due_date        TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    resolved_at     TEXT,
    UNIQUE (project_id, number),
    CHECK ((status IN ('done', 'cancelled')) = (resolved_at IS NOT NULL))
);

CREATE TABLE labels (
    id          INTEGER PRIMARY KEY,
    project_id  INTEGER NOT NULL REFERENCES projects(id),
    name        TEXT NOT NULL,
    color       TEXT NOT NULL CHECK (color GLOB '#[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
    UNIQUE (project_id, name)
);

CREATE TABLE issue_labels (
    id          INTEGER PRIMARY KEY,
    issue_id    INTEGER NOT NULL REFERENCES issues(id),
    label_id    INTEGER NOT NULL REFERENCES labels(id),
    UNIQUE (issue_id, label_id)
);

CREATE TABLE comments (
    id          INTEGER PRIMARY KEY,
    issue_id    INTEGER NOT NULL REFERENCES issues(id),
    author_id   INTEGER NOT NULL REFERENCES users(id),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
    created_at  TEXT NOT NULL
);

CREATE TABLE time_logs (
    id          INTEGER PRIMARY KEY,
    issue_id    INTEGER NOT NULL REFERENCES issues(id),
    user_id     INTEGER NOT NULL REFERENCES users(id),
    work_date   TEXT NOT NULL,
    minutes     INTEGER NOT NULL CHECK (minutes > 0 AND minutes <= 720 AND minutes % 15 = 0),
    billable    INTEGER NOT NULL DEFAULT 1 CHECK (billable IN (0, 1)),
    rate_cents  INTEGER NOT NULL CHECK (rate_cents >= 0),
    note        TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);

-- blocker_id must be finished (done or cancelled) before blocked_id can start or finish.
CREATE TABLE issue_dependencies (
    id          INTEGER PRIMARY KEY,
    blocker_id  INTEGER NOT NULL REFERENCES issues(id),
    blocked_id  INTEGER NOT NULL REFERENCES issues(id),
    created_by  INTEGER NOT NULL REFERENCES users(id),
    created_at  TEXT NOT NULL,
    UNIQUE (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);

CREATE TABLE watchers (
    id          INTEGER PRIMARY KEY,
    issue_id    INTEGER NOT NULL REFERENCES issues(id),
    user_id     INTEGER NOT NULL REFERENCES users(id),
    added_at    TEXT NOT NULL,
    UNIQUE (issue_id, user_id)
);

CREATE TABLE activity_log (
    id          INTEGER PRIMARY KEY,
    issue_id    INTEGER REFERENCES issues(id),
    sprint_id   INTEGER REFERENCES sprints(id),
    project_id  INTEGER REFERENCES projects(id),
    actor_id    INTEGER NOT NULL REFERENCES users(id),
    action      TEXT NOT NULL CHECK (action IN (
                    'created', 'field_changed', 'status_changed', 'assigned', 'unassigned',
                    'commented', 'time_logged', 'time_deleted', 'dependency_added',
                    'dependency_removed', 'label_added', 'label_removed', 'watcher_added',
                    'watcher_removed', 'sprint_changed', 'milestone_changed',
                    'sprint_created', 'sprint_started', 'sprint_closed', 'label_created')),
    field       TEXT,
    old_value   TEXT,
    new_value   TEXT,
    created_at  TEXT NOT NULL,
    CHECK (issue_id IS NOT NULL OR sprint_id IS NOT NULL OR project_id IS NOT NULL)
);

CREATE INDEX idx_issues_project_status ON issues(project_id, status);
CREATE INDEX idx_issues_assignee ON issues(assignee_id, status);
CREATE INDEX idx_issues_sprint ON issues(sprint_id);
CREATE INDEX idx_time_logs_issue ON time_logs(issue_id, work_date);
CREATE INDEX idx_time_logs_user_date ON time_logs(user_id, work_date);
CREATE INDEX idx_deps_blocked ON issue_dependencies(blocked_id);
CREATE INDEX idx_comments_issue ON comments(issue_id, created_at);
CREATE INDEX idx_activity_issue ON activity_log(issue_id, created_at);
CREATE INDEX idx_team_members_user ON team_members(user_id);
