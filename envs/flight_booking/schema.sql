-- flight_booking: an airline booking system (airports, flights, fares, seat maps, bookings, loyalty miles).
-- Timestamps are ISO-8601 text without time zone ("2026-04-10T09:00:00"), dates "YYYY-MM-DD".
-- Money is integer cents (USD). Miles are integers; 1 mile pays for 1 cent of fare.

CREATE TABLE airports (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE CHECK (length(code) = 3 AND code = upper(code)),
    name        TEXT NOT NULL,
    city        TEXT NOT NULL,
    country     TEXT NOT NULL
);

CREATE TABLE airlines (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE CHECK (length(code) = 2),
    name        TEXT NOT NULL UNIQUE,
    alliance    TEXT NOT NULL CHECK (alliance IN ('skyways', 'horizon', 'none'))
);

CREATE TABLE aircraft (
    id              INTEGER PRIMARY KEY,
    airline_id      INTEGER NOT NULL REFERENCES airlines(id),
    registration    TEXT NOT NULL UNIQUE,
    model           TEXT NOT NULL
);

-- The seat map of one aircraft.
CREATE TABLE aircraft_seats (
    id              INTEGER PRIMARY KEY,
    aircraft_id     INTEGER NOT NULL REFERENCES aircraft(id),
    seat_number     TEXT NOT NULL,
    cabin           TEXT NOT NULL CHECK (cabin IN ('economy', 'business')),
    position        TEXT NOT NULL CHECK (position IN ('window', 'middle', 'aisle')),
    extra_legroom   INTEGER NOT NULL DEFAULT 0 CHECK (extra_legroom IN (0, 1)),
    UNIQUE (aircraft_id, seat_number)
);

-- Fare families and their rules (per passenger, per flight).
CREATE TABLE fare_rules (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE CHECK (code IN ('basic', 'standard', 'flex', 'business')),
    name                TEXT NOT NULL,
    cabin               TEXT NOT NULL CHECK (cabin IN ('economy', 'business')),
    refundable          INTEGER NOT NULL CHECK (refundable IN (0, 1)),
    refund_fee_cents    INTEGER NOT NULL CHECK (refund_fee_cents >= 0),
    changeable          INTEGER NOT NULL CHECK (changeable IN (0, 1)),
    change_fee_cents    INTEGER NOT NULL CHECK (change_fee_cents >= 0),
    free_bags           INTEGER NOT NULL CHECK (free_bags BETWEEN 0 AND 3),
    free_seat_choice    INTEGER NOT NULL CHECK (free_seat_choice IN (0, 1)),
    miles_per_dollar    INTEGER NOT NULL CHECK (miles_per_dollar >= 0)
);

CREATE TABLE flights (
    id              INTEGER PRIMARY KEY,
    airline_id      INTEGER NOT NULL REFERENCES airlines(id),
    flight_number   TEXT NOT NULL,
    aircraft_id     INTEGER NOT NULL REFERENCES aircraft(id),
    origin_id       INTEGER NOT NULL REFERENCES airports(id),
    destination_id  INTEGER NOT NULL REFERENCES airports(id),
    departure_at    TEXT NOT NULL,
    arrival_at      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('scheduled', 'delayed', 'cancelled', 'departed', 'landed')),
    delay_minutes   INTEGER NOT NULL DEFAULT 0 CHECK (delay_minutes >= 0),
    gate            TEXT,
    UNIQUE (flight_number, departure_at),
    CHECK (origin_id <> destination_id),
    CHECK (arrival_at > departure_at),
    CHECK ((status = 'delayed') = (delay_minutes > 0))
);

-- Fares on sale on one flight: price per passenger and the seats still sold at that fare.
CREATE TABLE flight_fares (
    id              INTEGER PRIMARY KEY,
    flight_id       INTEGER NOT NULL REFERENCES flights(id),
    fare_rule_id    INTEGER NOT NULL REFERENCES fare_rules(id),
    price_cents     INTEGER NOT NULL CHECK (price_cents > 0),
    seats_total     INTEGER NOT NULL CHECK (seats_total >= 0),
    seats_left      INTEGER NOT NULL CHECK (seats_left >= 0),
    UNIQUE (flight_id, fare_rule_id),
    CHECK (seats_left <= seats_total)
);

-- Account holders (the people who log in and manage bookings).
CREATE TABLE customers (
    id          INTEGER PRIMARY KEY,
    email       TEXT NOT NULL UNIQUE,
    full_name   TEXT NOT NULL,
    phone       TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE loyalty_accounts (
    id              INTEGER PRIMARY KEY,
    customer_id     INTEGER NOT NULL UNIQUE REFERENCES customers(id),
    member_number   TEXT NOT NULL UNIQUE,
    tier            TEXT NOT NULL CHECK (tier IN ('member', 'silver', 'gold')),
    miles_balance   INTEGER NOT NULL CHECK (miles_balance >= 0),
    joined_at       TEXT NOT NULL
);

CREATE TABLE miles_transactions (
    id              INTEGER PRIMARY KEY,
    account_id      INTEGER NOT NULL REFERENCES loyalty_accounts(id),
    booking_id      INTEGER REFERENCES bookings(id),
    kind            TEXT NOT NULL CHECK (kind IN ('accrual', 'redemption', 'refund', 'reversal', 'transfer_in', 'transfer_out', 'bonus')),
    miles           INTEGER NOT NULL CHECK (miles <> 0),
    note            TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL
);

-- The people who fly, saved in an account holder's profile (the holder is one of them).
CREATE TABLE travellers (
    id              INTEGER PRIMARY KEY,
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    first_name      TEXT NOT NULL,
    last_name       TEXT NOT NULL,
    date_of_birth   TEXT NOT NULL,
    passport_number TEXT,
    is_holder       INTEGER NOT NULL DEFAULT 0 CHECK (is_holder IN (0, 1)),
    UNIQUE (customer_id, first_name, last_name, date_of_birth)
);

CREATE TABLE bookings (
    id                  INTEGER PRIMARY KEY,
    pnr                 TEXT NOT NULL UNIQUE CHECK (length(pnr) = 6),
    customer_id         INTEGER NOT NULL REFERENCES customers(id),
    status              TEXT NOT NULL CHECK (status IN ('held', 'ticketed', 'cancelled', 'refunded')),
    paid_with           TEXT CHECK (paid_with IS NULL OR paid_with IN ('card', 'miles')),
    created_at          TEXT NOT NULL,
    hold_expires_at     TEXT,
    ticketed_at         TEXT,
    cancelled_at        TEXT,
    CHECK ((status = 'held') = (hold_expires_at IS NOT NULL)),
    CHECK ((ticketed_at IS NULL) = (paid_with IS NULL)),
    CHECK ((status IN ('cancelled', 'refunded')) = (cancelled_at IS NOT NULL))
);

CREATE TABLE booking_passengers (
    id              INTEGER PRIMARY KEY,
    booking_id      INTEGER NOT NULL REFERENCES bookings(id),
    traveller_id    INTEGER NOT NULL REFERENCES travellers(id),
    UNIQUE (booking_id, traveller_id)
);

-- One flight of a booking, at one fare (fare_cents is the price per passenger paid for it).
CREATE TABLE segments (
    id              INTEGER PRIMARY KEY,
    booking_id      INTEGER NOT NULL REFERENCES bookings(id),
    flight_id       INTEGER NOT NULL REFERENCES flights(id),
    flight_fare_id  INTEGER NOT NULL REFERENCES flight_fares(id),
    fare_cents      INTEGER NOT NULL CHECK (fare_cents > 0),
    status          TEXT NOT NULL CHECK (status IN ('active', 'cancelled', 'changed')),
    UNIQUE (booking_id, flight_id)
);

-- A seat is held by at most one passenger per flight.
CREATE TABLE seat_assignments (
    id              INTEGER PRIMARY KEY,
    segment_id      INTEGER NOT NULL REFERENCES segments(id),
    flight_id       INTEGER NOT NULL REFERENCES flights(id),
    traveller_id    INTEGER NOT NULL REFERENCES travellers(id),
    seat_id         INTEGER NOT NULL REFERENCES aircraft_seats(id),
    fee_cents       INTEGER NOT NULL DEFAULT 0 CHECK (fee_cents >= 0),
    UNIQUE (flight_id, seat_id),
    UNIQUE (segment_id, traveller_id)
);

CREATE TABLE checked_bags (
    id              INTEGER PRIMARY KEY,
    segment_id      INTEGER NOT NULL REFERENCES segments(id),
    traveller_id    INTEGER NOT NULL REFERENCES travellers(id),
    tag_number      TEXT NOT NULL UNIQUE,
    fee_cents       INTEGER NOT NULL CHECK (fee_cents >= 0),
    added_at        TEXT NOT NULL
);

CREATE TABLE payments (
    id              INTEGER PRIMARY KEY,
    booking_id      INTEGER NOT NULL REFERENCES bookings(id),
    kind            TEXT NOT NULL CHECK (kind IN ('charge', 'refund')),
    purpose         TEXT NOT NULL CHECK (purpose IN ('fare', 'seat', 'bag', 'change', 'upgrade', 'cancellation')),
    method          TEXT NOT NULL CHECK (method IN ('card', 'miles')),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    created_at      TEXT NOT NULL
);

CREATE TABLE booking_changes (
    id                      INTEGER PRIMARY KEY,
    booking_id              INTEGER NOT NULL REFERENCES bookings(id),
    old_flight_id           INTEGER NOT NULL REFERENCES flights(id),
    new_flight_id           INTEGER NOT NULL REFERENCES flights(id),
    fare_difference_cents   INTEGER NOT NULL CHECK (fare_difference_cents >= 0),
    change_fee_cents        INTEGER NOT NULL CHECK (change_fee_cents >= 0),
    reason                  TEXT NOT NULL CHECK (reason IN ('voluntary', 'airline_cancellation')),
    created_at              TEXT NOT NULL
);

CREATE INDEX idx_flights_route ON flights(origin_id, destination_id, departure_at);
CREATE INDEX idx_segments_flight ON segments(flight_id, status);
CREATE INDEX idx_bookings_customer ON bookings(customer_id, status);
CREATE INDEX idx_payments_booking ON payments(booking_id);
CREATE INDEX idx_miles_account ON miles_transactions(account_id);
