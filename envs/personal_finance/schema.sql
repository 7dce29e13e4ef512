-- personal_finance: a budgeting app (users, households, accounts, transactions, budgets, goals, bills).
-- Timestamps are ISO-8601 text without time zone, dates "YYYY-MM-DD", months "YYYY-MM".
-- Money is integer cents. Transaction amounts are signed from the account holder's side: negative = money
-- out (spending, or a purchase on a card), positive = money in (income, refunds, card payments received).
-- Checking / savings: balance = opening_balance + sum(amounts). Credit card: balance = amount owed =
-- opening_balance - sum(amounts).

CREATE TABLE users (
    id          INTEGER PRIMARY KEY,
    full_name   TEXT NOT NULL,
    email       TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);

CREATE TABLE households (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_by  INTEGER NOT NULL REFERENCES users(id),
    created_at  TEXT NOT NULL
);

CREATE TABLE household_members (
    id            INTEGER PRIMARY KEY,
    household_id  INTEGER NOT NULL REFERENCES households(id),
    user_id       INTEGER NOT NULL REFERENCES users(id),
    role          TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
    joined_at     TEXT NOT NULL,
    UNIQUE (household_id, user_id)
);

CREATE TABLE institutions (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);

CREATE TABLE accounts (
    id                     INTEGER PRIMARY KEY,
    user_id                INTEGER NOT NULL REFERENCES users(id),
    household_id           INTEGER REFERENCES households(id),
    institution_id         INTEGER NOT NULL REFERENCES institutions(id),
    name                   TEXT NOT NULL,
    account_type           TEXT NOT NULL CHECK (account_type IN ('checking', 'savings', 'credit_card')),
    mask                   TEXT NOT NULL CHECK (length(mask) = 4),
    opening_balance_cents  INTEGER NOT NULL,
    balance_cents          INTEGER NOT NULL,
    credit_limit_cents     INTEGER CHECK (credit_limit_cents IS NULL OR credit_limit_cents > 0),
    status                 TEXT NOT NULL CHECK (status IN ('active', 'closed')),
    opened_at              TEXT NOT NULL,
    UNIQUE (user_id, name),
    CHECK ((account_type = 'credit_card') = (credit_limit_cents IS NOT NULL)),
    CHECK (balance_cents >= 0),
    CHECK (credit_limit_cents IS NULL OR balance_cents <= credit_limit_cents)
);

CREATE TABLE categories (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE,
    kind  TEXT NOT NULL CHECK (kind IN ('expense', 'income', 'transfer'))
);

CREATE TABLE merchants (
    id                   INTEGER PRIMARY KEY,
    name                 TEXT NOT NULL UNIQUE,
    default_category_id  INTEGER REFERENCES categories(id)
);

CREATE TABLE transactions (
    id            INTEGER PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts(id),
    posted_on     TEXT NOT NULL,
    description   TEXT NOT NULL,
    merchant_id   INTEGER REFERENCES merchants(id),
    category_id   INTEGER REFERENCES categories(id),
    amount_cents  INTEGER NOT NULL CHECK (amount_cents <> 0),
    status        TEXT NOT NULL CHECK (status IN ('pending', 'posted')),
    is_split      INTEGER NOT NULL DEFAULT 0 CHECK (is_split IN (0, 1)),
    note          TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL,
    CHECK (is_split = 0 OR category_id IS NULL)
);

-- The parts of a split transaction; they sum to the transaction's amount.
CREATE TABLE transaction_splits (
    id              INTEGER PRIMARY KEY,
    transaction_id  INTEGER NOT NULL REFERENCES transactions(id),
    category_id     INTEGER NOT NULL REFERENCES categories(id),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents <> 0)
);

CREATE TABLE budgets (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id),
    month        TEXT NOT NULL CHECK (month GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]'),
    category_id  INTEGER NOT NULL REFERENCES categories(id),
    limit_cents  INTEGER NOT NULL CHECK (limit_cents > 0),
    created_at   TEXT NOT NULL,
    UNIQUE (user_id, month, category_id)
);

CREATE TABLE savings_goals (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users(id),
    name          TEXT NOT NULL,
    target_cents  INTEGER NOT NULL CHECK (target_cents > 0),
    saved_cents   INTEGER NOT NULL DEFAULT 0 CHECK (saved_cents >= 0),
    target_date   TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('active', 'achieved', 'cancelled')),
    created_at    TEXT NOT NULL,
    UNIQUE (user_id, name),
    CHECK (saved_cents <= target_cents),
    CHECK ((status = 'achieved') = (saved_cents = target_cents))
);

CREATE TABLE goal_contributions (
    id               INTEGER PRIMARY KEY,
    goal_id          INTEGER NOT NULL REFERENCES savings_goals(id),
    from_account_id  INTEGER NOT NULL REFERENCES accounts(id),
    transaction_id   INTEGER NOT NULL UNIQUE REFERENCES transactions(id),
    amount_cents     INTEGER NOT NULL CHECK (amount_cents > 0),
    contributed_on   TEXT NOT NULL
);

CREATE TABLE bills (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users(id),
    name            TEXT NOT NULL,
    merchant_id     INTEGER NOT NULL REFERENCES merchants(id),
    category_id     INTEGER NOT NULL REFERENCES categories(id),
    account_id      INTEGER NOT NULL REFERENCES accounts(id),
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    frequency       TEXT NOT NULL CHECK (frequency IN ('monthly', 'quarterly', 'yearly')),
    next_due_on     TEXT NOT NULL,
    autopay         INTEGER NOT NULL DEFAULT 0 CHECK (autopay IN (0, 1)),
    status          TEXT NOT NULL CHECK (status IN ('active', 'cancelled')),
    created_at      TEXT NOT NULL,
    UNIQUE (user_id, name)
);

CREATE TABLE bill_payments (
    id              INTEGER PRIMARY KEY,
    bill_id         INTEGER NOT NULL REFERENCES bills(id),
    account_id      INTEGER NOT NULL REFERENCES accounts(id),
    transaction_id  INTEGER NOT NULL UNIQUE REFERENCES transactions(id),
    due_on          TEXT NOT NULL,
    amount_cents    INTEGER NOT NULL CHECK (amount_cents > 0),
    paid_on         TEXT NOT NULL,
    UNIQUE (bill_id, due_on)
);

CREATE TABLE categorization_rules (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id),
    merchant_id  INTEGER NOT NULL REFERENCES merchants(id),
    category_id  INTEGER NOT NULL REFERENCES categories(id),
    created_at   TEXT NOT NULL,
    UNIQUE (user_id, merchant_id)
);

CREATE TABLE net_worth_snapshots (
    id                 INTEGER PRIMARY KEY,
    user_id            INTEGER NOT NULL REFERENCES users(id),
    taken_on           TEXT NOT NULL,
    assets_cents       INTEGER NOT NULL CHECK (assets_cents >= 0),
    liabilities_cents  INTEGER NOT NULL CHECK (liabilities_cents >= 0),
    net_cents          INTEGER NOT NULL,
    UNIQUE (user_id, taken_on),
    CHECK (net_cents = assets_cents - liabilities_cents)
);

CREATE TABLE alerts (
    id               INTEGER PRIMARY KEY,
    user_id          INTEGER NOT NULL REFERENCES users(id),
    alert_type       TEXT NOT NULL CHECK (alert_type IN ('low_balance', 'large_transaction', 'budget_exceeded', 'bill_due')),
    account_id       INTEGER REFERENCES accounts(id),
    threshold_cents  INTEGER CHECK (threshold_cents IS NULL OR threshold_cents > 0),
    is_active        INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at       TEXT NOT NULL,
    CHECK (alert_type NOT IN ('low_balance', 'large_transaction') OR threshold_cents IS NOT NULL)
);

CREATE INDEX idx_tx_account_date ON transactions(account_id, posted_on);
CREATE INDEX idx_tx_merchant ON transactions(merchant_id);
CREATE INDEX idx_splits_tx ON transaction_splits(transaction_id);
CREATE INDEX idx_accounts_user ON accounts(user_id);
CREATE INDEX idx_members_user ON household_members(user_id);
