-- event_ticketing: a ticketing platform (venues with sections and seats, organisers, events, price tiers,
-- orders with tickets, promo codes, transfers, refunds, waitlists and gate scans).
-- Timestamps are ISO-8601 text without time zone ("2026-06-20T19:00:00"). Money is integer cents.

CREATE TABLE venues (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    city        TEXT NOT NULL,
    address     TEXT NOT NULL
);

-- A seated section has numbered seats; a standing section has a capacity and no seats.
CREATE TABLE venue_sections (
    id          INTEGER PRIMARY KEY,
    venue_id    INTEGER NOT NULL REFERENCES venues(id),
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('seated', 'standing')),
    capacity    INTEGER NOT NULL CHECK (capacity > 0),
    UNIQUE (venue_id, name)
);

CREATE TABLE seats (
    id          INTEGER PRIMARY KEY,
    section_id  INTEGER NOT NULL REFERENCES venue_sections(id),
    row_label   TEXT NOT NULL,
    seat_number INTEGER NOT NULL CHECK (seat_number >= 1),
    accessible  INTEGER NOT NULL DEFAULT 0 CHECK (accessible IN (0, 1)),
    UNIQUE (section_id, row_label, seat_number)
);

CREATE TABLE organisers (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    contact_email TEXT NOT NULL UNIQUE
);

CREATE TABLE organiser_staff (
    id              INTEGER PRIMARY KEY,
    organiser_id    INTEGER NOT NULL REFERENCES organisers(id),
    full_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    role            TEXT NOT NULL CHECK (role IN ('manager', 'gate'))
);

CREATE TABLE customers (
    id          INTEGER PRIMARY KEY,
    email       TEXT NOT NULL UNIQUE,
    full_name   TEXT NOT NULL,
    phone       TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE events (
    id                  INTEGER PRIMARY KEY,
    organiser_id        INTEGER NOT NULL REFERENCES organisers(id),
    venue_id            INTEGER NOT NULL REFERENCES venues(id),
    title               TEXT NOT NULL,
    category            TEXT NOT NULL CHECK (category IN ('concert', 'theatre', 'comedy', 'sports', 'talk')),
    starts_at           TEXT NOT NULL,
    doors_at            TEXT NOT NULL,
    original_starts_at  TEXT,
    status              TEXT NOT NULL CHECK (status IN ('on_sale', 'sold_out', 'postponed', 'cancelled', 'completed')),
    per_customer_limit  INTEGER NOT NULL CHECK (per_customer_limit BETWEEN 1 AND 10),
    refund_policy       TEXT NOT NULL CHECK (refund_policy IN ('no_refunds', 'until_7_days', 'until_24_hours')),
    cancel_reason       TEXT,
    CHECK (doors_at < starts_at),
    CHECK ((status = 'cancelled') = (cancel_reason IS NOT NULL)),
    CHECK (status <> 'postponed' OR original_starts_at IS NOT NULL)
);

-- One price per section of the venue for an event.
CREATE TABLE price_tiers (
    id          INTEGER PRIMARY KEY,
    event_id    INTEGER NOT NULL REFERENCES events(id),
    section_id  INTEGER NOT NULL REFERENCES venue_sections(id),
    name        TEXT NOT NULL,
    price_cents INTEGER NOT NULL CHECK (price_cents > 0),
    UNIQUE (event_id, section_id)
);

CREATE TABLE promo_codes (
    id              INTEGER PRIMARY KEY,
    code            TEXT NOT NULL UNIQUE CHECK (code = upper(code)),
    event_id        INTEGER NOT NULL REFERENCES events(id),
    discount_pct    INTEGER NOT NULL CHECK (discount_pct BETWEEN 5 AND 50),
    max_uses        INTEGER NOT NULL CHECK (max_uses >= 1),
    uses            INTEGER NOT NULL DEFAULT 0 CHECK (uses >= 0),
    valid_from      TEXT NOT NULL,
    valid_until     TEXT NOT NULL,
    active          INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    CHECK (uses <= max_uses),
    CHECK (valid_until > valid_from)
);

CREATE TABLE orders (
    id                  INTEGER PRIMARY KEY,
    order_number        TEXT NOT NULL UNIQUE,
    customer_id         INTEGER NOT NULL REFERENCES customers(id),
    event_id            INTEGER NOT NULL REFERENCES events(id),
    status              TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'partially_refunded', 'refunded', 'cancelled')),
    promo_code_id       INTEGER REFERENCES promo_codes(id),
    created_at          TEXT NOT NULL,
    hold_expires_at     TEXT,
    paid_at             TEXT,
    CHECK ((status = 'pending') = (hold_expires_at IS NOT NULL)),
    CHECK ((status IN ('paid', 'partially_refunded', 'refunded')) = (paid_at IS NOT NULL))
);

-- price, discount and service fee per ticket; holder is who owns it now (after transfers).
CREATE TABLE tickets (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE,
    order_id            INTEGER NOT NULL REFERENCES orders(id),
    event_id            INTEGER NOT NULL REFERENCES events(id),
    price_tier_id       INTEGER NOT NULL REFERENCES price_tiers(id),
    seat_id             INTEGER REFERENCES seats(id),
    holder_id           INTEGER NOT NULL REFERENCES customers(id),
    status              TEXT NOT NULL CHECK (status IN ('held', 'valid', 'refunded', 'cancelled')),
    price_cents         INTEGER NOT NULL CHECK (price_cents > 0),
    discount_cents      INTEGER NOT NULL DEFAULT 0 CHECK (discount_cents >= 0),
    fee_cents           INTEGER NOT NULL CHECK (fee_cents >= 0),
    scanned_at          TEXT,
    CHECK (discount_cents <= price_cents),
    CHECK (scanned_at IS NULL OR status = 'valid')
);
-- a seat is sold (or held) at most once per event
CREATE UNIQUE INDEX idx_live_seat ON tickets(event_id, seat_id) WHERE seat_id IS NOT NULL AND status IN ('held', 'valid');

CREATE TABLE transfers (
    id              INTEGER PRIMARY KEY,
    ticket_id       INTEGER NOT NULL REFERENCES tickets(id),
    from_customer_id INTEGER NOT NULL REFERENCES customers(id),
    to_customer_id  INTEGER NOT NULL REFERENCES customers(id),
    old_code        TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    CHECK (from_customer_id <> to_customer_id)
);

CREATE TABLE refunds (
    id              INTEGER PRIMARY KEY,
    order_id        INTEGER NOT NULL REFERENCES orders(id),
    ticket_id       INTEGER NOT NULL UNIQUE REFERENCES tickets(id),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents >= 0),
    reason          TEXT NOT NULL CHECK (reason IN ('customer_request', 'event_cancelled', 'event_postponed')),
    created_at      TEXT NOT NULL
);

CREATE TABLE waitlist_entries (
    id              INTEGER PRIMARY KEY,
    event_id        INTEGER NOT NULL REFERENCES events(id),
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    quantity        INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 10),
    status          TEXT NOT NULL CHECK (status IN ('waiting', 'removed')),
    created_at      TEXT NOT NULL,
    UNIQUE (event_id, customer_id)
);

CREATE TABLE scans (
    id              INTEGER PRIMARY KEY,
    ticket_id       INTEGER NOT NULL UNIQUE REFERENCES tickets(id),
    staff_id        INTEGER NOT NULL REFERENCES organiser_staff(id),
    gate            TEXT NOT NULL,
    scanned_at      TEXT NOT NULL
);

CREATE INDEX idx_tickets_event ON tickets(event_id, status);
CREATE INDEX idx_tickets_holder ON tickets(holder_id);
CREATE INDEX idx_orders_customer ON orders(customer_id);
CREATE INDEX idx_events_start ON events(starts_at);
