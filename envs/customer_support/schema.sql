-- customer_support: the customer support desk of Cloudnest, a SaaS company.
-- Timestamps are ISO-8601 text without time zone ("2026-06-09T14:00:00"), dates are "YYYY-MM-DD".
-- Money is integer cents (US dollars).

-- A plan's support entitlement: which channels customers may use and how many active contacts they may have.
CREATE TABLE plans (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL UNIQUE,
    monthly_price_cents INTEGER NOT NULL CHECK (monthly_price_cents > 0),
    max_contacts        INTEGER NOT NULL CHECK (max_contacts > 0),
    chat_support        INTEGER NOT NULL CHECK (chat_support IN (0, 1)),
    phone_support       INTEGER NOT NULL CHECK (phone_support IN (0, 1))
);

-- SLA targets per plan and ticket priority, counted from the ticket's creation.
CREATE TABLE sla_policies (
    id                      INTEGER PRIMARY KEY,
    plan_id                 INTEGER NOT NULL REFERENCES plans(id),
    priority                TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
    first_response_minutes  INTEGER NOT NULL CHECK (first_response_minutes > 0),
    resolution_hours        INTEGER NOT NULL CHECK (resolution_hours > 0),
    UNIQUE (plan_id, priority)
);

CREATE TABLE organizations (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    domain      TEXT NOT NULL UNIQUE,
    plan_id     INTEGER NOT NULL REFERENCES plans(id),
    status      TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    created_at  TEXT NOT NULL
);

CREATE TABLE contacts (
    id          INTEGER PRIMARY KEY,
    org_id      INTEGER NOT NULL REFERENCES organizations(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at  TEXT NOT NULL
);

CREATE TABLE teams (
    id      INTEGER PRIMARY KEY,
    code    TEXT NOT NULL UNIQUE,
    name    TEXT NOT NULL UNIQUE
);

-- How much refund or credit an agent of each role may issue on their own, per refund.
CREATE TABLE role_limits (
    id                  INTEGER PRIMARY KEY,
    role                TEXT NOT NULL UNIQUE CHECK (role IN ('agent', 'lead', 'manager')),
    refund_limit_cents  INTEGER NOT NULL CHECK (refund_limit_cents >= 0)
);

CREATE TABLE agents (
    id          INTEGER PRIMARY KEY,
    team_id     INTEGER NOT NULL REFERENCES teams(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL REFERENCES role_limits(role),
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

CREATE TABLE tickets (
    id                      INTEGER PRIMARY KEY,
    number                  INTEGER NOT NULL UNIQUE,
    org_id                  INTEGER NOT NULL REFERENCES organizations(id),
    requester_id            INTEGER NOT NULL REFERENCES contacts(id),
    channel                 TEXT NOT NULL CHECK (channel IN ('email', 'chat', 'phone')),
    subject                 TEXT NOT NULL CHECK (length(subject) BETWEEN 3 AND 200),
    description             TEXT NOT NULL DEFAULT '',
    status                  TEXT NOT NULL CHECK (status IN ('open', 'pending', 'on_hold', 'solved', 'closed')),
    priority                TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
    team_id                 INTEGER NOT NULL REFERENCES teams(id),
    assignee_id             INTEGER REFERENCES agents(id),
    created_at              TEXT NOT NULL,
    updated_at              TEXT NOT NULL,
    first_response_at       TEXT,
    first_response_due_at   TEXT NOT NULL,
    resolution_due_at       TEXT NOT NULL,
    solved_at               TEXT,
    closed_at               TEXT,
    merged_into_id          INTEGER REFERENCES tickets(id),
    CHECK ((status IN ('solved', 'closed')) = (solved_at IS NOT NULL)),
    CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
    CHECK (merged_into_id IS NULL OR status = 'closed'),
    CHECK (merged_into_id IS NULL OR merged_into_id <> id)
);

-- public comments are seen by the requester; internal notes only by agents. Exactly one author.
CREATE TABLE ticket_comments (
    id          INTEGER PRIMARY KEY,
    ticket_id   INTEGER NOT NULL REFERENCES tickets(id),
    agent_id    INTEGER REFERENCES agents(id),
    contact_id  INTEGER REFERENCES contacts(id),
    public      INTEGER NOT NULL CHECK (public IN (0, 1)),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 5000),
    created_at  TEXT NOT NULL,
    CHECK ((agent_id IS NULL) <> (contact_id IS NULL)),
    CHECK (contact_id IS NULL OR public = 1)
);

CREATE TABLE tags (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE CHECK (name = lower(name) AND name NOT LIKE '% %')
);

CREATE TABLE ticket_tags (
    id          INTEGER PRIMARY KEY,
    ticket_id   INTEGER NOT NULL REFERENCES tickets(id),
    tag_id      INTEGER NOT NULL REFERENCES tags(id),
    UNIQUE (ticket_id, tag_id)
);

-- Canned responses: applying one posts its reply publicly and sets the fields it names.
-- team_id NULL: usable by every team.
CREATE TABLE macros (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    reply           TEXT NOT NULL,
    set_status      TEXT CHECK (set_status IN ('open', 'pending', 'on_hold', 'solved')),
    set_priority    TEXT CHECK (set_priority IN ('low', 'normal', 'high', 'urgent')),
    add_tag_id      INTEGER REFERENCES tags(id),
    team_id         INTEGER REFERENCES teams(id),
    is_active       INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

CREATE TABLE satisfaction_surveys (
    id          INTEGER PRIMARY KEY,
    ticket_id   INTEGER NOT NULL UNIQUE REFERENCES tickets(id),
    contact_id  INTEGER NOT NULL REFERENCES contacts(id),
    rating      TEXT NOT NULL CHECK (rating IN ('good', 'bad')),
    comment     TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);

CREATE TABLE invoices (
    id              INTEGER PRIMARY KEY,
    number          TEXT NOT NULL UNIQUE,
    org_id          INTEGER NOT NULL REFERENCES organizations(id),
    period          TEXT NOT NULL,
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    status          TEXT NOT NULL CHECK (status IN ('open', 'paid')),
    issued_on       TEXT NOT NULL,
    UNIQUE (org_id, period)
);

-- kind 'refund' returns money on a paid invoice; 'credit' is taken off future invoices. Both count against the
-- invoice's amount. status 'pending_approval' waits for an agent whose role limit covers the amount.
CREATE TABLE refunds (
    id              INTEGER PRIMARY KEY,
    number          TEXT NOT NULL UNIQUE,
    invoice_id      INTEGER NOT NULL REFERENCES invoices(id),
    ticket_id       INTEGER REFERENCES tickets(id),
    kind            TEXT NOT NULL CHECK (kind IN ('refund', 'credit')),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    reason          TEXT NOT NULL CHECK (length(reason) BETWEEN 3 AND 500),
    status          TEXT NOT NULL CHECK (status IN ('pending_approval', 'issued', 'rejected')),
    requested_by    INTEGER NOT NULL REFERENCES agents(id),
    approved_by     INTEGER REFERENCES agents(id),
    created_at      TEXT NOT NULL,
    decided_at      TEXT,
    CHECK ((status = 'pending_approval') = (decided_at IS NULL)),
    CHECK (approved_by IS NULL OR approved_by <> requested_by)
);

CREATE TABLE kb_articles (
    id              INTEGER PRIMARY KEY,
    number          TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    section         TEXT NOT NULL,
    body            TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('draft', 'published', 'archived')),
    author_id       INTEGER NOT NULL REFERENCES agents(id),
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);

-- One vote per contact and article.
CREATE TABLE kb_feedback (
    id          INTEGER PRIMARY KEY,
    article_id  INTEGER NOT NULL REFERENCES kb_articles(id),
    contact_id  INTEGER NOT NULL REFERENCES contacts(id),
    helpful     INTEGER NOT NULL CHECK (helpful IN (0, 1)),
    comment     TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    UNIQUE (article_id, contact_id)
);

CREATE INDEX idx_contacts_org ON contacts(org_id);
CREATE INDEX idx_tickets_org ON tickets(org_id, status);
CREATE INDEX idx_tickets_team ON tickets(team_id, status);
CREATE INDEX idx_tickets_assignee ON tickets(assignee_id, status);
CREATE INDEX idx_comments_ticket ON ticket_comments(ticket_id, created_at);
CREATE INDEX idx_refunds_invoice ON refunds(invoice_id);
CREATE INDEX idx_invoices_org ON invoices(org_id);
