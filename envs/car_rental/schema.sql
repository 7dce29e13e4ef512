-- car_rental: a car rental company (locations, fleet, customers, reservations, counter operations).
-- Timestamps are ISO-8601 text without time zone, dates "YYYY-MM-DD". Money is integer cents; distances in km.
-- A rental runs from pickup_date to return_date; it is charged per day (return_date - pickup_date days), each
-- Saturday or Sunday at the class's weekend rate.

CREATE TABLE locations (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    city        TEXT NOT NULL,
    address     TEXT NOT NULL,
    phone       TEXT NOT NULL,
    is_airport  INTEGER NOT NULL DEFAULT 0 CHECK (is_airport IN (0, 1)),
    opens_at    TEXT NOT NULL,
    closes_at   TEXT NOT NULL
);

CREATE TABLE agents (
    id          INTEGER PRIMARY KEY,
    location_id INTEGER NOT NULL REFERENCES locations(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL CHECK (role IN ('counter_agent', 'station_manager')),
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

CREATE TABLE vehicle_classes (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL UNIQUE,
    daily_rate_cents    INTEGER NOT NULL CHECK (daily_rate_cents > 0),
    weekend_rate_cents  INTEGER NOT NULL CHECK (weekend_rate_cents > 0),
    min_age             INTEGER NOT NULL CHECK (min_age BETWEEN 18 AND 30),
    seats               INTEGER NOT NULL CHECK (seats BETWEEN 2 AND 9),
    description         TEXT NOT NULL DEFAULT ''
);

CREATE TABLE vehicles (
    id          INTEGER PRIMARY KEY,
    plate       TEXT NOT NULL UNIQUE,
    class_id    INTEGER NOT NULL REFERENCES vehicle_classes(id),
    location_id INTEGER NOT NULL REFERENCES locations(id),
    make        TEXT NOT NULL,
    model       TEXT NOT NULL,
    year        INTEGER NOT NULL CHECK (year BETWEEN 2015 AND 2027),
    color       TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('available', 'rented', 'maintenance', 'retired')),
    mileage_km  INTEGER NOT NULL CHECK (mileage_km >= 0)
);

CREATE TABLE customers (
    id              INTEGER PRIMARY KEY,
    first_name      TEXT NOT NULL,
    last_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    phone           TEXT NOT NULL,
    date_of_birth   TEXT NOT NULL,
    loyalty_tier    TEXT NOT NULL CHECK (loyalty_tier IN ('basic', 'silver', 'gold')),
    loyalty_points  INTEGER NOT NULL DEFAULT 0 CHECK (loyalty_points >= 0),
    created_at      TEXT NOT NULL
);

CREATE TABLE driver_licenses (
    id              INTEGER PRIMARY KEY,
    customer_id     INTEGER NOT NULL UNIQUE REFERENCES customers(id),
    license_number  TEXT NOT NULL UNIQUE,
    issuing_state   TEXT NOT NULL,
    issued_on       TEXT NOT NULL,
    expires_on      TEXT NOT NULL,
    CHECK (expires_on > issued_on)
);

CREATE TABLE insurance_options (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL,
    daily_price_cents   INTEGER NOT NULL CHECK (daily_price_cents >= 0),
    deductible_cents    INTEGER NOT NULL CHECK (deductible_cents >= 0),
    description         TEXT NOT NULL DEFAULT ''
);

CREATE TABLE extras (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL,
    daily_price_cents   INTEGER NOT NULL CHECK (daily_price_cents >= 0),
    max_per_rental      INTEGER NOT NULL CHECK (max_per_rental BETWEEN 1 AND 4)
);

CREATE TABLE extra_inventory (
    id          INTEGER PRIMARY KEY,
    location_id INTEGER NOT NULL REFERENCES locations(id),
    extra_id    INTEGER NOT NULL REFERENCES extras(id),
    quantity    INTEGER NOT NULL CHECK (quantity >= 0),
    UNIQUE (location_id, extra_id)
);

-- Allowed one-way routes and their fee (a return elsewhere is only possible on a listed route).
CREATE TABLE one_way_fees (
    id                  INTEGER PRIMARY KEY,
    from_location_id    INTEGER NOT NULL REFERENCES locations(id),
    to_location_id      INTEGER NOT NULL REFERENCES locations(id),
    fee_cents           INTEGER NOT NULL CHECK (fee_cents > 0),
    UNIQUE (from_location_id, to_location_id),
    CHECK (from_location_id <> to_location_id)
);

CREATE TABLE reservations (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE,
    customer_id         INTEGER NOT NULL REFERENCES customers(id),
    vehicle_id          INTEGER NOT NULL REFERENCES vehicles(id),
    class_id            INTEGER NOT NULL REFERENCES vehicle_classes(id),
    pickup_location_id  INTEGER NOT NULL REFERENCES locations(id),
    return_location_id  INTEGER NOT NULL REFERENCES locations(id),
    pickup_date         TEXT NOT NULL,
    return_date         TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('reserved', 'picked_up', 'returned', 'cancelled', 'no_show')),
    insurance_id        INTEGER REFERENCES insurance_options(id),
    rental_cents        INTEGER NOT NULL CHECK (rental_cents >= 0),
    one_way_fee_cents   INTEGER NOT NULL DEFAULT 0 CHECK (one_way_fee_cents >= 0),
    points_redeemed     INTEGER NOT NULL DEFAULT 0 CHECK (points_redeemed >= 0),
    estimated_total_cents INTEGER NOT NULL CHECK (estimated_total_cents >= 0),
    start_mileage_km    INTEGER,
    end_mileage_km      INTEGER,
    created_at          TEXT NOT NULL,
    picked_up_at        TEXT,
    returned_at         TEXT,
    cancelled_at        TEXT,
    CHECK (return_date > pickup_date),
    CHECK ((status IN ('picked_up', 'returned')) = (picked_up_at IS NOT NULL)),
    CHECK ((status = 'returned') = (returned_at IS NOT NULL)),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
    CHECK (end_mileage_km IS NULL OR end_mileage_km >= start_mileage_km)
);

CREATE TABLE reservation_extras (
    id              INTEGER PRIMARY KEY,
    reservation_id  INTEGER NOT NULL REFERENCES reservations(id),
    extra_id        INTEGER NOT NULL REFERENCES extras(id),
    quantity        INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 4),
    UNIQUE (reservation_id, extra_id)
);

CREATE TABLE damage_reports (
    id                  INTEGER PRIMARY KEY,
    reservation_id      INTEGER REFERENCES reservations(id),
    vehicle_id          INTEGER NOT NULL REFERENCES vehicles(id),
    agent_id            INTEGER NOT NULL REFERENCES agents(id),
    severity            TEXT NOT NULL CHECK (severity IN ('minor', 'moderate', 'major')),
    description         TEXT NOT NULL CHECK (length(description) BETWEEN 3 AND 500),
    estimated_cost_cents INTEGER NOT NULL CHECK (estimated_cost_cents >= 0),
    customer_charge_cents INTEGER NOT NULL DEFAULT 0 CHECK (customer_charge_cents >= 0),
    reported_at         TEXT NOT NULL
);

CREATE TABLE charges (
    id              INTEGER PRIMARY KEY,
    reservation_id  INTEGER NOT NULL REFERENCES reservations(id),
    kind            TEXT NOT NULL CHECK (kind IN ('rental', 'insurance', 'extras', 'one_way', 'late_return', 'fuel',
                        'damage', 'cancellation', 'no_show', 'loyalty_discount')),
    amount_cents    INTEGER NOT NULL,
    description     TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    CHECK ((kind = 'loyalty_discount') = (amount_cents < 0))
);

CREATE TABLE loyalty_transactions (
    id              INTEGER PRIMARY KEY,
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    reservation_id  INTEGER REFERENCES reservations(id),
    points          INTEGER NOT NULL CHECK (points <> 0),
    reason          TEXT NOT NULL CHECK (reason IN ('earned', 'redeemed', 'refunded', 'bonus')),
    created_at      TEXT NOT NULL
);

CREATE INDEX idx_res_vehicle ON reservations(vehicle_id, pickup_date, return_date);
CREATE INDEX idx_res_customer ON reservations(customer_id);
CREATE INDEX idx_vehicles_loc ON vehicles(location_id, class_id, status);
CREATE INDEX idx_charges_res ON charges(reservation_id);
