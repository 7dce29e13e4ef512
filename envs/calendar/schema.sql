-- calendar: shared calendars of one company. Times are local wall-clock ISO text without time zone
-- ("2026-03-16T09:30:00"), dates "YYYY-MM-DD". One office time zone for everyone.

CREATE TABLE users (
    id          INTEGER PRIMARY KEY,
    email       TEXT NOT NULL UNIQUE CHECK (email = lower(email) AND email LIKE '%_@_%'),
    full_name   TEXT NOT NULL,
    department  TEXT NOT NULL,
    title       TEXT NOT NULL,
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at  TEXT NOT NULL
);

-- weekday: 0 = Monday ... 6 = Sunday; a missing weekday is a day off.
CREATE TABLE working_hours (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    weekday     INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    start_time  TEXT NOT NULL CHECK (start_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    end_time    TEXT NOT NULL CHECK (end_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    UNIQUE (user_id, weekday),
    CHECK (end_time > start_time)
);

CREATE TABLE calendars (
    id          INTEGER PRIMARY KEY,
    owner_id    INTEGER NOT NULL REFERENCES users(id),
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    color       TEXT NOT NULL CHECK (color IN ('blue', 'green', 'red', 'purple', 'orange', 'teal', 'gray')),
    is_primary  INTEGER NOT NULL DEFAULT 0 CHECK (is_primary IN (0, 1)),
    created_at  TEXT NOT NULL,
    UNIQUE (owner_id, name)
);

CREATE TABLE calendar_shares (
    id          INTEGER PRIMARY KEY,
    calendar_id INTEGER NOT NULL REFERENCES calendars(id),
    user_id     INTEGER NOT NULL REFERENCES users(id),
    permission  TEXT NOT NULL CHECK (permission IN ('read', 'write')),
    shared_at   TEXT NOT NULL,
    UNIQUE (calendar_id, user_id)
);

CREATE TABLE rooms (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    building    TEXT NOT NULL,
    floor       INTEGER NOT NULL,
    capacity    INTEGER NOT NULL CHECK (capacity BETWEEN 1 AND 200),
    has_video   INTEGER NOT NULL CHECK (has_video IN (0, 1)),
    is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1))
);

-- A weekly series; its occurrences are rows of events with series_id set.
CREATE TABLE event_series (
    id              INTEGER PRIMARY KEY,
    calendar_id     INTEGER NOT NULL REFERENCES calendars(id),
    organizer_id    INTEGER NOT NULL REFERENCES users(id),
    title           TEXT NOT NULL,
    weekday         INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    start_time      TEXT NOT NULL CHECK (start_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    duration_min    INTEGER NOT NULL CHECK (duration_min BETWEEN 15 AND 480),
    first_date      TEXT NOT NULL,
    until_date      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('active', 'ended', 'cancelled')),
    created_at      TEXT NOT NULL,
    CHECK (until_date >= first_date)
);

CREATE TABLE events (
    id              INTEGER PRIMARY KEY,
    calendar_id     INTEGER NOT NULL REFERENCES calendars(id),
    organizer_id    INTEGER NOT NULL REFERENCES users(id),
    series_id       INTEGER REFERENCES event_series(id),
    occurrence_date TEXT,
    title           TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 120),
    description     TEXT NOT NULL DEFAULT '',
    location        TEXT NOT NULL DEFAULT '',
    start_at        TEXT NOT NULL,
    end_at          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('confirmed', 'cancelled')),
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    cancelled_at    TEXT,
    CHECK (end_at > start_at),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
    CHECK ((series_id IS NULL) = (occurrence_date IS NULL)),
    UNIQUE (series_id, occurrence_date)
);

-- An occurrence of a series that was cancelled or moved on its own.
CREATE TABLE series_exceptions (
    id              INTEGER PRIMARY KEY,
    series_id       INTEGER NOT NULL REFERENCES event_series(id),
    occurrence_date TEXT NOT NULL,
    action          TEXT NOT NULL CHECK (action IN ('cancelled', 'rescheduled')),
    event_id        INTEGER NOT NULL REFERENCES events(id),
    created_at      TEXT NOT NULL,
    UNIQUE (series_id, occurrence_date)
);

CREATE TABLE attendees (
    id              INTEGER PRIMARY KEY,
    event_id        INTEGER NOT NULL REFERENCES events(id),
    user_id         INTEGER NOT NULL REFERENCES users(id),
    response        TEXT NOT NULL CHECK (response IN ('needs_action', 'accepted', 'declined', 'tentative')),
    is_optional     INTEGER NOT NULL DEFAULT 0 CHECK (is_optional IN (0, 1)),
    responded_at    TEXT,
    UNIQUE (event_id, user_id),
    CHECK ((response = 'needs_action') = (responded_at IS NULL))
);

CREATE TABLE room_bookings (
    id          INTEGER PRIMARY KEY,
    event_id    INTEGER NOT NULL REFERENCES events(id),
    room_id     INTEGER NOT NULL REFERENCES rooms(id),
    start_at    TEXT NOT NULL,
    end_at      TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('active', 'released')),
    booked_at   TEXT NOT NULL,
    CHECK (end_at > start_at)
);

CREATE TABLE reminders (
    id              INTEGER PRIMARY KEY,
    event_id        INTEGER NOT NULL REFERENCES events(id),
    user_id         INTEGER NOT NULL REFERENCES users(id),
    minutes_before  INTEGER NOT NULL CHECK (minutes_before IN (5, 10, 15, 30, 60, 120, 1440)),
    method          TEXT NOT NULL CHECK (method IN ('popup', 'email')),
    UNIQUE (event_id, user_id, minutes_before, method)
);

CREATE TABLE time_off (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    start_date  TEXT NOT NULL,
    end_date    TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('vacation', 'sick', 'conference', 'personal')),
    note        TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    CHECK (end_date >= start_date)
);

CREATE TABLE notifications (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    event_id    INTEGER NOT NULL REFERENCES events(id),
    kind        TEXT NOT NULL CHECK (kind IN ('invited', 'updated', 'cancelled', 'rsvp', 'removed')),
    message     TEXT NOT NULL,
    is_read     INTEGER NOT NULL DEFAULT 0 CHECK (is_read IN (0, 1)),
    created_at  TEXT NOT NULL
);

CREATE TABLE event_changes (
    id          INTEGER PRIMARY KEY,
    event_id    INTEGER NOT NULL REFERENCES events(id),
    actor_id    INTEGER NOT NULL REFERENCES users(id),
    field       TEXT NOT NULL,
    old_value   TEXT,
    new_value   TEXT,
    changed_at  TEXT NOT NULL
);

CREATE INDEX idx_events_calendar ON events(calendar_id, start_at);
CREATE INDEX idx_events_time ON events(start_at, end_at);
CREATE INDEX idx_attendees_user ON attendees(user_id, response);
CREATE INDEX idx_bookings_room ON room_bookings(room_id, start_at);
CREATE INDEX idx_notifications_user ON notifications(user_id, is_read);
