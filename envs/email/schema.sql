-- email: a mail service for the staff of one company (plus outside correspondents).
-- Timestamps are ISO-8601 text without time zone ("2026-03-16T10:00:00"), dates "YYYY-MM-DD".
-- Sizes are bytes. Every mailbox row belongs to exactly one account; a message sent between
-- two accounts exists once per mailbox (the sender's copy in Sent, each recipient's in their inbox),
-- the copies sharing message_ref and thread_id.

CREATE TABLE accounts (
    id              INTEGER PRIMARY KEY,
    email           TEXT NOT NULL UNIQUE CHECK (email = lower(email) AND email LIKE '%_@_%'),
    display_name    TEXT NOT NULL,
    department      TEXT NOT NULL,
    quota_bytes     INTEGER NOT NULL CHECK (quota_bytes > 0),
    status          TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    created_at      TEXT NOT NULL
);

CREATE TABLE folders (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
    kind        TEXT NOT NULL CHECK (kind IN ('inbox', 'sent', 'drafts', 'archive', 'spam', 'trash', 'custom')),
    created_at  TEXT NOT NULL,
    UNIQUE (account_id, name)
);

CREATE TABLE threads (
    id          INTEGER PRIMARY KEY,
    subject     TEXT NOT NULL,
    started_at  TEXT NOT NULL
);

CREATE TABLE messages (
    id              INTEGER PRIMARY KEY,
    account_id      INTEGER NOT NULL REFERENCES accounts(id),
    folder_id       INTEGER NOT NULL REFERENCES folders(id),
    thread_id       INTEGER NOT NULL REFERENCES threads(id),
    message_ref     TEXT NOT NULL,
    in_reply_to     TEXT,
    from_address    TEXT NOT NULL,
    from_name       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    is_draft        INTEGER NOT NULL DEFAULT 0 CHECK (is_draft IN (0, 1)),
    is_read         INTEGER NOT NULL DEFAULT 0 CHECK (is_read IN (0, 1)),
    is_starred      INTEGER NOT NULL DEFAULT 0 CHECK (is_starred IN (0, 1)),
    size_bytes      INTEGER NOT NULL CHECK (size_bytes > 0),
    sent_at         TEXT,
    received_at     TEXT,
    updated_at      TEXT NOT NULL,
    UNIQUE (account_id, message_ref),
    CHECK ((is_draft = 1) = (sent_at IS NULL)),
    CHECK (is_draft = 0 OR is_read = 1)
);

CREATE TABLE message_recipients (
    id          INTEGER PRIMARY KEY,
    message_id  INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('to', 'cc', 'bcc')),
    address     TEXT NOT NULL CHECK (address = lower(address) AND address LIKE '%_@_%'),
    name        TEXT NOT NULL DEFAULT '',
    UNIQUE (message_id, address)
);

CREATE TABLE attachments (
    id          INTEGER PRIMARY KEY,
    message_id  INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    filename    TEXT NOT NULL CHECK (length(filename) BETWEEN 1 AND 120),
    mime_type   TEXT NOT NULL,
    size_bytes  INTEGER NOT NULL CHECK (size_bytes > 0 AND size_bytes <= 26214400)
);

CREATE TABLE labels (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 30),
    color       TEXT NOT NULL CHECK (color IN ('red', 'orange', 'yellow', 'green', 'blue', 'purple', 'gray')),
    created_at  TEXT NOT NULL,
    UNIQUE (account_id, name)
);

CREATE TABLE message_labels (
    id          INTEGER PRIMARY KEY,
    message_id  INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    label_id    INTEGER NOT NULL REFERENCES labels(id),
    UNIQUE (message_id, label_id)
);

-- Applied, in id order, to every message delivered from another account of the service.
CREATE TABLE filters (
    id              INTEGER PRIMARY KEY,
    account_id      INTEGER NOT NULL REFERENCES accounts(id),
    name            TEXT NOT NULL,
    match_field     TEXT NOT NULL CHECK (match_field IN ('from', 'subject')),
    match_value     TEXT NOT NULL CHECK (length(match_value) BETWEEN 1 AND 100),
    action          TEXT NOT NULL CHECK (action IN ('move', 'label', 'mark_read', 'star')),
    folder_id       INTEGER REFERENCES folders(id),
    label_id        INTEGER REFERENCES labels(id),
    is_active       INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at      TEXT NOT NULL,
    UNIQUE (account_id, name),
    CHECK ((action = 'move') = (folder_id IS NOT NULL)),
    CHECK ((action = 'label') = (label_id IS NOT NULL))
);

CREATE TABLE contacts (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    name        TEXT NOT NULL,
    email       TEXT NOT NULL CHECK (email = lower(email) AND email LIKE '%_@_%'),
    phone       TEXT,
    company     TEXT,
    created_at  TEXT NOT NULL,
    UNIQUE (account_id, email)
);

CREATE TABLE contact_groups (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
    created_at  TEXT NOT NULL,
    UNIQUE (account_id, name)
);

CREATE TABLE contact_group_members (
    id          INTEGER PRIMARY KEY,
    group_id    INTEGER NOT NULL REFERENCES contact_groups(id),
    contact_id  INTEGER NOT NULL REFERENCES contacts(id),
    added_at    TEXT NOT NULL,
    UNIQUE (group_id, contact_id)
);

CREATE TABLE signatures (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 1000),
    is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    UNIQUE (account_id, name)
);

CREATE TABLE vacation_responders (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL UNIQUE REFERENCES accounts(id),
    is_enabled  INTEGER NOT NULL CHECK (is_enabled IN (0, 1)),
    start_date  TEXT NOT NULL,
    end_date    TEXT NOT NULL,
    subject     TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    updated_at  TEXT NOT NULL,
    CHECK (end_date >= start_date)
);

-- One automatic reply per sender while a responder is configured.
CREATE TABLE vacation_replies (
    id              INTEGER PRIMARY KEY,
    responder_id    INTEGER NOT NULL REFERENCES vacation_responders(id),
    sender_address  TEXT NOT NULL,
    replied_at      TEXT NOT NULL,
    UNIQUE (responder_id, sender_address)
);

CREATE TABLE blocked_senders (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts(id),
    address     TEXT NOT NULL CHECK (address = lower(address) AND address LIKE '%_@_%'),
    blocked_at  TEXT NOT NULL,
    UNIQUE (account_id, address)
);

CREATE INDEX idx_messages_folder ON messages(account_id, folder_id);
CREATE INDEX idx_messages_thread ON messages(thread_id);
CREATE INDEX idx_messages_from ON messages(account_id, from_address);
CREATE INDEX idx_recipients_message ON message_recipients(message_id);
CREATE INDEX idx_attachments_message ON attachments(message_id);
CREATE INDEX idx_message_labels_label ON message_labels(label_id);
