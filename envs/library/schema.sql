-- library: a public library system with several branches.
-- Timestamps are ISO-8601 text without time zone ("2026-04-15T10:00:00"), dates are "YYYY-MM-DD".
-- Money is integer cents.

CREATE TABLE branches (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE CHECK (length(code) BETWEEN 2 AND 5),
    name        TEXT NOT NULL UNIQUE,
    address     TEXT NOT NULL,
    phone       TEXT NOT NULL,
    opens_at    TEXT NOT NULL CHECK (opens_at GLOB '[0-2][0-9]:[0-5][0-9]'),
    closes_at   TEXT NOT NULL CHECK (closes_at GLOB '[0-2][0-9]:[0-5][0-9]'),
    CHECK (closes_at > opens_at)
);

CREATE TABLE staff (
    id          INTEGER PRIMARY KEY,
    branch_id   INTEGER NOT NULL REFERENCES branches(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL CHECK (role IN ('clerk', 'librarian', 'manager')),
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

CREATE TABLE authors (
    id          INTEGER PRIMARY KEY,
    full_name   TEXT NOT NULL,
    birth_year  INTEGER CHECK (birth_year IS NULL OR birth_year BETWEEN 1500 AND 2010)
);

CREATE TABLE works (
    id              INTEGER PRIMARY KEY,
    title           TEXT NOT NULL,
    author_id       INTEGER NOT NULL REFERENCES authors(id),
    genre           TEXT NOT NULL CHECK (genre IN ('fiction', 'mystery', 'science_fiction', 'fantasy', 'romance',
                        'biography', 'history', 'science', 'children', 'poetry', 'cooking', 'travel')),
    first_published INTEGER NOT NULL CHECK (first_published BETWEEN 1500 AND 2026),
    audience        TEXT NOT NULL CHECK (audience IN ('adult', 'teen', 'children')),
    UNIQUE (title, author_id)
);

CREATE TABLE editions (
    id          INTEGER PRIMARY KEY,
    work_id     INTEGER NOT NULL REFERENCES works(id),
    isbn        TEXT NOT NULL UNIQUE CHECK (length(isbn) = 13),
    format      TEXT NOT NULL CHECK (format IN ('hardcover', 'paperback', 'large_print', 'audiobook_cd')),
    publisher   TEXT NOT NULL,
    year        INTEGER NOT NULL CHECK (year BETWEEN 1500 AND 2026),
    pages       INTEGER CHECK (pages IS NULL OR pages > 0)
);

-- A physical item. branch_id is the owning branch (where it is shelved); an item in transit keeps the
-- sending branch until it is received.
CREATE TABLE copies (
    id              INTEGER PRIMARY KEY,
    edition_id      INTEGER NOT NULL REFERENCES editions(id),
    branch_id       INTEGER NOT NULL REFERENCES branches(id),
    barcode         TEXT NOT NULL UNIQUE CHECK (length(barcode) = 8),
    status          TEXT NOT NULL CHECK (status IN ('available', 'on_loan', 'on_hold_shelf', 'in_transit',
                        'in_repair', 'lost')),
    price_cents     INTEGER NOT NULL CHECK (price_cents > 0),
    acquired_on     TEXT NOT NULL
);

-- Borrowing rules per card type.
CREATE TABLE card_types (
    id                      INTEGER PRIMARY KEY,
    code                    TEXT NOT NULL UNIQUE,
    name                    TEXT NOT NULL,
    loan_limit              INTEGER NOT NULL CHECK (loan_limit > 0),
    loan_days               INTEGER NOT NULL CHECK (loan_days > 0),
    max_renewals            INTEGER NOT NULL CHECK (max_renewals >= 0),
    hold_limit              INTEGER NOT NULL CHECK (hold_limit > 0),
    fine_per_day_cents      INTEGER NOT NULL CHECK (fine_per_day_cents >= 0),
    max_fine_per_item_cents INTEGER NOT NULL CHECK (max_fine_per_item_cents >= 0),
    block_threshold_cents   INTEGER NOT NULL CHECK (block_threshold_cents > 0)
);

CREATE TABLE patrons (
    id              INTEGER PRIMARY KEY,
    card_number     TEXT NOT NULL UNIQUE CHECK (length(card_number) = 10),
    full_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    phone           TEXT NOT NULL,
    card_type_id    INTEGER NOT NULL REFERENCES card_types(id),
    home_branch_id  INTEGER NOT NULL REFERENCES branches(id),
    status          TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    expires_on      TEXT NOT NULL,
    joined_on       TEXT NOT NULL,
    CHECK (expires_on > joined_on)
);

CREATE TABLE loans (
    id              INTEGER PRIMARY KEY,
    copy_id         INTEGER NOT NULL REFERENCES copies(id),
    patron_id       INTEGER NOT NULL REFERENCES patrons(id),
    branch_id       INTEGER NOT NULL REFERENCES branches(id),
    checked_out_by  INTEGER NOT NULL REFERENCES staff(id),
    checked_out_at  TEXT NOT NULL,
    due_date        TEXT NOT NULL,
    renewals        INTEGER NOT NULL DEFAULT 0 CHECK (renewals >= 0),
    status          TEXT NOT NULL CHECK (status IN ('active', 'returned', 'lost')),
    returned_at     TEXT,
    returned_by     INTEGER REFERENCES staff(id),
    CHECK ((status = 'returned') = (returned_at IS NOT NULL)),
    CHECK (due_date > substr(checked_out_at, 1, 10))
);

-- Holds queue per work: placed -> ready (a copy waits on the pickup branch's hold shelf) -> collected,
-- or expired / cancelled.
CREATE TABLE holds (
    id                  INTEGER PRIMARY KEY,
    work_id             INTEGER NOT NULL REFERENCES works(id),
    patron_id           INTEGER NOT NULL REFERENCES patrons(id),
    pickup_branch_id    INTEGER NOT NULL REFERENCES branches(id),
    status              TEXT NOT NULL CHECK (status IN ('placed', 'ready', 'collected', 'expired', 'cancelled')),
    placed_at           TEXT NOT NULL,
    copy_id             INTEGER REFERENCES copies(id),
    ready_at            TEXT,
    pickup_by           TEXT,
    closed_at           TEXT,
    CHECK (status NOT IN ('ready', 'collected') OR copy_id IS NOT NULL),
    CHECK (status <> 'ready' OR (ready_at IS NOT NULL AND pickup_by IS NOT NULL)),
    CHECK ((status IN ('collected', 'expired', 'cancelled')) = (closed_at IS NOT NULL))
);

CREATE TABLE fines (
    id              INTEGER PRIMARY KEY,
    patron_id       INTEGER NOT NULL REFERENCES patrons(id),
    loan_id         INTEGER REFERENCES loans(id),
    kind            TEXT NOT NULL CHECK (kind IN ('overdue', 'lost_item', 'damage')),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    paid_cents      INTEGER NOT NULL DEFAULT 0 CHECK (paid_cents >= 0),
    status          TEXT NOT NULL CHECK (status IN ('open', 'paid', 'waived')),
    created_at      TEXT NOT NULL,
    waived_by       INTEGER REFERENCES staff(id),
    waive_reason    TEXT,
    CHECK (paid_cents <= amount_cents),
    CHECK ((status = 'paid') = (paid_cents = amount_cents)),
    CHECK ((status = 'waived') = (waived_by IS NOT NULL))
);

CREATE TABLE payments (
    id              INTEGER PRIMARY KEY,
    fine_id         INTEGER NOT NULL REFERENCES fines(id),
    patron_id       INTEGER NOT NULL REFERENCES patrons(id),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    method          TEXT NOT NULL CHECK (method IN ('cash', 'card')),
    staff_id        INTEGER NOT NULL REFERENCES staff(id),
    paid_at         TEXT NOT NULL
);

CREATE TABLE transfers (
    id              INTEGER PRIMARY KEY,
    copy_id         INTEGER NOT NULL REFERENCES copies(id),
    from_branch_id  INTEGER NOT NULL REFERENCES branches(id),
    to_branch_id    INTEGER NOT NULL REFERENCES branches(id),
    status          TEXT NOT NULL CHECK (status IN ('in_transit', 'received')),
    sent_by         INTEGER NOT NULL REFERENCES staff(id),
    sent_at         TEXT NOT NULL,
    received_by     INTEGER REFERENCES staff(id),
    received_at     TEXT,
    CHECK (from_branch_id <> to_branch_id),
    CHECK ((status = 'received') = (received_at IS NOT NULL))
);

CREATE TABLE rooms (
    id          INTEGER PRIMARY KEY,
    branch_id   INTEGER NOT NULL REFERENCES branches(id),
    name        TEXT NOT NULL,
    capacity    INTEGER NOT NULL CHECK (capacity > 0),
    UNIQUE (branch_id, name)
);

CREATE TABLE room_bookings (
    id          INTEGER PRIMARY KEY,
    room_id     INTEGER NOT NULL REFERENCES rooms(id),
    patron_id   INTEGER NOT NULL REFERENCES patrons(id),
    starts_at   TEXT NOT NULL,
    ends_at     TEXT NOT NULL,
    attendees   INTEGER NOT NULL CHECK (attendees > 0),
    purpose     TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('booked', 'cancelled')),
    created_at  TEXT NOT NULL,
    CHECK (ends_at > starts_at)
);

CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    branch_id   INTEGER NOT NULL REFERENCES branches(id),
    title       TEXT NOT NULL,
    audience    TEXT NOT NULL CHECK (audience IN ('all', 'adult', 'teen', 'children')),
    starts_at   TEXT NOT NULL,
    ends_at     TEXT NOT NULL,
    capacity    INTEGER NOT NULL CHECK (capacity > 0),
    status      TEXT NOT NULL CHECK (status IN ('scheduled', 'cancelled')),
    CHECK (ends_at > starts_at)
);

CREATE TABLE event_registrations (
    id              INTEGER PRIMARY KEY,
    event_id        INTEGER NOT NULL REFERENCES events(id),
    patron_id       INTEGER NOT NULL REFERENCES patrons(id),
    status          TEXT NOT NULL CHECK (status IN ('registered', 'cancelled')),
    registered_at   TEXT NOT NULL,
    UNIQUE (event_id, patron_id)
);

CREATE TABLE reading_lists (
    id          INTEGER PRIMARY KEY,
    patron_id   INTEGER NOT NULL REFERENCES patrons(id),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
    is_public   INTEGER NOT NULL DEFAULT 0 CHECK (is_public IN (0, 1)),
    created_at  TEXT NOT NULL,
    UNIQUE (patron_id, name)
);

CREATE TABLE reading_list_items (
    id          INTEGER PRIMARY KEY,
    list_id     INTEGER NOT NULL REFERENCES reading_lists(id),
    work_id     INTEGER NOT NULL REFERENCES works(id),
    added_at    TEXT NOT NULL,
    UNIQUE (list_id, work_id)
);

CREATE INDEX idx_copies_edition ON copies(edition_id, branch_id, status);
CREATE INDEX idx_loans_patron ON loans(patron_id, status);
CREATE INDEX idx_loans_copy ON loans(copy_id, status);
CREATE INDEX idx_holds_work ON holds(work_id, status, placed_at);
CREATE INDEX idx_fines_patron ON fines(patron_id, status);
CREATE INDEX idx_bookings_room ON room_bookings(room_id, starts_at);
CREATE INDEX idx_regs_event ON event_registrations(event_id, status);
