-- banking: a retail bank's customer-facing systems (branches, customers, accounts, cards, payments).
-- Timestamps are ISO-8601 text without time zone ("2026-03-16T10:00:00"), dates are "YYYY-MM-DD".
-- Money is integer cents. A debit is a negative transaction amount, a credit a positive one.

CREATE TABLE branches (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    city        TEXT NOT NULL,
    address     TEXT NOT NULL,
    phone       TEXT NOT NULL,
    opened_on   TEXT NOT NULL
);

CREATE TABLE staff (
    id          INTEGER PRIMARY KEY,
    branch_id   INTEGER NOT NULL REFERENCES branches(id),
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL CHECK (role IN ('teller', 'branch_manager', 'dispute_officer')),
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

-- Account products and their rules.
CREATE TABLE products (
    id                          INTEGER PRIMARY KEY,
    code                        TEXT NOT NULL UNIQUE,
    name                        TEXT NOT NULL UNIQUE,
    kind                        TEXT NOT NULL CHECK (kind IN ('checking', 'savings')),
    daily_transfer_limit_cents  INTEGER NOT NULL CHECK (daily_transfer_limit_cents > 0),
    monthly_withdrawal_limit    INTEGER CHECK (monthly_withdrawal_limit IS NULL OR monthly_withdrawal_limit > 0),
    overdraft_fee_cents         INTEGER NOT NULL DEFAULT 0 CHECK (overdraft_fee_cents >= 0),
    max_overdraft_cents         INTEGER NOT NULL DEFAULT 0 CHECK (max_overdraft_cents >= 0),
    max_card_daily_limit_cents  INTEGER NOT NULL DEFAULT 0 CHECK (max_card_daily_limit_cents >= 0),
    interest_rate_bps           INTEGER NOT NULL DEFAULT 0 CHECK (interest_rate_bps >= 0),
    CHECK (kind = 'checking' OR (max_overdraft_cents = 0 AND max_card_daily_limit_cents = 0))
);

CREATE TABLE customers (
    id              INTEGER PRIMARY KEY,
    first_name      TEXT NOT NULL,
    last_name       TEXT NOT NULL,
    email           TEXT NOT NULL UNIQUE,
    phone           TEXT NOT NULL,
    date_of_birth   TEXT NOT NULL,
    home_branch_id  INTEGER NOT NULL REFERENCES branches(id),
    status          TEXT NOT NULL CHECK (status IN ('active', 'locked')),
    created_at      TEXT NOT NULL
);

CREATE TABLE accounts (
    id                      INTEGER PRIMARY KEY,
    account_number          TEXT NOT NULL UNIQUE CHECK (length(account_number) = 10),
    customer_id             INTEGER NOT NULL REFERENCES customers(id),
    product_id              INTEGER NOT NULL REFERENCES products(id),
    nickname                TEXT NOT NULL DEFAULT '',
    balance_cents           INTEGER NOT NULL,
    overdraft_limit_cents   INTEGER NOT NULL DEFAULT 0 CHECK (overdraft_limit_cents >= 0),
    status                  TEXT NOT NULL CHECK (status IN ('open', 'frozen', 'closed')),
    opened_on               TEXT NOT NULL,
    closed_on               TEXT,
    CHECK (balance_cents >= -overdraft_limit_cents),
    CHECK ((status = 'closed') = (closed_on IS NOT NULL)),
    CHECK (status <> 'closed' OR balance_cents = 0)
);

CREATE TABLE cards (
    id                  INTEGER PRIMARY KEY,
    account_id          INTEGER NOT NULL REFERENCES accounts(id),
    last4               TEXT NOT NULL CHECK (length(last4) = 4),
    network             TEXT NOT NULL CHECK (network IN ('visa', 'mastercard')),
    status              TEXT NOT NULL CHECK (status IN ('active', 'frozen', 'cancelled', 'expired')),
    daily_limit_cents   INTEGER NOT NULL CHECK (daily_limit_cents > 0),
    expires_on          TEXT NOT NULL,
    issued_on           TEXT NOT NULL,
    replaced_card_id    INTEGER REFERENCES cards(id),
    cancel_reason       TEXT CHECK (cancel_reason IS NULL OR cancel_reason IN ('lost', 'stolen', 'damaged', 'closed')),
    CHECK ((status = 'cancelled') = (cancel_reason IS NOT NULL))
);

CREATE TABLE payees (
    id              INTEGER PRIMARY KEY,
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    name            TEXT NOT NULL,
    bank_name       TEXT NOT NULL,
    account_number  TEXT NOT NULL,
    nickname        TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'removed')),
    created_at      TEXT NOT NULL,
    removed_at      TEXT,
    UNIQUE (customer_id, account_number),
    CHECK ((status = 'removed') = (removed_at IS NOT NULL))
);

-- Money movements started by the customer: between their own accounts or to a payee.
CREATE TABLE transfers (
    id              INTEGER PRIMARY KEY,
    reference       TEXT NOT NULL UNIQUE,
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    from_account_id INTEGER NOT NULL REFERENCES accounts(id),
    to_account_id   INTEGER REFERENCES accounts(id),
    payee_id        INTEGER REFERENCES payees(id),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    memo            TEXT NOT NULL DEFAULT '',
    scheduled_payment_id INTEGER REFERENCES scheduled_payments(id),
    created_at      TEXT NOT NULL,
    CHECK ((to_account_id IS NULL) <> (payee_id IS NULL)),
    CHECK (to_account_id IS NULL OR to_account_id <> from_account_id)
);

CREATE TABLE transactions (
    id                  INTEGER PRIMARY KEY,
    reference           TEXT NOT NULL UNIQUE,
    account_id          INTEGER NOT NULL REFERENCES accounts(id),
    posted_at           TEXT NOT NULL,
    kind                TEXT NOT NULL CHECK (kind IN ('deposit', 'withdrawal', 'card_purchase', 'transfer_in',
                            'transfer_out', 'bill_payment', 'fee', 'interest', 'refund')),
    amount_cents        INTEGER NOT NULL CHECK (amount_cents <> 0),
    balance_after_cents INTEGER NOT NULL,
    description         TEXT NOT NULL,
    merchant            TEXT,
    card_id             INTEGER REFERENCES cards(id),
    transfer_id         INTEGER REFERENCES transfers(id),
    CHECK ((kind IN ('deposit', 'transfer_in', 'interest', 'refund')) = (amount_cents > 0)),
    CHECK ((kind = 'card_purchase') = (card_id IS NOT NULL))
);

CREATE TABLE scheduled_payments (
    id              INTEGER PRIMARY KEY,
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    from_account_id INTEGER NOT NULL REFERENCES accounts(id),
    payee_id        INTEGER NOT NULL REFERENCES payees(id),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    frequency       TEXT NOT NULL CHECK (frequency IN ('once', 'weekly', 'monthly')),
    next_run_on     TEXT,
    end_on          TEXT,
    status          TEXT NOT NULL CHECK (status IN ('active', 'paused', 'cancelled', 'completed')),
    memo            TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    CHECK ((status IN ('active', 'paused')) = (next_run_on IS NOT NULL))
);

CREATE TABLE disputes (
    id              INTEGER PRIMARY KEY,
    reference       TEXT NOT NULL UNIQUE,
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    transaction_id  INTEGER NOT NULL REFERENCES transactions(id),
    reason          TEXT NOT NULL CHECK (reason IN ('unauthorized', 'duplicate', 'not_received', 'wrong_amount', 'other')),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    status          TEXT NOT NULL CHECK (status IN ('opened', 'under_review', 'resolved', 'rejected', 'withdrawn')),
    officer_id      INTEGER REFERENCES staff(id),
    resolution_note TEXT,
    opened_at       TEXT NOT NULL,
    closed_at       TEXT,
    CHECK ((status IN ('resolved', 'rejected', 'withdrawn')) = (closed_at IS NOT NULL)),
    CHECK (status = 'opened' OR status = 'withdrawn' OR officer_id IS NOT NULL)
);

CREATE TABLE dispute_events (
    id          INTEGER PRIMARY KEY,
    dispute_id  INTEGER NOT NULL REFERENCES disputes(id),
    from_status TEXT,
    to_status   TEXT NOT NULL CHECK (to_status IN ('opened', 'under_review', 'resolved', 'rejected', 'withdrawn')),
    actor       TEXT NOT NULL,
    note        TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);

CREATE TABLE statements (
    id                      INTEGER PRIMARY KEY,
    account_id              INTEGER NOT NULL REFERENCES accounts(id),
    period_start            TEXT NOT NULL,
    period_end              TEXT NOT NULL,
    opening_balance_cents   INTEGER NOT NULL,
    closing_balance_cents   INTEGER NOT NULL,
    total_in_cents          INTEGER NOT NULL CHECK (total_in_cents >= 0),
    total_out_cents         INTEGER NOT NULL CHECK (total_out_cents >= 0),
    issued_on               TEXT NOT NULL,
    UNIQUE (account_id, period_start),
    CHECK (closing_balance_cents = opening_balance_cents + total_in_cents - total_out_cents)
);

CREATE TABLE alerts (
    id              INTEGER PRIMARY KEY,
    customer_id     INTEGER NOT NULL REFERENCES customers(id),
    account_id      INTEGER NOT NULL REFERENCES accounts(id),
    alert_type      TEXT NOT NULL CHECK (alert_type IN ('low_balance', 'large_transaction')),
    threshold_cents INTEGER NOT NULL CHECK (threshold_cents > 0),
    channel         TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
    is_active       INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at      TEXT NOT NULL
);

CREATE TABLE notifications (
    id          INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    alert_id    INTEGER REFERENCES alerts(id),
    channel     TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
    message     TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE activity_log (
    id          INTEGER PRIMARY KEY,
    customer_id INTEGER REFERENCES customers(id),
    staff_id    INTEGER REFERENCES staff(id),
    action      TEXT NOT NULL,
    detail      TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    CHECK (customer_id IS NOT NULL OR staff_id IS NOT NULL)
);

CREATE INDEX idx_accounts_customer ON accounts(customer_id);
CREATE INDEX idx_cards_account ON cards(account_id);
CREATE INDEX idx_tx_account ON transactions(account_id, posted_at);
CREATE INDEX idx_transfers_from ON transfers(from_account_id, created_at);
CREATE INDEX idx_payees_customer ON payees(customer_id);
CREATE INDEX idx_disputes_customer ON disputes(customer_id);
