-- warehouse_inventory: stock control for Brightline Distribution's warehouses.
-- Timestamps are ISO-8601 text without time zone ("2026-05-12T08:00:00"), dates are "YYYY-MM-DD".
-- Money is integer cents; quantities are whole units.

CREATE TABLE warehouses (
    id      INTEGER PRIMARY KEY,
    code    TEXT NOT NULL UNIQUE,
    name    TEXT NOT NULL UNIQUE,
    city    TEXT NOT NULL
);

-- receiving: goods land here on arrival; storage / cold: put-away locations that can be picked;
-- cold zones hold only products that need cold storage, and those products live only there.
CREATE TABLE zones (
    id              INTEGER PRIMARY KEY,
    warehouse_id    INTEGER NOT NULL REFERENCES warehouses(id),
    code            TEXT NOT NULL,
    name            TEXT NOT NULL,
    zone_type       TEXT NOT NULL CHECK (zone_type IN ('receiving', 'storage', 'cold')),
    UNIQUE (warehouse_id, code)
);

CREATE TABLE bins (
    id              INTEGER PRIMARY KEY,
    zone_id         INTEGER NOT NULL REFERENCES zones(id),
    code            TEXT NOT NULL UNIQUE,
    capacity_units  INTEGER NOT NULL CHECK (capacity_units > 0),
    is_active       INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

-- warehouse_id NULL: a regional manager who may act in every warehouse.
CREATE TABLE staff (
    id              INTEGER PRIMARY KEY,
    warehouse_id    INTEGER REFERENCES warehouses(id),
    full_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    role            TEXT NOT NULL CHECK (role IN ('operative', 'supervisor', 'manager')),
    is_active       INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    CHECK (warehouse_id IS NOT NULL OR role = 'manager')
);

CREATE TABLE suppliers (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    email           TEXT NOT NULL UNIQUE,
    country         TEXT NOT NULL,
    lead_time_days  INTEGER NOT NULL CHECK (lead_time_days BETWEEN 1 AND 90),
    is_active       INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

-- reorder_point / reorder_qty apply to the product's total on-hand stock across all warehouses.
CREATE TABLE products (
    id                  INTEGER PRIMARY KEY,
    sku                 TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL,
    category            TEXT NOT NULL,
    supplier_id         INTEGER NOT NULL REFERENCES suppliers(id),
    unit_cost_cents     INTEGER NOT NULL CHECK (unit_cost_cents > 0),
    unit_weight_grams   INTEGER NOT NULL CHECK (unit_weight_grams > 0),
    storage             TEXT NOT NULL CHECK (storage IN ('ambient', 'cold')),
    tracks_expiry       INTEGER NOT NULL DEFAULT 0 CHECK (tracks_expiry IN (0, 1)),
    reorder_point       INTEGER NOT NULL CHECK (reorder_point >= 0),
    reorder_qty         INTEGER NOT NULL CHECK (reorder_qty > 0),
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

CREATE TABLE lots (
    id              INTEGER PRIMARY KEY,
    product_id      INTEGER NOT NULL REFERENCES products(id),
    lot_code        TEXT NOT NULL,
    expiry_date     TEXT,
    received_at     TEXT NOT NULL,
    UNIQUE (product_id, lot_code)
);

-- On-hand stock of one lot in one bin. Never negative; a row is removed when it reaches zero.
CREATE TABLE stock (
    id          INTEGER PRIMARY KEY,
    bin_id      INTEGER NOT NULL REFERENCES bins(id),
    lot_id      INTEGER NOT NULL REFERENCES lots(id),
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    UNIQUE (bin_id, lot_id)
);

CREATE TABLE purchase_orders (
    id              INTEGER PRIMARY KEY,
    number          TEXT NOT NULL UNIQUE,
    supplier_id     INTEGER NOT NULL REFERENCES suppliers(id),
    warehouse_id    INTEGER NOT NULL REFERENCES warehouses(id),
    status          TEXT NOT NULL CHECK (status IN ('draft', 'sent', 'partially_received', 'received', 'cancelled')),
    created_by      INTEGER NOT NULL REFERENCES staff(id),
    created_at      TEXT NOT NULL,
    sent_at         TEXT,
    expected_date   TEXT NOT NULL,
    cancel_reason   TEXT,
    CHECK ((status = 'draft') = (sent_at IS NULL) OR status = 'cancelled'),
    CHECK ((status = 'cancelled') = (cancel_reason IS NOT NULL))
);

CREATE TABLE po_lines (
    id                  INTEGER PRIMARY KEY,
    po_id               INTEGER NOT NULL REFERENCES purchase_orders(id),
    product_id          INTEGER NOT NULL REFERENCES products(id),
    qty_ordered         INTEGER NOT NULL CHECK (qty_ordered > 0),
    qty_received        INTEGER NOT NULL DEFAULT 0 CHECK (qty_received >= 0),
    unit_cost_cents     INTEGER NOT NULL CHECK (unit_cost_cents > 0),
    UNIQUE (po_id, product_id),
    CHECK (qty_received <= qty_ordered)
);

CREATE TABLE receipts (
    id              INTEGER PRIMARY KEY,
    po_line_id      INTEGER NOT NULL REFERENCES po_lines(id),
    lot_id          INTEGER NOT NULL REFERENCES lots(id),
    bin_id          INTEGER NOT NULL REFERENCES bins(id),
    quantity        INTEGER NOT NULL CHECK (quantity > 0),
    received_by     INTEGER NOT NULL REFERENCES staff(id),
    received_at     TEXT NOT NULL
);

CREATE TABLE customers (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL,
    email   TEXT NOT NULL UNIQUE,
    city    TEXT NOT NULL
);

CREATE TABLE carriers (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE,
    name                TEXT NOT NULL UNIQUE,
    max_weight_kg       INTEGER NOT NULL CHECK (max_weight_kg > 0),
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

CREATE TABLE sales_orders (
    id              INTEGER PRIMARY KEY,
    number          TEXT NOT NULL UNIQUE,
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    warehouse_id    INTEGER NOT NULL REFERENCES warehouses(id),
    status          TEXT NOT NULL CHECK (status IN ('pending', 'picking', 'packed', 'shipped', 'cancelled')),
    created_at      TEXT NOT NULL,
    ship_by         TEXT NOT NULL,
    packed_at       TEXT,
    cancel_reason   TEXT,
    CHECK ((status IN ('packed', 'shipped')) = (packed_at IS NOT NULL)),
    CHECK ((status = 'cancelled') = (cancel_reason IS NOT NULL))
);

CREATE TABLE so_lines (
    id              INTEGER PRIMARY KEY,
    so_id           INTEGER NOT NULL REFERENCES sales_orders(id),
    product_id      INTEGER NOT NULL REFERENCES products(id),
    qty_ordered     INTEGER NOT NULL CHECK (qty_ordered > 0),
    qty_picked      INTEGER NOT NULL DEFAULT 0 CHECK (qty_picked >= 0),
    UNIQUE (so_id, product_id),
    CHECK (qty_picked <= qty_ordered)
);

CREATE TABLE picks (
    id              INTEGER PRIMARY KEY,
    so_line_id      INTEGER NOT NULL REFERENCES so_lines(id),
    lot_id          INTEGER NOT NULL REFERENCES lots(id),
    bin_id          INTEGER NOT NULL REFERENCES bins(id),
    quantity        INTEGER NOT NULL CHECK (quantity > 0),
    picked_by       INTEGER NOT NULL REFERENCES staff(id),
    picked_at       TEXT NOT NULL
);

CREATE TABLE shipments (
    id                  INTEGER PRIMARY KEY,
    so_id               INTEGER NOT NULL UNIQUE REFERENCES sales_orders(id),
    carrier_id          INTEGER NOT NULL REFERENCES carriers(id),
    tracking_number     TEXT NOT NULL UNIQUE,
    weight_grams        INTEGER NOT NULL CHECK (weight_grams > 0),
    shipped_by          INTEGER NOT NULL REFERENCES staff(id),
    shipped_at          TEXT NOT NULL
);

CREATE TABLE transfers (
    id                  INTEGER PRIMARY KEY,
    number              TEXT NOT NULL UNIQUE,
    lot_id              INTEGER NOT NULL REFERENCES lots(id),
    from_bin_id         INTEGER NOT NULL REFERENCES bins(id),
    to_warehouse_id     INTEGER NOT NULL REFERENCES warehouses(id),
    to_bin_id           INTEGER REFERENCES bins(id),
    quantity            INTEGER NOT NULL CHECK (quantity > 0),
    status              TEXT NOT NULL CHECK (status IN ('in_transit', 'received')),
    created_by          INTEGER NOT NULL REFERENCES staff(id),
    created_at          TEXT NOT NULL,
    received_by         INTEGER REFERENCES staff(id),
    received_at         TEXT,
    CHECK ((status = 'received') = (received_at IS NOT NULL)),
    CHECK ((received_at IS NULL) = (to_bin_id IS NULL)),
    CHECK ((received_at IS NULL) = (received_by IS NULL))
);

CREATE TABLE reason_codes (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL,
    direction   TEXT NOT NULL CHECK (direction IN ('decrease', 'increase', 'either'))
);

-- A cycle count that found a difference. Adjustments worth more than £500 (|difference| x unit cost) wait
-- for a supervisor's approval before the stock changes.
CREATE TABLE stock_adjustments (
    id              INTEGER PRIMARY KEY,
    bin_id          INTEGER NOT NULL REFERENCES bins(id),
    lot_id          INTEGER NOT NULL REFERENCES lots(id),
    qty_system      INTEGER NOT NULL CHECK (qty_system >= 0),
    qty_counted     INTEGER NOT NULL CHECK (qty_counted >= 0),
    reason_code_id  INTEGER NOT NULL REFERENCES reason_codes(id),
    status          TEXT NOT NULL CHECK (status IN ('pending_approval', 'applied', 'rejected')),
    counted_by      INTEGER NOT NULL REFERENCES staff(id),
    counted_at      TEXT NOT NULL,
    decided_by      INTEGER REFERENCES staff(id),
    decided_at      TEXT,
    CHECK (qty_counted <> qty_system),
    CHECK ((decided_at IS NULL) = (decided_by IS NULL)),
    CHECK (status <> 'pending_approval' OR decided_at IS NULL),
    CHECK (decided_by IS NULL OR decided_by <> counted_by)
);

CREATE TABLE supplier_returns (
    id              INTEGER PRIMARY KEY,
    number          TEXT NOT NULL UNIQUE,
    supplier_id     INTEGER NOT NULL REFERENCES suppliers(id),
    lot_id          INTEGER NOT NULL REFERENCES lots(id),
    bin_id          INTEGER NOT NULL REFERENCES bins(id),
    quantity        INTEGER NOT NULL CHECK (quantity > 0),
    reason          TEXT NOT NULL CHECK (length(reason) BETWEEN 3 AND 500),
    created_by      INTEGER NOT NULL REFERENCES staff(id),
    created_at      TEXT NOT NULL
);

CREATE INDEX idx_stock_lot ON stock(lot_id);
CREATE INDEX idx_lots_product ON lots(product_id);
CREATE INDEX idx_bins_zone ON bins(zone_id);
CREATE INDEX idx_po_lines_po ON po_lines(po_id);
CREATE INDEX idx_so_lines_so ON so_lines(so_id);
CREATE INDEX idx_picks_line ON picks(so_line_id);
CREATE INDEX idx_adjust_status ON stock_adjustments(status);
