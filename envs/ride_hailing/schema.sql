-- ride_hailing: a ride app (riders, drivers, vehicles, fares, rides, tips, ratings, promos, payouts).
-- Timestamps are ISO-8601 text without time zone ("2026-05-08T08:15:00"), dates "YYYY-MM-DD".
-- Money is integer cents; distances are tenths of a kilometre (decikm); surge is a percentage (100 = none).

CREATE TABLE zones (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE,
    surge_pct           INTEGER NOT NULL DEFAULT 100 CHECK (surge_pct BETWEEN 100 AND 300)
);

-- Distance and time of a trip between two zones (both directions listed).
CREATE TABLE zone_routes (
    id                  INTEGER PRIMARY KEY,
    from_zone_id        INTEGER NOT NULL REFERENCES zones(id),
    to_zone_id          INTEGER NOT NULL REFERENCES zones(id),
    distance_decikm     INTEGER NOT NULL CHECK (distance_decikm > 0),
    duration_min        INTEGER NOT NULL CHECK (duration_min > 0),
    UNIQUE (from_zone_id, to_zone_id)
);

-- Fare rules: fare = max(minimum, round((base + per_km * km + per_minute * minutes) * surge / 100)).
CREATE TABLE vehicle_categories (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE CHECK (code IN ('standard', 'xl', 'premium')),
    name                TEXT NOT NULL,
    seats               INTEGER NOT NULL CHECK (seats BETWEEN 2 AND 8),
    base_fare_cents     INTEGER NOT NULL CHECK (base_fare_cents >= 0),
    per_km_cents        INTEGER NOT NULL CHECK (per_km_cents >= 0),
    per_minute_cents    INTEGER NOT NULL CHECK (per_minute_cents >= 0),
    minimum_fare_cents  INTEGER NOT NULL CHECK (minimum_fare_cents >= 0),
    cancel_fee_cents    INTEGER NOT NULL CHECK (cancel_fee_cents >= 0)
);

CREATE TABLE riders (
    id                  INTEGER PRIMARY KEY,
    full_name           TEXT NOT NULL,
    email               TEXT NOT NULL UNIQUE,
    phone               TEXT NOT NULL UNIQUE,
    credit_cents        INTEGER NOT NULL DEFAULT 0 CHECK (credit_cents >= 0),
    created_at          TEXT NOT NULL
);

CREATE TABLE payment_methods (
    id                  INTEGER PRIMARY KEY,
    rider_id            INTEGER NOT NULL REFERENCES riders(id),
    kind                TEXT NOT NULL CHECK (kind IN ('card', 'paypal', 'apple_pay')),
    label               TEXT NOT NULL,
    expires             TEXT CHECK (expires IS NULL OR expires GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]'),
    is_default          INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    added_at            TEXT NOT NULL,
    CHECK (kind <> 'card' OR expires IS NOT NULL)
);

CREATE TABLE saved_places (
    id                  INTEGER PRIMARY KEY,
    rider_id            INTEGER NOT NULL REFERENCES riders(id),
    label               TEXT NOT NULL,
    address             TEXT NOT NULL,
    zone_id             INTEGER NOT NULL REFERENCES zones(id),
    UNIQUE (rider_id, label)
);

CREATE TABLE drivers (
    id                  INTEGER PRIMARY KEY,
    full_name           TEXT NOT NULL,
    email               TEXT NOT NULL UNIQUE,
    phone               TEXT NOT NULL UNIQUE,
    zone_id             INTEGER NOT NULL REFERENCES zones(id),
    status              TEXT NOT NULL CHECK (status IN ('offline', 'available', 'on_trip')),
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    joined_at           TEXT NOT NULL
);

CREATE TABLE vehicles (
    id                  INTEGER PRIMARY KEY,
    driver_id           INTEGER NOT NULL REFERENCES drivers(id),
    category_id         INTEGER NOT NULL REFERENCES vehicle_categories(id),
    make                TEXT NOT NULL,
    model               TEXT NOT NULL,
    color               TEXT NOT NULL,
    plate               TEXT NOT NULL UNIQUE,
    year                INTEGER NOT NULL CHECK (year BETWEEN 2000 AND 2027),
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

CREATE TABLE promo_codes (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE CHECK (code = upper(code)),
    description         TEXT NOT NULL,
    credit_cents        INTEGER NOT NULL CHECK (credit_cents > 0),
    valid_from          TEXT NOT NULL,
    valid_until         TEXT NOT NULL,
    max_redemptions     INTEGER NOT NULL CHECK (max_redemptions > 0),
    new_riders_only     INTEGER NOT NULL DEFAULT 0 CHECK (new_riders_only IN (0, 1)),
    CHECK (valid_until >= valid_from)
);

CREATE TABLE promo_redemptions (
    id                  INTEGER PRIMARY KEY,
    promo_id            INTEGER NOT NULL REFERENCES promo_codes(id),
    rider_id            INTEGER NOT NULL REFERENCES riders(id),
    redeemed_at         TEXT NOT NULL,
    UNIQUE (promo_id, rider_id)
);

CREATE TABLE driver_payouts (
    id                  INTEGER PRIMARY KEY,
    driver_id           INTEGER NOT NULL REFERENCES drivers(id),
    period_end          TEXT NOT NULL,
    rides_count         INTEGER NOT NULL CHECK (rides_count >= 0),
    amount_cents        INTEGER NOT NULL CHECK (amount_cents > 0),
    status              TEXT NOT NULL CHECK (status IN ('pending', 'paid')),
    requested_at        TEXT NOT NULL,
    paid_at             TEXT,
    CHECK ((status = 'paid') = (paid_at IS NOT NULL))
);

CREATE TABLE rides (
    id                  INTEGER PRIMARY KEY,
    rider_id            INTEGER NOT NULL REFERENCES riders(id),
    category_id         INTEGER NOT NULL REFERENCES vehicle_categories(id),
    driver_id           INTEGER REFERENCES drivers(id),
    vehicle_id          INTEGER REFERENCES vehicles(id),
    payment_method_id   INTEGER NOT NULL REFERENCES payment_methods(id),
    status              TEXT NOT NULL CHECK (status IN ('scheduled', 'requested', 'accepted', 'in_progress', 'completed', 'cancelled')),
    pickup_address      TEXT NOT NULL,
    pickup_zone_id      INTEGER NOT NULL REFERENCES zones(id),
    dropoff_address     TEXT NOT NULL,
    dropoff_zone_id     INTEGER NOT NULL REFERENCES zones(id),
    scheduled_for       TEXT,
    distance_decikm     INTEGER NOT NULL CHECK (distance_decikm > 0),
    duration_min        INTEGER NOT NULL CHECK (duration_min > 0),
    surge_pct           INTEGER NOT NULL CHECK (surge_pct BETWEEN 100 AND 300),
    estimated_fare_cents INTEGER NOT NULL CHECK (estimated_fare_cents > 0),
    fare_cents          INTEGER CHECK (fare_cents IS NULL OR fare_cents > 0),
    credit_applied_cents INTEGER NOT NULL DEFAULT 0 CHECK (credit_applied_cents >= 0),
    cancellation_fee_cents INTEGER NOT NULL DEFAULT 0 CHECK (cancellation_fee_cents >= 0),
    cancelled_by        TEXT CHECK (cancelled_by IS NULL OR cancelled_by IN ('rider', 'driver')),
    cancel_reason       TEXT,
    driver_earnings_cents INTEGER NOT NULL DEFAULT 0 CHECK (driver_earnings_cents >= 0),
    payout_id           INTEGER REFERENCES driver_payouts(id),
    requested_at        TEXT NOT NULL,
    accepted_at         TEXT,
    started_at          TEXT,
    completed_at        TEXT,
    cancelled_at        TEXT,
    CHECK ((status = 'completed') = (fare_cents IS NOT NULL)),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
    CHECK (status NOT IN ('accepted', 'in_progress', 'completed') OR driver_id IS NOT NULL),
    CHECK ((status = 'scheduled') <= (scheduled_for IS NOT NULL))
);

-- One tip per completed ride, paid in full to the driver.
CREATE TABLE tips (
    id                  INTEGER PRIMARY KEY,
    ride_id             INTEGER NOT NULL UNIQUE REFERENCES rides(id),
    amount_cents        INTEGER NOT NULL CHECK (amount_cents > 0),
    payout_id           INTEGER REFERENCES driver_payouts(id),
    created_at          TEXT NOT NULL
);

-- Ratings both ways: the rider rates the driver and the driver rates the rider, once each per ride.
CREATE TABLE ride_ratings (
    id                  INTEGER PRIMARY KEY,
    ride_id             INTEGER NOT NULL REFERENCES rides(id),
    rated_by            TEXT NOT NULL CHECK (rated_by IN ('rider', 'driver')),
    stars               INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
    comment             TEXT NOT NULL DEFAULT '',
    created_at          TEXT NOT NULL,
    UNIQUE (ride_id, rated_by)
);

-- Rider credit: promo codes add to it, completed rides use it up (riders.credit_cents is the sum).
CREATE TABLE credit_transactions (
    id                  INTEGER PRIMARY KEY,
    rider_id            INTEGER NOT NULL REFERENCES riders(id),
    ride_id             INTEGER REFERENCES rides(id),
    promo_id            INTEGER REFERENCES promo_codes(id),
    amount_cents        INTEGER NOT NULL CHECK (amount_cents <> 0),
    created_at          TEXT NOT NULL
);

CREATE TABLE lost_items (
    id                  INTEGER PRIMARY KEY,
    ride_id             INTEGER NOT NULL REFERENCES rides(id),
    description         TEXT NOT NULL CHECK (length(description) BETWEEN 3 AND 500),
    contact_phone       TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('reported', 'found', 'not_found', 'returned')),
    reported_at         TEXT NOT NULL,
    resolved_at         TEXT,
    CHECK ((status = 'reported') = (resolved_at IS NULL))
);

CREATE INDEX idx_rides_rider ON rides(rider_id, requested_at);
CREATE INDEX idx_rides_driver ON rides(driver_id, status);
CREATE INDEX idx_ratings_ride ON ride_ratings(ride_id);
CREATE INDEX idx_credit_rider ON credit_transactions(rider_id);
