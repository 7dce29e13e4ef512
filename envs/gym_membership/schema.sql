-- gym_membership: a gym chain (clubs, plans, members, classes, personal training, billing).
-- Timestamps are ISO-8601 text without time zone, dates "YYYY-MM-DD". Money is integer cents.

CREATE TABLE clubs (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    city        TEXT NOT NULL,
    address     TEXT NOT NULL,
    phone       TEXT NOT NULL,
    opens_at    TEXT NOT NULL,
    closes_at   TEXT NOT NULL
);

CREATE TABLE membership_plans (
    id                      INTEGER PRIMARY KEY,
    code                    TEXT NOT NULL UNIQUE,
    name                    TEXT NOT NULL UNIQUE,
    monthly_fee_cents       INTEGER NOT NULL CHECK (monthly_fee_cents > 0),
    access                  TEXT NOT NULL CHECK (access IN ('home', 'all')),
    includes_classes        INTEGER NOT NULL CHECK (includes_classes IN (0, 1)),
    guest_passes_per_month  INTEGER NOT NULL CHECK (guest_passes_per_month >= 0),
    freeze_days_per_year    INTEGER NOT NULL CHECK (freeze_days_per_year >= 0),
    min_term_months         INTEGER NOT NULL CHECK (min_term_months >= 0)
);

CREATE TABLE members (
    id              INTEGER PRIMARY KEY,
    first_name      TEXT NOT NULL,
    last_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    phone           TEXT NOT NULL,
    date_of_birth   TEXT NOT NULL,
    home_club_id    INTEGER NOT NULL REFERENCES clubs(id),
    created_at      TEXT NOT NULL
);

CREATE TABLE memberships (
    id                  INTEGER PRIMARY KEY,
    member_id           INTEGER NOT NULL REFERENCES members(id),
    plan_id             INTEGER NOT NULL REFERENCES membership_plans(id),
    status              TEXT NOT NULL CHECK (status IN ('active', 'frozen', 'cancelled')),
    start_date          TEXT NOT NULL,
    next_billing_date   TEXT,
    frozen_until        TEXT,
    cancelled_on        TEXT,
    cancel_reason       TEXT,
    CHECK ((status = 'frozen') = (frozen_until IS NOT NULL)),
    CHECK ((status = 'cancelled') = (cancelled_on IS NOT NULL)),
    CHECK ((status = 'cancelled') = (next_billing_date IS NULL))
);

CREATE TABLE membership_freezes (
    id              INTEGER PRIMARY KEY,
    membership_id   INTEGER NOT NULL REFERENCES memberships(id),
    start_date      TEXT NOT NULL,
    end_date        TEXT NOT NULL,
    days            INTEGER NOT NULL CHECK (days > 0),
    created_at      TEXT NOT NULL,
    CHECK (end_date > start_date)
);

CREATE TABLE staff (
    id          INTEGER PRIMARY KEY,
    club_id     INTEGER NOT NULL REFERENCES clubs(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL CHECK (role IN ('manager', 'front_desk', 'trainer')),
    specialty   TEXT,
    pt_rate_cents INTEGER CHECK (pt_rate_cents IS NULL OR pt_rate_cents > 0),
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    CHECK ((role = 'trainer') = (pt_rate_cents IS NOT NULL))
);

CREATE TABLE class_types (
    id              INTEGER PRIMARY KEY,
    code            TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL UNIQUE,
    duration_min    INTEGER NOT NULL CHECK (duration_min BETWEEN 15 AND 120),
    intensity       TEXT NOT NULL CHECK (intensity IN ('low', 'medium', 'high')),
    description     TEXT NOT NULL DEFAULT ''
);

CREATE TABLE class_sessions (
    id              INTEGER PRIMARY KEY,
    class_type_id   INTEGER NOT NULL REFERENCES class_types(id),
    club_id         INTEGER NOT NULL REFERENCES clubs(id),
    trainer_id      INTEGER NOT NULL REFERENCES staff(id),
    starts_at       TEXT NOT NULL,
    room            TEXT NOT NULL,
    capacity        INTEGER NOT NULL CHECK (capacity BETWEEN 1 AND 60),
    status          TEXT NOT NULL CHECK (status IN ('scheduled', 'cancelled', 'completed')),
    cancel_reason   TEXT,
    CHECK ((status = 'cancelled') = (cancel_reason IS NOT NULL))
);

-- A booking is either a place (booked) or a waitlist entry (waitlisted, with its position).
CREATE TABLE class_bookings (
    id                  INTEGER PRIMARY KEY,
    session_id          INTEGER NOT NULL REFERENCES class_sessions(id),
    member_id           INTEGER NOT NULL REFERENCES members(id),
    status              TEXT NOT NULL CHECK (status IN ('booked', 'waitlisted', 'cancelled', 'attended', 'no_show')),
    waitlist_position   INTEGER CHECK (waitlist_position IS NULL OR waitlist_position >= 1),
    created_at          TEXT NOT NULL,
    cancelled_at        TEXT,
    UNIQUE (session_id, member_id),
    CHECK ((status = 'waitlisted') = (waitlist_position IS NOT NULL)),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);

CREATE TABLE pt_packages (
    id                  INTEGER PRIMARY KEY,
    member_id           INTEGER NOT NULL REFERENCES members(id),
    trainer_id          INTEGER NOT NULL REFERENCES staff(id),
    sessions_total      INTEGER NOT NULL CHECK (sessions_total IN (5, 10, 20)),
    sessions_remaining  INTEGER NOT NULL CHECK (sessions_remaining >= 0),
    price_cents         INTEGER NOT NULL CHECK (price_cents > 0),
    purchased_on        TEXT NOT NULL,
    expires_on          TEXT NOT NULL,
    CHECK (sessions_remaining <= sessions_total),
    CHECK (expires_on > purchased_on)
);

-- Booking a session uses one of the package's sessions; cancelling 24 hours ahead gives it back.
CREATE TABLE pt_sessions (
    id          INTEGER PRIMARY KEY,
    package_id  INTEGER NOT NULL REFERENCES pt_packages(id),
    starts_at   TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('scheduled', 'completed', 'cancelled', 'forfeited')),
    created_at  TEXT NOT NULL
);

CREATE TABLE check_ins (
    id              INTEGER PRIMARY KEY,
    member_id       INTEGER NOT NULL REFERENCES members(id),
    club_id         INTEGER NOT NULL REFERENCES clubs(id),
    staff_id        INTEGER REFERENCES staff(id),
    checked_in_at   TEXT NOT NULL
);

CREATE TABLE invoices (
    id              INTEGER PRIMARY KEY,
    number          TEXT NOT NULL UNIQUE,
    member_id       INTEGER NOT NULL REFERENCES members(id),
    kind            TEXT NOT NULL CHECK (kind IN ('monthly_fee', 'pt_package', 'locker', 'freeze_fee',
                        'late_cancellation', 'early_termination', 'guest_pass')),
    description     TEXT NOT NULL,
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    issued_on       TEXT NOT NULL,
    due_on          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('open', 'paid', 'void')),
    paid_at         TEXT,
    payment_method  TEXT CHECK (payment_method IS NULL OR payment_method IN ('card', 'cash', 'bank_transfer')),
    CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
    CHECK ((status = 'paid') = (payment_method IS NOT NULL)),
    CHECK (due_on >= issued_on)
);

CREATE TABLE lockers (
    id          INTEGER PRIMARY KEY,
    club_id     INTEGER NOT NULL REFERENCES clubs(id),
    number      TEXT NOT NULL,
    size        TEXT NOT NULL CHECK (size IN ('small', 'large')),
    monthly_fee_cents INTEGER NOT NULL CHECK (monthly_fee_cents > 0),
    out_of_service INTEGER NOT NULL DEFAULT 0 CHECK (out_of_service IN (0, 1)),
    UNIQUE (club_id, number)
);

CREATE TABLE locker_rentals (
    id          INTEGER PRIMARY KEY,
    locker_id   INTEGER NOT NULL REFERENCES lockers(id),
    member_id   INTEGER NOT NULL REFERENCES members(id),
    start_date  TEXT NOT NULL,
    end_date    TEXT,
    status      TEXT NOT NULL CHECK (status IN ('active', 'ended')),
    CHECK ((status = 'ended') = (end_date IS NOT NULL))
);

CREATE TABLE guest_passes (
    id          INTEGER PRIMARY KEY,
    member_id   INTEGER NOT NULL REFERENCES members(id),
    club_id     INTEGER NOT NULL REFERENCES clubs(id),
    guest_name  TEXT NOT NULL,
    visit_date  TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE INDEX idx_memberships_member ON memberships(member_id, status);
CREATE INDEX idx_sessions_club ON class_sessions(club_id, starts_at);
CREATE INDEX idx_bookings_session ON class_bookings(session_id, status);
CREATE INDEX idx_invoices_member ON invoices(member_id, status);
CREATE INDEX idx_checkins_member ON check_ins(member_id, checked_in_at);
