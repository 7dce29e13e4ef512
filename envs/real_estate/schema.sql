-- real_estate: a property listings portal shared by several estate agencies.
-- Timestamps are ISO-8601 text without time zone ("2026-04-15T10:00:00"), dates "YYYY-MM-DD".
-- Prices are whole US dollars (sale: asking price; rent: monthly rent). Commissions are integer cents.

CREATE TABLE agencies (
    id                   INTEGER PRIMARY KEY,
    code                 TEXT NOT NULL UNIQUE CHECK (length(code) BETWEEN 2 AND 6),
    name                 TEXT NOT NULL UNIQUE,
    city                 TEXT NOT NULL,
    email                TEXT NOT NULL UNIQUE,
    phone                TEXT NOT NULL,
    sale_commission_bp   INTEGER NOT NULL CHECK (sale_commission_bp BETWEEN 50 AND 600),
    letting_fee_pct      INTEGER NOT NULL CHECK (letting_fee_pct BETWEEN 10 AND 150),
    created_at           TEXT NOT NULL
);

CREATE TABLE agents (
    id          INTEGER PRIMARY KEY,
    agency_id   INTEGER NOT NULL REFERENCES agencies(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    phone       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('manager', 'agent')),
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at  TEXT NOT NULL
);

-- Weekly working hours: viewings and open houses must fit inside one of these windows.
CREATE TABLE agent_availability (
    id          INTEGER PRIMARY KEY,
    agent_id    INTEGER NOT NULL REFERENCES agents(id),
    weekday     INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),  -- 0 = Monday
    start_time  TEXT NOT NULL CHECK (start_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    end_time    TEXT NOT NULL CHECK (end_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    UNIQUE (agent_id, weekday),
    CHECK (end_time > start_time)
);

CREATE TABLE properties (
    id              INTEGER PRIMARY KEY,
    agency_id       INTEGER NOT NULL REFERENCES agencies(id),
    address         TEXT NOT NULL,
    city            TEXT NOT NULL,
    postcode        TEXT NOT NULL,
    property_type   TEXT NOT NULL CHECK (property_type IN ('house', 'flat', 'townhouse', 'bungalow', 'studio')),
    bedrooms        INTEGER NOT NULL CHECK (bedrooms BETWEEN 0 AND 10),
    bathrooms       INTEGER NOT NULL CHECK (bathrooms BETWEEN 1 AND 6),
    floor_area_sqm  INTEGER NOT NULL CHECK (floor_area_sqm BETWEEN 15 AND 1000),
    year_built      INTEGER NOT NULL CHECK (year_built BETWEEN 1800 AND 2026),
    created_at      TEXT NOT NULL,
    UNIQUE (address, city)
);

CREATE TABLE property_features (
    id           INTEGER PRIMARY KEY,
    property_id  INTEGER NOT NULL REFERENCES properties(id),
    feature      TEXT NOT NULL,
    UNIQUE (property_id, feature)
);

-- Photo metadata only (the images live elsewhere).
CREATE TABLE property_photos (
    id           INTEGER PRIMARY KEY,
    property_id  INTEGER NOT NULL REFERENCES properties(id),
    filename     TEXT NOT NULL,
    caption      TEXT NOT NULL DEFAULT '',
    sort_order   INTEGER NOT NULL CHECK (sort_order >= 1),
    width_px     INTEGER NOT NULL CHECK (width_px >= 800),
    height_px    INTEGER NOT NULL CHECK (height_px >= 600),
    uploaded_at  TEXT NOT NULL,
    UNIQUE (property_id, sort_order),
    UNIQUE (property_id, filename)
);

CREATE TABLE clients (
    id                INTEGER PRIMARY KEY,
    full_name         TEXT NOT NULL,
    email             TEXT NOT NULL UNIQUE,
    phone             TEXT NOT NULL,
    client_type       TEXT NOT NULL CHECK (client_type IN ('buyer', 'renter', 'both')),
    max_budget        INTEGER CHECK (max_budget IS NULL OR max_budget > 0),
    created_at        TEXT NOT NULL
);

CREATE TABLE listings (
    id               INTEGER PRIMARY KEY,
    reference        TEXT NOT NULL UNIQUE,
    property_id      INTEGER NOT NULL REFERENCES properties(id),
    agency_id        INTEGER NOT NULL REFERENCES agencies(id),
    agent_id         INTEGER NOT NULL REFERENCES agents(id),
    listing_type     TEXT NOT NULL CHECK (listing_type IN ('sale', 'rent')),
    status           TEXT NOT NULL CHECK (status IN ('draft', 'active', 'under_offer', 'sold', 'let', 'withdrawn')),
    price            INTEGER NOT NULL CHECK (price > 0),
    min_offer        INTEGER CHECK (min_offer IS NULL OR min_offer > 0),
    headline         TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    created_at       TEXT NOT NULL,
    listed_at        TEXT,
    closed_at        TEXT,
    closed_client_id INTEGER REFERENCES clients(id),
    updated_at       TEXT NOT NULL,
    CHECK (listing_type = 'sale' OR status NOT IN ('sold', 'under_offer')),
    CHECK (listing_type = 'rent' OR status <> 'let'),
    CHECK (listing_type = 'sale' OR min_offer IS NULL),
    CHECK (min_offer IS NULL OR min_offer <= price),
    CHECK ((status IN ('sold', 'let', 'withdrawn')) = (closed_at IS NOT NULL)),
    CHECK ((status IN ('sold', 'let')) = (closed_client_id IS NOT NULL)),
    CHECK (status = 'draft' OR listed_at IS NOT NULL OR status = 'withdrawn')
);

CREATE TABLE price_changes (
    id          INTEGER PRIMARY KEY,
    listing_id  INTEGER NOT NULL REFERENCES listings(id),
    old_price   INTEGER NOT NULL CHECK (old_price > 0),
    new_price   INTEGER NOT NULL CHECK (new_price > 0),
    changed_by  INTEGER NOT NULL REFERENCES agents(id),
    reason      TEXT NOT NULL DEFAULT '',
    changed_at  TEXT NOT NULL,
    CHECK (old_price <> new_price)
);

CREATE TABLE saved_searches (
    id               INTEGER PRIMARY KEY,
    client_id        INTEGER NOT NULL REFERENCES clients(id),
    name             TEXT NOT NULL,
    listing_type     TEXT NOT NULL CHECK (listing_type IN ('sale', 'rent')),
    city             TEXT,
    property_type    TEXT CHECK (property_type IS NULL OR property_type IN ('house', 'flat', 'townhouse', 'bungalow', 'studio')),
    min_bedrooms     INTEGER NOT NULL DEFAULT 0 CHECK (min_bedrooms BETWEEN 0 AND 10),
    max_price        INTEGER CHECK (max_price IS NULL OR max_price > 0),
    alerts_enabled   INTEGER NOT NULL DEFAULT 1 CHECK (alerts_enabled IN (0, 1)),
    created_at       TEXT NOT NULL,
    UNIQUE (client_id, name)
);

CREATE TABLE favourites (
    id          INTEGER PRIMARY KEY,
    client_id   INTEGER NOT NULL REFERENCES clients(id),
    listing_id  INTEGER NOT NULL REFERENCES listings(id),
    created_at  TEXT NOT NULL,
    UNIQUE (client_id, listing_id)
);

CREATE TABLE viewings (
    id          INTEGER PRIMARY KEY,
    listing_id  INTEGER NOT NULL REFERENCES listings(id),
    client_id   INTEGER NOT NULL REFERENCES clients(id),
    agent_id    INTEGER NOT NULL REFERENCES agents(id),
    starts_at   TEXT NOT NULL,
    ends_at     TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('scheduled', 'completed', 'no_show', 'cancelled')),
    feedback    TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    CHECK (ends_at > starts_at)
);

CREATE TABLE offers (
    id              INTEGER PRIMARY KEY,
    listing_id      INTEGER NOT NULL REFERENCES listings(id),
    client_id       INTEGER NOT NULL REFERENCES clients(id),
    amount          INTEGER NOT NULL CHECK (amount > 0),
    status          TEXT NOT NULL CHECK (status IN ('submitted', 'countered', 'accepted', 'rejected', 'withdrawn')),
    counter_amount  INTEGER CHECK (counter_amount IS NULL OR counter_amount > 0),
    agreed_amount   INTEGER CHECK (agreed_amount IS NULL OR agreed_amount > 0),
    conditions      TEXT NOT NULL DEFAULT '',
    submitted_at    TEXT NOT NULL,
    responded_at    TEXT,
    responded_by    INTEGER REFERENCES agents(id),
    CHECK ((status = 'countered') <= (counter_amount IS NOT NULL)),
    CHECK ((status = 'accepted') = (agreed_amount IS NOT NULL)),
    CHECK (status = 'submitted' OR responded_at IS NOT NULL)
);

-- Only one accepted offer per listing.
CREATE UNIQUE INDEX one_accepted_offer ON offers(listing_id) WHERE status = 'accepted';

CREATE TABLE enquiries (
    id          INTEGER PRIMARY KEY,
    listing_id  INTEGER NOT NULL REFERENCES listings(id),
    client_id   INTEGER NOT NULL REFERENCES clients(id),
    subject     TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
    status      TEXT NOT NULL CHECK (status IN ('open', 'answered', 'closed')),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    enquiry_id  INTEGER NOT NULL REFERENCES enquiries(id),
    sender_type TEXT NOT NULL CHECK (sender_type IN ('client', 'agent')),
    agent_id    INTEGER REFERENCES agents(id),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
    sent_at     TEXT NOT NULL,
    CHECK ((sender_type = 'agent') = (agent_id IS NOT NULL))
);

CREATE TABLE open_houses (
    id          INTEGER PRIMARY KEY,
    listing_id  INTEGER NOT NULL REFERENCES listings(id),
    agent_id    INTEGER NOT NULL REFERENCES agents(id),
    starts_at   TEXT NOT NULL,
    ends_at     TEXT NOT NULL,
    capacity    INTEGER NOT NULL CHECK (capacity BETWEEN 1 AND 60),
    status      TEXT NOT NULL CHECK (status IN ('scheduled', 'completed', 'cancelled')),
    created_at  TEXT NOT NULL,
    CHECK (ends_at > starts_at)
);

CREATE TABLE open_house_rsvps (
    id             INTEGER PRIMARY KEY,
    open_house_id  INTEGER NOT NULL REFERENCES open_houses(id),
    client_id      INTEGER NOT NULL REFERENCES clients(id),
    party_size     INTEGER NOT NULL CHECK (party_size BETWEEN 1 AND 4),
    status         TEXT NOT NULL CHECK (status IN ('going', 'cancelled')),
    created_at     TEXT NOT NULL,
    UNIQUE (open_house_id, client_id)
);

CREATE TABLE commissions (
    id              INTEGER PRIMARY KEY,
    listing_id      INTEGER NOT NULL UNIQUE REFERENCES listings(id),
    agency_id       INTEGER NOT NULL REFERENCES agencies(id),
    agent_id        INTEGER NOT NULL REFERENCES agents(id),
    basis_amount    INTEGER NOT NULL CHECK (basis_amount > 0),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    status          TEXT NOT NULL CHECK (status IN ('pending', 'invoiced', 'paid')),
    created_at      TEXT NOT NULL,
    invoiced_at     TEXT,
    paid_at         TEXT,
    CHECK ((status = 'pending') = (invoiced_at IS NULL)),
    CHECK ((status = 'paid') = (paid_at IS NOT NULL))
);

CREATE INDEX idx_listings_status ON listings(status, listing_type);
CREATE INDEX idx_listings_property ON listings(property_id);
CREATE INDEX idx_viewings_agent ON viewings(agent_id, starts_at);
CREATE INDEX idx_viewings_client ON viewings(client_id, starts_at);
CREATE INDEX idx_offers_listing ON offers(listing_id, status);
CREATE INDEX idx_open_houses_listing ON open_houses(listing_id);
CREATE INDEX idx_rsvps_open_house ON open_house_rsvps(open_house_id);
CREATE INDEX idx_price_changes_listing ON price_changes(listing_id);
