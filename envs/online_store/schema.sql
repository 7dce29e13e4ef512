-- Online store: catalogue, customers, carts, orders, payments, shipments, returns, reviews, inventory.
-- Money is integer cents; dates and times are ISO-8601 text without a time zone.

CREATE TABLE categories (
    id          INTEGER PRIMARY KEY,
    slug        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    parent_id   INTEGER REFERENCES categories(id),
    description TEXT NOT NULL DEFAULT ''
);

CREATE TABLE products (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    brand       TEXT NOT NULL,
    category_id INTEGER NOT NULL REFERENCES categories(id),
    description TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'discontinued')),
    created_at  TEXT NOT NULL
);

CREATE TABLE product_variants (
    id                  INTEGER PRIMARY KEY,
    product_id          INTEGER NOT NULL REFERENCES products(id),
    sku                 TEXT NOT NULL UNIQUE,
    option_label        TEXT NOT NULL,           -- e.g. 'White / M', 'Size 10', 'Standard'
    price_cents         INTEGER NOT NULL CHECK (price_cents > 0),
    stock               INTEGER NOT NULL CHECK (stock >= 0),
    weight_grams        INTEGER NOT NULL CHECK (weight_grams > 0),
    active              INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1))
);

CREATE TABLE customers (
    id               INTEGER PRIMARY KEY,
    first_name       TEXT NOT NULL,
    last_name        TEXT NOT NULL,
    email            TEXT NOT NULL UNIQUE,
    phone            TEXT,
    marketing_opt_in INTEGER NOT NULL DEFAULT 0 CHECK (marketing_opt_in IN (0, 1)),
    card_last4       TEXT CHECK (card_last4 IS NULL OR length(card_last4) = 4),  -- card on file
    gift_card_balance_cents INTEGER NOT NULL DEFAULT 0 CHECK (gift_card_balance_cents >= 0),
    status           TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    created_at       TEXT NOT NULL
);

CREATE TABLE addresses (
    id          INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    label       TEXT NOT NULL,                   -- 'Home', 'Work', ...
    recipient   TEXT NOT NULL,
    line1       TEXT NOT NULL,
    line2       TEXT,
    city        TEXT NOT NULL,
    state       TEXT NOT NULL REFERENCES tax_rates(state),
    postal_code TEXT NOT NULL,
    country     TEXT NOT NULL DEFAULT 'US' CHECK (country = 'US'),
    is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE tax_rates (
    state      TEXT PRIMARY KEY CHECK (length(state) = 2),
    state_name TEXT NOT NULL,
    rate_bp    INTEGER NOT NULL CHECK (rate_bp BETWEEN 0 AND 2000)   -- basis points: 725 = 7.25 %
);

CREATE TABLE shipping_methods (
    code            TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    price_cents     INTEGER NOT NULL CHECK (price_cents >= 0),
    free_over_cents INTEGER CHECK (free_over_cents IS NULL OR free_over_cents > 0),
    transit_days    INTEGER NOT NULL CHECK (transit_days > 0)
);

CREATE TABLE coupons (
    id                 INTEGER PRIMARY KEY,
    code               TEXT NOT NULL UNIQUE,
    description        TEXT NOT NULL,
    discount_type      TEXT NOT NULL CHECK (discount_type IN ('percent', 'fixed', 'free_shipping')),
    discount_value     INTEGER NOT NULL CHECK (discount_value >= 0), -- percent, or cents for 'fixed'
    min_subtotal_cents INTEGER NOT NULL DEFAULT 0 CHECK (min_subtotal_cents >= 0),
    first_order_only   INTEGER NOT NULL DEFAULT 0 CHECK (first_order_only IN (0, 1)),
    valid_from         TEXT NOT NULL,
    valid_until        TEXT NOT NULL,
    max_uses           INTEGER CHECK (max_uses IS NULL OR max_uses > 0),
    times_used         INTEGER NOT NULL DEFAULT 0 CHECK (times_used >= 0),
    active             INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    CHECK (valid_from <= valid_until),
    CHECK (discount_type <> 'percent' OR discount_value BETWEEN 1 AND 100)
);

CREATE TABLE carts (
    id          INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'converted', 'abandoned')),
    coupon_id   INTEGER REFERENCES coupons(id),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE cart_items (
    id         INTEGER PRIMARY KEY,
    cart_id    INTEGER NOT NULL REFERENCES carts(id),
    variant_id INTEGER NOT NULL REFERENCES product_variants(id),
    quantity   INTEGER NOT NULL CHECK (quantity > 0),
    added_at   TEXT NOT NULL,
    UNIQUE (cart_id, variant_id)
);

CREATE TABLE orders (
    id              INTEGER PRIMARY KEY,
    order_number    TEXT NOT NULL UNIQUE,
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    address_id      INTEGER NOT NULL REFERENCES addresses(id),
    ship_to         TEXT NOT NULL,                -- snapshot of the address when placed/changed
    shipping_method TEXT NOT NULL REFERENCES shipping_methods(code),
    coupon_id       INTEGER REFERENCES coupons(id),
    status          TEXT NOT NULL CHECK (status IN ('paid', 'shipped', 'delivered', 'cancelled', 'refunded')),
    subtotal_cents  INTEGER NOT NULL CHECK (subtotal_cents >= 0),
    discount_cents  INTEGER NOT NULL DEFAULT 0 CHECK (discount_cents >= 0),
    tax_cents       INTEGER NOT NULL DEFAULT 0 CHECK (tax_cents >= 0),
    shipping_cents  INTEGER NOT NULL DEFAULT 0 CHECK (shipping_cents >= 0),
    total_cents     INTEGER NOT NULL CHECK (total_cents >= 0),
    placed_at       TEXT NOT NULL,
    cancelled_at    TEXT,
    cancel_reason   TEXT,
    CHECK (discount_cents <= subtotal_cents),
    CHECK (total_cents = subtotal_cents - discount_cents + tax_cents + shipping_cents)
);

CREATE TABLE order_items (
    id               INTEGER PRIMARY KEY,
    order_id         INTEGER NOT NULL REFERENCES orders(id),
    variant_id       INTEGER NOT NULL REFERENCES product_variants(id),
    quantity         INTEGER NOT NULL CHECK (quantity > 0),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    line_total_cents INTEGER NOT NULL CHECK (line_total_cents >= 0),
    CHECK (line_total_cents = quantity * unit_price_cents),
    UNIQUE (order_id, variant_id)
);

CREATE TABLE payments (
    id             INTEGER PRIMARY KEY,
    order_id       INTEGER NOT NULL REFERENCES orders(id),
    method         TEXT NOT NULL CHECK (method IN ('card', 'paypal', 'gift_card')),
    card_last4     TEXT,
    amount_cents   INTEGER NOT NULL CHECK (amount_cents >= 0),
    refunded_cents INTEGER NOT NULL DEFAULT 0 CHECK (refunded_cents >= 0),
    status         TEXT NOT NULL CHECK (status IN ('captured', 'partially_refunded', 'refunded', 'failed')),
    paid_at        TEXT NOT NULL,
    CHECK (refunded_cents <= amount_cents)
);

CREATE TABLE shipments (
    id              INTEGER PRIMARY KEY,
    order_id        INTEGER NOT NULL REFERENCES orders(id),
    carrier         TEXT NOT NULL CHECK (carrier IN ('UPS', 'USPS', 'FedEx', 'DHL')),
    tracking_number TEXT NOT NULL UNIQUE,
    status          TEXT NOT NULL CHECK (status IN ('in_transit', 'delivered', 'returned_to_sender')),
    shipped_at      TEXT NOT NULL,
    delivered_at    TEXT,
    CHECK (delivered_at IS NULL OR delivered_at >= shipped_at)
);

CREATE TABLE returns (
    id            INTEGER PRIMARY KEY,
    rma_number    TEXT NOT NULL UNIQUE,
    order_id      INTEGER NOT NULL REFERENCES orders(id),
    order_item_id INTEGER NOT NULL REFERENCES order_items(id),
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    reason        TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('requested', 'approved', 'rejected', 'received', 'refunded')),
    restocked     INTEGER NOT NULL DEFAULT 0 CHECK (restocked IN (0, 1)),
    decision_note TEXT,
    requested_at  TEXT NOT NULL,
    decided_at    TEXT,
    received_at   TEXT,
    refunded_at   TEXT
);

CREATE TABLE refunds (
    id           INTEGER PRIMARY KEY,
    order_id     INTEGER NOT NULL REFERENCES orders(id),
    payment_id   INTEGER NOT NULL REFERENCES payments(id),
    return_id    INTEGER REFERENCES returns(id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    reason       TEXT NOT NULL,
    created_at   TEXT NOT NULL
);

CREATE TABLE reviews (
    id                INTEGER PRIMARY KEY,
    product_id        INTEGER NOT NULL REFERENCES products(id),
    customer_id       INTEGER NOT NULL REFERENCES customers(id),
    rating            INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    title             TEXT NOT NULL,
    body              TEXT NOT NULL,
    verified_purchase INTEGER NOT NULL DEFAULT 0 CHECK (verified_purchase IN (0, 1)),
    status            TEXT NOT NULL DEFAULT 'published' CHECK (status IN ('published', 'hidden')),
    moderation_note   TEXT,
    created_at        TEXT NOT NULL,
    UNIQUE (product_id, customer_id)
);

CREATE TABLE inventory_movements (
    id              INTEGER PRIMARY KEY,
    variant_id      INTEGER NOT NULL REFERENCES product_variants(id),
    quantity_change INTEGER NOT NULL CHECK (quantity_change <> 0),
    reason          TEXT NOT NULL CHECK (reason IN ('initial', 'restock', 'sale', 'cancellation', 'return', 'adjustment')),
    order_id        INTEGER REFERENCES orders(id),
    return_id       INTEGER REFERENCES returns(id),
    note            TEXT,
    created_at      TEXT NOT NULL
);

CREATE TABLE order_events (
    id          INTEGER PRIMARY KEY,
    order_id    INTEGER NOT NULL REFERENCES orders(id),
    event_type  TEXT NOT NULL CHECK (event_type IN ('placed', 'address_changed', 'shipped', 'delivered',
                                                    'cancelled', 'return_requested', 'return_approved',
                                                    'return_rejected', 'return_received', 'refunded')),
    detail      TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);

CREATE INDEX idx_products_category ON products(category_id);
CREATE INDEX idx_variants_product ON product_variants(product_id);
CREATE INDEX idx_addresses_customer ON addresses(customer_id);
CREATE UNIQUE INDEX idx_carts_one_open ON carts(customer_id) WHERE status = 'open';
CREATE INDEX idx_orders_customer ON orders(customer_id, placed_at);
CREATE INDEX idx_order_items_order ON order_items(order_id);
CREATE INDEX idx_payments_order ON payments(order_id);
CREATE INDEX idx_shipments_order ON shipments(order_id);
CREATE INDEX idx_returns_order ON returns(order_id);
CREATE INDEX idx_reviews_product ON reviews(product_id, status);
CREATE INDEX idx_movements_variant ON inventory_movements(variant_id, created_at);
CREATE INDEX idx_order_events_order ON order_events(order_id, created_at);
