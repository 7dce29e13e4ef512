-- hotel: a small hotel chain (hotels, room types, rooms, rate plans, guests, reservations, folios,
-- housekeeping, room service, loyalty points).
-- Timestamps are ISO-8601 text without time zone ("2026-05-14T10:00:00"), dates "YYYY-MM-DD".
-- Money is integer cents. A stay runs from check_in_date (arrival) to check_out_date (departure), nights in between.

CREATE TABLE hotels (
    id                      INTEGER PRIMARY KEY,
    code                    TEXT NOT NULL UNIQUE CHECK (length(code) = 3),
    name                    TEXT NOT NULL UNIQUE,
    city                    TEXT NOT NULL,
    country                 TEXT NOT NULL,
    tax_pct                 INTEGER NOT NULL CHECK (tax_pct BETWEEN 0 AND 30),
    cancel_deadline_hours   INTEGER NOT NULL CHECK (cancel_deadline_hours IN (24, 48, 72)),
    check_in_time           TEXT NOT NULL DEFAULT '15:00',
    check_out_time          TEXT NOT NULL DEFAULT '11:00'
);

CREATE TABLE room_types (
    id              INTEGER PRIMARY KEY,
    hotel_id        INTEGER NOT NULL REFERENCES hotels(id),
    code            TEXT NOT NULL,
    name            TEXT NOT NULL,
    max_occupancy   INTEGER NOT NULL CHECK (max_occupancy BETWEEN 1 AND 6),
    base_rate_cents INTEGER NOT NULL CHECK (base_rate_cents > 0),
    UNIQUE (hotel_id, code)
);

CREATE TABLE rooms (
    id              INTEGER PRIMARY KEY,
    hotel_id        INTEGER NOT NULL REFERENCES hotels(id),
    room_type_id    INTEGER NOT NULL REFERENCES room_types(id),
    number          TEXT NOT NULL,
    floor           INTEGER NOT NULL CHECK (floor >= 1),
    status          TEXT NOT NULL CHECK (status IN ('clean', 'dirty', 'out_of_order')),
    out_of_order_reason TEXT,
    UNIQUE (hotel_id, number),
    CHECK ((status = 'out_of_order') = (out_of_order_reason IS NOT NULL))
);

CREATE TABLE rate_plans (
    id              INTEGER PRIMARY KEY,
    hotel_id        INTEGER NOT NULL REFERENCES hotels(id),
    code            TEXT NOT NULL,
    name            TEXT NOT NULL,
    refundable      INTEGER NOT NULL CHECK (refundable IN (0, 1)),
    discount_pct    INTEGER NOT NULL CHECK (discount_pct BETWEEN 0 AND 50),
    min_nights      INTEGER NOT NULL CHECK (min_nights BETWEEN 1 AND 14),
    members_only    INTEGER NOT NULL DEFAULT 0 CHECK (members_only IN (0, 1)),
    breakfast       INTEGER NOT NULL DEFAULT 0 CHECK (breakfast IN (0, 1)),
    UNIQUE (hotel_id, code)
);

CREATE TABLE staff (
    id          INTEGER PRIMARY KEY,
    hotel_id    INTEGER NOT NULL REFERENCES hotels(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL CHECK (role IN ('front_desk', 'housekeeping', 'maintenance', 'manager'))
);

CREATE TABLE guests (
    id              INTEGER PRIMARY KEY,
    email           TEXT NOT NULL UNIQUE,
    full_name       TEXT NOT NULL,
    phone           TEXT NOT NULL,
    loyalty_tier    TEXT NOT NULL CHECK (loyalty_tier IN ('none', 'silver', 'gold', 'platinum')),
    points_balance  INTEGER NOT NULL CHECK (points_balance >= 0),
    created_at      TEXT NOT NULL
);

CREATE TABLE reservations (
    id                  INTEGER PRIMARY KEY,
    confirmation_code   TEXT NOT NULL UNIQUE,
    hotel_id            INTEGER NOT NULL REFERENCES hotels(id),
    guest_id            INTEGER NOT NULL REFERENCES guests(id),
    room_type_id        INTEGER NOT NULL REFERENCES room_types(id),
    rate_plan_id        INTEGER NOT NULL REFERENCES rate_plans(id),
    room_id             INTEGER REFERENCES rooms(id),
    check_in_date       TEXT NOT NULL,
    check_out_date      TEXT NOT NULL,
    adults              INTEGER NOT NULL CHECK (adults >= 1),
    children            INTEGER NOT NULL DEFAULT 0 CHECK (children >= 0),
    nightly_rate_cents  INTEGER NOT NULL CHECK (nightly_rate_cents > 0),
    status              TEXT NOT NULL CHECK (status IN ('booked', 'checked_in', 'checked_out', 'cancelled', 'no_show')),
    created_at          TEXT NOT NULL,
    checked_in_at       TEXT,
    checked_out_at      TEXT,
    cancelled_at        TEXT,
    CHECK (check_out_date > check_in_date),
    CHECK ((status IN ('checked_in', 'checked_out')) = (checked_in_at IS NOT NULL)),
    CHECK ((status = 'checked_out') = (checked_out_at IS NOT NULL)),
    CHECK ((status IN ('cancelled', 'no_show')) = (cancelled_at IS NOT NULL)),
    CHECK (status NOT IN ('checked_in', 'checked_out') OR room_id IS NOT NULL)
);

-- One folio (guest bill) per reservation; closed when settled.
CREATE TABLE folios (
    id              INTEGER PRIMARY KEY,
    reservation_id  INTEGER NOT NULL UNIQUE REFERENCES reservations(id),
    status          TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    opened_at       TEXT NOT NULL,
    closed_at       TEXT,
    CHECK ((status = 'closed') = (closed_at IS NOT NULL))
);

CREATE TABLE folio_charges (
    id              INTEGER PRIMARY KEY,
    folio_id        INTEGER NOT NULL REFERENCES folios(id),
    kind            TEXT NOT NULL CHECK (kind IN ('room', 'tax', 'room_service', 'minibar', 'parking', 'spa', 'laundry',
                                                  'cancellation_fee', 'no_show_fee', 'adjustment')),
    description     TEXT NOT NULL,
    amount_cents    INTEGER NOT NULL CHECK (amount_cents <> 0 AND (amount_cents > 0 OR kind = 'adjustment')),
    posted_by       INTEGER REFERENCES staff(id),
    posted_at       TEXT NOT NULL
);

CREATE TABLE payments (
    id              INTEGER PRIMARY KEY,
    folio_id        INTEGER NOT NULL REFERENCES folios(id),
    method          TEXT NOT NULL CHECK (method IN ('card', 'cash', 'points')),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    taken_by        INTEGER REFERENCES staff(id),
    created_at      TEXT NOT NULL
);

CREATE TABLE housekeeping_tasks (
    id              INTEGER PRIMARY KEY,
    room_id         INTEGER NOT NULL REFERENCES rooms(id),
    kind            TEXT NOT NULL CHECK (kind IN ('clean', 'repair')),
    status          TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'done')),
    assigned_to     INTEGER REFERENCES staff(id),
    notes           TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    completed_at    TEXT,
    CHECK ((status = 'done') = (completed_at IS NOT NULL)),
    CHECK (status = 'open' OR assigned_to IS NOT NULL)
);

CREATE TABLE menu_items (
    id          INTEGER PRIMARY KEY,
    hotel_id    INTEGER NOT NULL REFERENCES hotels(id),
    name        TEXT NOT NULL,
    category    TEXT NOT NULL CHECK (category IN ('breakfast', 'main', 'dessert', 'drink')),
    price_cents INTEGER NOT NULL CHECK (price_cents > 0),
    available   INTEGER NOT NULL DEFAULT 1 CHECK (available IN (0, 1)),
    UNIQUE (hotel_id, name)
);

CREATE TABLE room_service_orders (
    id              INTEGER PRIMARY KEY,
    reservation_id  INTEGER NOT NULL REFERENCES reservations(id),
    status          TEXT NOT NULL CHECK (status IN ('placed', 'delivered', 'cancelled')),
    total_cents     INTEGER NOT NULL CHECK (total_cents > 0),
    placed_at       TEXT NOT NULL,
    delivered_at    TEXT,
    delivered_by    INTEGER REFERENCES staff(id),
    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
);

CREATE TABLE room_service_items (
    id              INTEGER PRIMARY KEY,
    order_id        INTEGER NOT NULL REFERENCES room_service_orders(id),
    menu_item_id    INTEGER NOT NULL REFERENCES menu_items(id),
    quantity        INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 10),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents > 0),
    UNIQUE (order_id, menu_item_id)
);

CREATE TABLE loyalty_transactions (
    id              INTEGER PRIMARY KEY,
    guest_id        INTEGER NOT NULL REFERENCES guests(id),
    reservation_id  INTEGER REFERENCES reservations(id),
    kind            TEXT NOT NULL CHECK (kind IN ('earn', 'redeem', 'bonus')),
    points          INTEGER NOT NULL CHECK (points <> 0),
    created_at      TEXT NOT NULL
);

CREATE INDEX idx_res_hotel_dates ON reservations(hotel_id, check_in_date, check_out_date);
CREATE INDEX idx_res_room ON reservations(room_id, status);
CREATE INDEX idx_res_guest ON reservations(guest_id);
CREATE INDEX idx_charges_folio ON folio_charges(folio_id);
CREATE INDEX idx_payments_folio ON payments(folio_id);
CREATE INDEX idx_tasks_room ON housekeeping_tasks(room_id, status);
