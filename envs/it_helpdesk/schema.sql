-- it_helpdesk: the internal IT service desk of Norvale Group.
-- Timestamps are ISO-8601 text without time zone ("2026-04-14T10:00:00"), dates are "YYYY-MM-DD".
-- Money is integer cents.

CREATE TABLE departments (
    id              INTEGER PRIMARY KEY,
    code            TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL UNIQUE,
    cost_center     TEXT NOT NULL UNIQUE
);

-- Staff of the company. manager_id is the person who approves their access requests.
CREATE TABLE employees (
    id                  INTEGER PRIMARY KEY,
    department_id       INTEGER NOT NULL REFERENCES departments(id),
    manager_id          INTEGER REFERENCES employees(id),
    full_name           TEXT NOT NULL,
    email               TEXT NOT NULL UNIQUE,
    job_title           TEXT NOT NULL,
    location            TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('active', 'on_leave', 'terminated')),
    account_locked      INTEGER NOT NULL DEFAULT 0 CHECK (account_locked IN (0, 1)),
    password_changed_at TEXT NOT NULL,
    hired_on            TEXT NOT NULL,
    CHECK (manager_id IS NULL OR manager_id <> id)
);

-- Resolver groups. handles_assets / handles_access: whether its agents may issue hardware, and
-- grant licences, fulfil access requests and reset passwords.
CREATE TABLE support_groups (
    id              INTEGER PRIMARY KEY,
    code            TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL UNIQUE,
    email           TEXT NOT NULL UNIQUE,
    description     TEXT NOT NULL DEFAULT '',
    handles_assets  INTEGER NOT NULL DEFAULT 0 CHECK (handles_assets IN (0, 1)),
    handles_access  INTEGER NOT NULL DEFAULT 0 CHECK (handles_access IN (0, 1))
);

-- IT staff who work tickets. role 'manager' sits on the change advisory board (CAB).
CREATE TABLE agents (
    id                  INTEGER PRIMARY KEY,
    group_id            INTEGER NOT NULL REFERENCES support_groups(id),
    full_name           TEXT NOT NULL,
    email               TEXT NOT NULL UNIQUE,
    role                TEXT NOT NULL CHECK (role IN ('agent', 'lead', 'manager')),
    max_open_tickets    INTEGER NOT NULL CHECK (max_open_tickets BETWEEN 1 AND 40),
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    joined_on           TEXT NOT NULL
);

CREATE TABLE skills (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE
);

CREATE TABLE agent_skills (
    id          INTEGER PRIMARY KEY,
    agent_id    INTEGER NOT NULL REFERENCES agents(id),
    skill_id    INTEGER NOT NULL REFERENCES skills(id),
    level       INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),
    UNIQUE (agent_id, skill_id)
);

-- SLA targets: first public response within response_minutes, resolution within resolution_hours,
-- both counted from the ticket's creation.
CREATE TABLE priorities (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE CHECK (code IN ('P1', 'P2', 'P3', 'P4')),
    name                TEXT NOT NULL UNIQUE,
    response_minutes    INTEGER NOT NULL CHECK (response_minutes > 0),
    resolution_hours    INTEGER NOT NULL CHECK (resolution_hours > 0)
);

CREATE TABLE categories (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE,
    default_group_id    INTEGER NOT NULL REFERENCES support_groups(id),
    default_priority_id INTEGER NOT NULL REFERENCES priorities(id)
);

CREATE TABLE assets (
    id              INTEGER PRIMARY KEY,
    asset_tag       TEXT NOT NULL UNIQUE,
    asset_type      TEXT NOT NULL CHECK (asset_type IN ('laptop', 'phone', 'monitor', 'tablet')),
    model           TEXT NOT NULL,
    serial_number   TEXT NOT NULL UNIQUE,
    status          TEXT NOT NULL CHECK (status IN ('in_stock', 'assigned', 'in_repair', 'retired')),
    assigned_to     INTEGER REFERENCES employees(id),
    assigned_at     TEXT,
    purchase_date   TEXT NOT NULL,
    warranty_end    TEXT NOT NULL,
    CHECK ((status = 'assigned') = (assigned_to IS NOT NULL)),
    CHECK ((assigned_to IS NULL) = (assigned_at IS NULL)),
    CHECK (warranty_end > purchase_date)
);

CREATE TABLE tickets (
    id                  INTEGER PRIMARY KEY,
    number              TEXT NOT NULL UNIQUE,
    requester_id        INTEGER NOT NULL REFERENCES employees(id),
    category_id         INTEGER NOT NULL REFERENCES categories(id),
    priority_id         INTEGER NOT NULL REFERENCES priorities(id),
    group_id            INTEGER NOT NULL REFERENCES support_groups(id),
    assignee_id         INTEGER REFERENCES agents(id),
    asset_id            INTEGER REFERENCES assets(id),
    subject             TEXT NOT NULL CHECK (length(subject) BETWEEN 3 AND 200),
    description         TEXT NOT NULL DEFAULT '',
    status              TEXT NOT NULL CHECK (status IN ('new', 'assigned', 'in_progress', 'waiting_on_user',
                                                         'resolved', 'closed')),
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    first_response_at   TEXT,
    response_due_at     TEXT NOT NULL,
    resolution_due_at   TEXT NOT NULL,
    resolved_at         TEXT,
    closed_at           TEXT,
    resolution_note     TEXT,
    reopen_count        INTEGER NOT NULL DEFAULT 0 CHECK (reopen_count >= 0),
    CHECK ((status = 'new') = (assignee_id IS NULL)),
    CHECK ((status IN ('resolved', 'closed')) = (resolved_at IS NOT NULL)),
    CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
    CHECK ((resolved_at IS NULL) = (resolution_note IS NULL))
);

-- visibility 'public' is seen by the requester, 'internal' only by IT. Exactly one author.
CREATE TABLE ticket_comments (
    id                  INTEGER PRIMARY KEY,
    ticket_id           INTEGER NOT NULL REFERENCES tickets(id),
    agent_id            INTEGER REFERENCES agents(id),
    employee_id         INTEGER REFERENCES employees(id),
    visibility          TEXT NOT NULL CHECK (visibility IN ('public', 'internal')),
    body                TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
    created_at          TEXT NOT NULL,
    CHECK ((agent_id IS NULL) <> (employee_id IS NULL)),
    CHECK (employee_id IS NULL OR visibility = 'public')
);

CREATE TABLE escalations (
    id              INTEGER PRIMARY KEY,
    ticket_id       INTEGER NOT NULL REFERENCES tickets(id),
    from_group_id   INTEGER NOT NULL REFERENCES support_groups(id),
    to_group_id     INTEGER NOT NULL REFERENCES support_groups(id),
    escalated_by    INTEGER NOT NULL REFERENCES agents(id),
    reason          TEXT NOT NULL CHECK (length(reason) BETWEEN 3 AND 1000),
    created_at      TEXT NOT NULL,
    CHECK (from_group_id <> to_group_id)
);

CREATE TABLE software (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE,
    vendor              TEXT NOT NULL,
    seat_limit          INTEGER NOT NULL CHECK (seat_limit > 0),
    cost_per_seat_cents INTEGER NOT NULL CHECK (cost_per_seat_cents >= 0),
    requires_approval   INTEGER NOT NULL DEFAULT 0 CHECK (requires_approval IN (0, 1))
);

CREATE TABLE licence_assignments (
    id              INTEGER PRIMARY KEY,
    software_id     INTEGER NOT NULL REFERENCES software(id),
    employee_id     INTEGER NOT NULL REFERENCES employees(id),
    assigned_by     INTEGER REFERENCES agents(id),
    assigned_at     TEXT NOT NULL,
    UNIQUE (software_id, employee_id)
);

CREATE TABLE access_requests (
    id              INTEGER PRIMARY KEY,
    number          TEXT NOT NULL UNIQUE,
    requester_id    INTEGER NOT NULL REFERENCES employees(id),
    software_id     INTEGER NOT NULL REFERENCES software(id),
    justification   TEXT NOT NULL CHECK (length(justification) BETWEEN 3 AND 1000),
    status          TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'fulfilled', 'cancelled')),
    approver_id     INTEGER NOT NULL REFERENCES employees(id),
    decided_at      TEXT,
    decision_note   TEXT,
    fulfilled_by    INTEGER REFERENCES agents(id),
    fulfilled_at    TEXT,
    created_at      TEXT NOT NULL,
    CHECK ((status IN ('approved', 'rejected', 'fulfilled')) = (decided_at IS NOT NULL)),
    CHECK ((status = 'fulfilled') = (fulfilled_at IS NOT NULL)),
    CHECK ((fulfilled_at IS NULL) = (fulfilled_by IS NULL)),
    CHECK (approver_id <> requester_id)
);

CREATE TABLE maintenance_windows (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    starts_at       TEXT NOT NULL,
    ends_at         TEXT NOT NULL,
    max_changes     INTEGER NOT NULL CHECK (max_changes BETWEEN 1 AND 10),
    CHECK (ends_at > starts_at)
);

CREATE TABLE change_requests (
    id                  INTEGER PRIMARY KEY,
    number              TEXT NOT NULL UNIQUE,
    title               TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    group_id            INTEGER NOT NULL REFERENCES support_groups(id),
    requested_by        INTEGER NOT NULL REFERENCES agents(id),
    risk                TEXT NOT NULL CHECK (risk IN ('low', 'medium', 'high')),
    duration_minutes    INTEGER NOT NULL CHECK (duration_minutes BETWEEN 15 AND 720),
    status              TEXT NOT NULL CHECK (status IN ('submitted', 'approved', 'rejected', 'scheduled',
                                                         'implemented', 'cancelled')),
    approved_by         INTEGER REFERENCES agents(id),
    decided_at          TEXT,
    window_id           INTEGER REFERENCES maintenance_windows(id),
    created_at          TEXT NOT NULL,
    CHECK ((status IN ('scheduled', 'implemented')) = (window_id IS NOT NULL)),
    CHECK ((status IN ('approved', 'scheduled', 'implemented')) = (approved_by IS NOT NULL)),
    CHECK ((status IN ('submitted', 'cancelled')) = (decided_at IS NULL)),
    CHECK (approved_by IS NULL OR approved_by <> requested_by)
);

CREATE TABLE kb_articles (
    id              INTEGER PRIMARY KEY,
    number          TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    body            TEXT NOT NULL,
    category_id     INTEGER NOT NULL REFERENCES categories(id),
    author_id       INTEGER NOT NULL REFERENCES agents(id),
    status          TEXT NOT NULL CHECK (status IN ('draft', 'published', 'retired')),
    published_by    INTEGER REFERENCES agents(id),
    published_at    TEXT,
    helpful_votes   INTEGER NOT NULL DEFAULT 0 CHECK (helpful_votes >= 0),
    created_at      TEXT NOT NULL,
    CHECK ((status = 'draft') = (published_at IS NULL)),
    CHECK ((published_at IS NULL) = (published_by IS NULL)),
    CHECK (published_by IS NULL OR published_by <> author_id)
);

CREATE TABLE account_events (
    id              INTEGER PRIMARY KEY,
    employee_id     INTEGER NOT NULL REFERENCES employees(id),
    event_type      TEXT NOT NULL CHECK (event_type IN ('account_locked', 'password_reset', 'account_unlocked')),
    performed_by    INTEGER REFERENCES agents(id),
    ticket_id       INTEGER REFERENCES tickets(id),
    note            TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    CHECK (event_type = 'account_locked' OR performed_by IS NOT NULL)
);

CREATE INDEX idx_employees_manager ON employees(manager_id);
CREATE INDEX idx_tickets_group_status ON tickets(group_id, status);
CREATE INDEX idx_tickets_assignee ON tickets(assignee_id, status);
CREATE INDEX idx_tickets_requester ON tickets(requester_id);
CREATE INDEX idx_comments_ticket ON ticket_comments(ticket_id, created_at);
CREATE INDEX idx_assets_holder ON assets(assigned_to);
CREATE INDEX idx_licences_employee ON licence_assignments(employee_id);
CREATE INDEX idx_access_requester ON access_requests(requester_id, status);
CREATE INDEX idx_changes_window ON change_requests(window_id);
CREATE INDEX idx_account_events_employee ON account_events(employee_id, created_at);
