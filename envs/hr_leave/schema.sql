-- hr_leave: an HR system (employees, leave, approvals, expenses, timesheets, onboarding).
-- Timestamps are ISO-8601 text without time zone, dates "YYYY-MM-DD". Money is integer cents.
-- Leave is counted in working days: Monday to Friday, minus the public holidays of the employee's country.

CREATE TABLE locations (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    city            TEXT NOT NULL,
    country_code    TEXT NOT NULL CHECK (length(country_code) = 2)
);

CREATE TABLE public_holidays (
    id              INTEGER PRIMARY KEY,
    country_code    TEXT NOT NULL CHECK (length(country_code) = 2),
    holiday_date    TEXT NOT NULL,
    name            TEXT NOT NULL,
    UNIQUE (country_code, holiday_date)
);

CREATE TABLE departments (
    id              INTEGER PRIMARY KEY,
    code            TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL UNIQUE,
    cost_center     TEXT NOT NULL UNIQUE
);

CREATE TABLE job_titles (
    id                      INTEGER PRIMARY KEY,
    title                   TEXT NOT NULL UNIQUE,
    grade                   INTEGER NOT NULL CHECK (grade BETWEEN 1 AND 9),
    expense_limit_cents     INTEGER NOT NULL CHECK (expense_limit_cents >= 0)
);

CREATE TABLE employees (
    id              INTEGER PRIMARY KEY,
    employee_no     TEXT NOT NULL UNIQUE,
    full_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    department_id   INTEGER NOT NULL REFERENCES departments(id),
    job_title_id    INTEGER NOT NULL REFERENCES job_titles(id),
    manager_id      INTEGER REFERENCES employees(id),
    location_id     INTEGER NOT NULL REFERENCES locations(id),
    is_hr           INTEGER NOT NULL DEFAULT 0 CHECK (is_hr IN (0, 1)),
    hire_date       TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('active', 'terminated')),
    CHECK (manager_id IS NULL OR manager_id <> id)
);

CREATE TABLE leave_types (
    id                      INTEGER PRIMARY KEY,
    code                    TEXT NOT NULL UNIQUE CHECK (code IN ('annual', 'sick', 'parental', 'unpaid')),
    name                    TEXT NOT NULL,
    paid                    INTEGER NOT NULL CHECK (paid IN (0, 1)),
    yearly_entitlement_days INTEGER NOT NULL CHECK (yearly_entitlement_days >= 0),
    carry_over_cap_days     INTEGER NOT NULL CHECK (carry_over_cap_days >= 0),
    min_notice_days         INTEGER NOT NULL CHECK (min_notice_days >= 0),
    blackout_applies        INTEGER NOT NULL CHECK (blackout_applies IN (0, 1))
);

-- days available = entitled_days + carried_over_days - used_days - pending_days
CREATE TABLE leave_balances (
    id                  INTEGER PRIMARY KEY,
    employee_id         INTEGER NOT NULL REFERENCES employees(id),
    leave_type_id       INTEGER NOT NULL REFERENCES leave_types(id),
    year                INTEGER NOT NULL CHECK (year BETWEEN 2020 AND 2030),
    entitled_days       INTEGER NOT NULL CHECK (entitled_days >= 0),
    carried_over_days   INTEGER NOT NULL DEFAULT 0 CHECK (carried_over_days >= 0),
    used_days           INTEGER NOT NULL DEFAULT 0 CHECK (used_days >= 0),
    pending_days        INTEGER NOT NULL DEFAULT 0 CHECK (pending_days >= 0),
    UNIQUE (employee_id, leave_type_id, year),
    CHECK (used_days + pending_days <= entitled_days + carried_over_days)
);

CREATE TABLE leave_requests (
    id              INTEGER PRIMARY KEY,
    employee_id     INTEGER NOT NULL REFERENCES employees(id),
    leave_type_id   INTEGER NOT NULL REFERENCES leave_types(id),
    start_date      TEXT NOT NULL,
    end_date        TEXT NOT NULL,
    working_days    INTEGER NOT NULL CHECK (working_days >= 1),
    reason          TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL CHECK (status IN ('draft', 'submitted', 'approved', 'rejected', 'cancelled')),
    created_at      TEXT NOT NULL,
    submitted_at    TEXT,
    decided_by      INTEGER REFERENCES employees(id),
    decided_at      TEXT,
    decision_note   TEXT,
    cancelled_at    TEXT,
    CHECK (end_date >= start_date),
    CHECK (substr(start_date, 1, 4) = substr(end_date, 1, 4)),
    CHECK ((status = 'draft') = (submitted_at IS NULL) OR status = 'cancelled'),
    CHECK ((status IN ('approved', 'rejected')) <= (decided_at IS NOT NULL)),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);

CREATE TABLE blackout_periods (
    id              INTEGER PRIMARY KEY,
    department_id   INTEGER NOT NULL REFERENCES departments(id),
    start_date      TEXT NOT NULL,
    end_date        TEXT NOT NULL,
    reason          TEXT NOT NULL,
    CHECK (end_date >= start_date)
);

CREATE TABLE delegations (
    id              INTEGER PRIMARY KEY,
    manager_id      INTEGER NOT NULL REFERENCES employees(id),
    delegate_id     INTEGER NOT NULL REFERENCES employees(id),
    start_date      TEXT NOT NULL,
    end_date        TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    revoked_at      TEXT,
    CHECK (manager_id <> delegate_id),
    CHECK (end_date >= start_date)
);

CREATE TABLE expense_categories (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL,
    per_claim_cap_cents INTEGER NOT NULL CHECK (per_claim_cap_cents > 0)
);

CREATE TABLE expense_claims (
    id              INTEGER PRIMARY KEY,
    employee_id     INTEGER NOT NULL REFERENCES employees(id),
    category_id     INTEGER NOT NULL REFERENCES expense_categories(id),
    expense_date    TEXT NOT NULL,
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    description     TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('submitted', 'approved', 'rejected', 'paid')),
    submitted_at    TEXT NOT NULL,
    decided_by      INTEGER REFERENCES employees(id),
    decided_at      TEXT,
    decision_note   TEXT,
    CHECK ((status = 'submitted') = (decided_at IS NULL)),
    CHECK ((decided_at IS NULL) = (decided_by IS NULL))
);

CREATE TABLE projects (
    id              INTEGER PRIMARY KEY,
    code            TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    department_id   INTEGER NOT NULL REFERENCES departments(id),
    is_active       INTEGER NOT NULL CHECK (is_active IN (0, 1))
);

CREATE TABLE timesheets (
    id              INTEGER PRIMARY KEY,
    employee_id     INTEGER NOT NULL REFERENCES employees(id),
    week_start      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('open', 'submitted', 'approved')),
    submitted_at    TEXT,
    approved_by     INTEGER REFERENCES employees(id),
    approved_at     TEXT,
    UNIQUE (employee_id, week_start),
    CHECK (strftime('%w', week_start) = '1'),
    CHECK ((status = 'open') = (submitted_at IS NULL)),
    CHECK ((status = 'approved') = (approved_at IS NOT NULL))
);

CREATE TABLE timesheet_entries (
    id              INTEGER PRIMARY KEY,
    timesheet_id    INTEGER NOT NULL REFERENCES timesheets(id),
    work_date       TEXT NOT NULL,
    project_id      INTEGER NOT NULL REFERENCES projects(id),
    hours           REAL NOT NULL CHECK (hours > 0 AND hours <= 12 AND hours * 4 = CAST(hours * 4 AS INTEGER)),
    note            TEXT NOT NULL DEFAULT ''
);

CREATE TABLE onboarding_tasks (
    id              INTEGER PRIMARY KEY,
    employee_id     INTEGER NOT NULL REFERENCES employees(id),
    title           TEXT NOT NULL,
    owner_id        INTEGER NOT NULL REFERENCES employees(id),
    due_date        TEXT NOT NULL,
    completed_at    TEXT,
    completed_by    INTEGER REFERENCES employees(id),
    UNIQUE (employee_id, title),
    CHECK ((completed_at IS NULL) = (completed_by IS NULL))
);

CREATE INDEX idx_emp_manager ON employees(manager_id);
CREATE INDEX idx_requests_emp ON leave_requests(employee_id, status);
CREATE INDEX idx_claims_emp ON expense_claims(employee_id, status);
CREATE INDEX idx_entries_ts ON timesheet_entries(timesheet_id, work_date);
