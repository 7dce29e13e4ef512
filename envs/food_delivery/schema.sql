-- food_delivery: a food delivery app (restaurants, menus, carts, orders, couriers, credits, support).
-- Timestamps are ISO-8601 text without time zone ("2026-04-14T18:30:00"), dates "YYYY-MM-DD",
-- opening times "HH:MM". Money is integer cents. Weekdays: 0 = Monday ... 6 = Sunday.

CREATE TABLE zones (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE,
    city                TEXT NOT NULL
);

CREATE TABLE restaurants (
    id                  INTEGER PRIMARY KEY,
    name                TEXT NOT NULL,
    cuisine             TEXT NOT NULL,
    zone_id             INTEGER NOT NULL REFERENCES zones(id),
    street              TEXT NOT NULL,
    phone               TEXT NOT NULL,
    min_order_cents     INTEGER NOT NULL CHECK (min_order_cents >= 0),
    prep_minutes        INTEGER NOT NULL CHECK (prep_minutes BETWEEN 5 AND 90),
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at          TEXT NOT NULL
);

CREATE TABLE opening_hours (
    id                  INTEGER PRIMARY KEY,
    restaurant_id       INTEGER NOT NULL REFERENCES restaurants(id),
    weekday             INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    opens               TEXT NOT NULL CHECK (opens GLOB '[0-2][0-9]:[0-5][0-9]'),
    closes              TEXT NOT NULL CHECK (closes GLOB '[0-2][0-9]:[0-5][0-9]'),
    UNIQUE (restaurant_id, weekday),
    CHECK (closes > opens)
);

-- The zones a restaurant delivers to, with the delivery fee charged there.
CREATE TABLE delivery_zones (
    id                  INTEGER PRIMARY KEY,
    restaurant_id       INTEGER NOT NULL REFERENCES restaurants(id),
    zone_id             INTEGER NOT NULL REFERENCES zones(id),
    delivery_fee_cents  INTEGER NOT NULL CHECK (delivery_fee_cents >= 0),
    eta_minutes         INTEGER NOT NULL CHECK (eta_minutes > 0),
    UNIQUE (restaurant_id, zone_id)
);

CREATE TABLE menu_items (
    id                  INTEGER PRIMARY KEY,
    restaurant_id       INTEGER NOT NULL REFERENCES restaurants(id),
    category            TEXT NOT NULL,
    name                TEXT NOT NULL,
    description         TEXT NOT NULL DEFAULT '',
    price_cents         INTEGER NOT NULL CHECK (price_cents > 0),
    is_vegetarian       INTEGER NOT NULL DEFAULT 0 CHECK (is_vegetarian IN (0, 1)),
    is_available        INTEGER NOT NULL DEFAULT 1 CHECK (is_available IN (0, 1)),
    UNIQUE (restaurant_id, name)
);

-- Choices on an item: "Size" (pick exactly one), "Extras" (pick up to three) ...
CREATE TABLE option_groups (
    id                  INTEGER PRIMARY KEY,
    item_id             INTEGER NOT NULL REFERENCES menu_items(id),
    name                TEXT NOT NULL,
    min_select          INTEGER NOT NULL CHECK (min_select >= 0),
    max_select          INTEGER NOT NULL CHECK (max_select >= 1),
    UNIQUE (item_id, name),
    CHECK (max_select >= min_select)
);

CREATE TABLE item_options (
    id                  INTEGER PRIMARY KEY,
    group_id            INTEGER NOT NULL REFERENCES option_groups(id),
    name                TEXT NOT NULL,
    price_delta_cents   INTEGER NOT NULL DEFAULT 0 CHECK (price_delta_cents >= 0),
    is_available        INTEGER NOT NULL DEFAULT 1 CHECK (is_available IN (0, 1)),
    UNIQUE (group_id, name)
);

CREATE TABLE customers (
    id                  INTEGER PRIMARY KEY,
    full_name           TEXT NOT NULL,
    email               TEXT NOT NULL UNIQUE,
    phone               TEXT NOT NULL,
    credit_cents        INTEGER NOT NULL DEFAULT 0 CHECK (credit_cents >= 0),
    created_at          TEXT NOT NULL
);

CREATE TABLE addresses (
    id                  INTEGER PRIMARY KEY,
    customer_id         INTEGER NOT NULL REFERENCES customers(id),
    label               TEXT NOT NULL,
    street              TEXT NOT NULL,
    zone_id             INTEGER NOT NULL REFERENCES zones(id),
    instructions        TEXT NOT NULL DEFAULT '',
    is_default          INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    UNIQUE (customer_id, label)
);

CREATE TABLE promo_codes (
    id                  INTEGER PRIMARY KEY,
    code                TEXT NOT NULL UNIQUE CHECK (code = upper(code)),
    description         TEXT NOT NULL,
    kind                TEXT NOT NULL CHECK (kind IN ('percent', 'fixed', 'free_delivery')),
    value               INTEGER NOT NULL CHECK (value >= 0),
    max_discount_cents  INTEGER CHECK (max_discount_cents IS NULL OR max_discount_cents > 0),
    min_subtotal_cents  INTEGER NOT NULL DEFAULT 0 CHECK (min_subtotal_cents >= 0),
    restaurant_id       INTEGER REFERENCES restaurants(id),
    uses_per_customer   INTEGER NOT NULL DEFAULT 1 CHECK (uses_per_customer >= 1),
    valid_from          TEXT NOT NULL,
    valid_until         TEXT NOT NULL,
    is_active           INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    CHECK (kind <> 'percent' OR value BETWEEN 1 AND 100),
    CHECK (valid_until >= valid_from)
);

-- One cart per customer, holding items of one restaurant at a time.
CREATE TABLE carts (
    id                  INTEGER PRIMARY KEY,
    customer_id         INTEGER NOT NULL UNIQUE REFERENCES customers(id),
    restaurant_id       INTEGER REFERENCES restaurants(id),
    promo_code_id       INTEGER REFERENCES promo_codes(id),
    updated_at          TEXT NOT NULL
);

CREATE TABLE cart_items (
    id                  INTEGER PRIMARY KEY,
    cart_id             INTEGER NOT NULL REFERENCES carts(id),
    item_id             INTEGER NOT NULL REFERENCES menu_items(id),
    quantity            INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 20),
    added_at            TEXT NOT NULL
);

CREATE TABLE cart_item_options (
    id                  INTEGER PRIMARY KEY,
    cart_item_id        INTEGER NOT NULL REFERENCES cart_items(id),
    option_id           INTEGER NOT NULL REFERENCES item_options(id),
    UNIQUE (cart_item_id, option_id)
);

CREATE TABLE couriers (
    id                  INTEGER PRIMARY KEY,
    full_name           TEXT NOT NULL,
    phone               TEXT NOT NULL UNIQUE,
    vehicle             TEXT NOT NULL CHECK (vehicle IN ('bicycle', 'scooter', 'car')),
    zone_id             INTEGER NOT NULL REFERENCES zones(id),
    status              TEXT NOT NULL CHECK (status IN ('available', 'on_delivery', 'offline')),
    joined_at           TEXT NOT NULL
);

CREATE TABLE orders (
    id                  INTEGER PRIMARY KEY,
    customer_id         INTEGER NOT NULL REFERENCES customers(id),
    restaurant_id       INTEGER NOT NULL REFERENCES restaurants(id),
    address_id          INTEGER NOT NULL REFERENCES addresses(id),
    zone_id             INTEGER NOT NULL REFERENCES zones(id),
    status              TEXT NOT NULL CHECK (status IN ('placed', 'accepted', 'preparing', 'picked_up', 'delivered', 'cancelled')),
    subtotal_cents      INTEGER NOT NULL CHECK (subtotal_cents > 0),
    delivery_fee_cents  INTEGER NOT NULL CHECK (delivery_fee_cents >= 0),
    discount_cents      INTEGER NOT NULL DEFAULT 0 CHECK (discount_cents >= 0),
    credit_used_cents   INTEGER NOT NULL DEFAULT 0 CHECK (credit_used_cents >= 0),
    total_cents         INTEGER NOT NULL CHECK (total_cents >= 0),
    promo_code_id       INTEGER REFERENCES promo_codes(id),
    courier_id          INTEGER REFERENCES couriers(id),
    note                TEXT NOT NULL DEFAULT '',
    placed_at           TEXT NOT NULL,
    accepted_at         TEXT,
    preparing_at        TEXT,
    picked_up_at        TEXT,
    delivered_at        TEXT,
    cancelled_at        TEXT,
    cancel_reason       TEXT,
    CHECK (total_cents = subtotal_cents + delivery_fee_cents - discount_cents - credit_used_cents),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
    CHECK (status NOT IN ('picked_up', 'delivered') OR courier_id IS NOT NULL)
);

CREATE TABLE order_items (
    id                  INTEGER PRIMARY KEY,
    order_id            INTEGER NOT NULL REFERENCES orders(id),
    item_id             INTEGER NOT NULL REFERENCES menu_items(id),
    item_name           TEXT NOT NULL,
    options_text        TEXT NOT NULL DEFAULT '',
    quantity            INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 20),
    unit_price_cents    INTEGER NOT NULL CHECK (unit_price_cents > 0)
);

-- A customer's rating of a delivered order: once per order.
CREATE TABLE ratings (
    id                  INTEGER PRIMARY KEY,
    order_id            INTEGER NOT NULL UNIQUE REFERENCES orders(id),
    customer_id         INTEGER NOT NULL REFERENCES customers(id),
    food_stars          INTEGER NOT NULL CHECK (food_stars BETWEEN 1 AND 5),
    delivery_stars      INTEGER NOT NULL CHECK (delivery_stars BETWEEN 1 AND 5),
    comment             TEXT NOT NULL DEFAULT '',
    created_at          TEXT NOT NULL
);

-- Missing items refunded as app credit.
CREATE TABLE refunds (
    id                  INTEGER PRIMARY KEY,
    order_id            INTEGER NOT NULL REFERENCES orders(id),
    order_item_id       INTEGER NOT NULL REFERENCES order_items(id),
    quantity            INTEGER NOT NULL CHECK (quantity >= 1),
    amount_cents        INTEGER NOT NULL CHECK (amount_cents > 0),
    reason              TEXT NOT NULL CHECK (reason IN ('missing_item', 'wrong_item', 'damaged')),
    created_at          TEXT NOT NULL
);

-- Every change of a customer's credit balance (customers.credit_cents is their sum).
CREATE TABLE credit_transactions (
    id                  INTEGER PRIMARY KEY,
    customer_id         INTEGER NOT NULL REFERENCES customers(id),
    order_id            INTEGER REFERENCES orders(id),
    kind                TEXT NOT NULL CHECK (kind IN ('loyalty', 'refund', 'redeemed', 'restored', 'goodwill')),
    amount_cents        INTEGER NOT NULL CHECK (amount_cents <> 0),
    created_at          TEXT NOT NULL
);

CREATE TABLE support_tickets (
    id                  INTEGER PRIMARY KEY,
    customer_id         INTEGER NOT NULL REFERENCES customers(id),
    order_id            INTEGER REFERENCES orders(id),
    category            TEXT NOT NULL CHECK (category IN ('late_delivery', 'missing_item', 'wrong_item', 'payment', 'courier', 'account', 'other')),
    subject             TEXT NOT NULL CHECK (length(subject) BETWEEN 3 AND 200),
    message             TEXT NOT NULL CHECK (length(message) BETWEEN 1 AND 4000),
    status              TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    created_at          TEXT NOT NULL,
    resolved_at         TEXT,
    CHECK ((status = 'resolved') = (resolved_at IS NOT NULL))
);

CREATE INDEX idx_orders_customer ON orders(customer_id, placed_at);
CREATE INDEX idx_orders_restaurant ON orders(restaurant_id, status);
CREATE INDEX idx_order_items_order ON order_items(order_id);
CREATE INDEX idx_menu_items_restaurant ON menu_items(restaurant_id);
CREATE INDEX idx_credit_customer ON credit_transactions(customer_id);
