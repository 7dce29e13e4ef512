-- music_streaming: a music and podcast streaming service.
-- Timestamps are ISO-8601 text without time zone ("2026-05-20T12:00:00"), dates "YYYY-MM-DD".
-- Money is integer cents (USD). Durations are whole seconds. Regions are ISO country codes.

CREATE TABLE artists (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    country     TEXT NOT NULL,
    verified    INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1))
);

CREATE TABLE albums (
    id              INTEGER PRIMARY KEY,
    artist_id       INTEGER NOT NULL REFERENCES artists(id),
    title           TEXT NOT NULL,
    album_type      TEXT NOT NULL CHECK (album_type IN ('album', 'ep', 'single')),
    release_date    TEXT NOT NULL,
    label           TEXT NOT NULL,
    UNIQUE (artist_id, title)
);

CREATE TABLE tracks (
    id              INTEGER PRIMARY KEY,
    album_id        INTEGER NOT NULL REFERENCES albums(id),
    title           TEXT NOT NULL,
    track_number    INTEGER NOT NULL CHECK (track_number >= 1),
    duration_sec    INTEGER NOT NULL CHECK (duration_sec BETWEEN 30 AND 1800),
    explicit        INTEGER NOT NULL DEFAULT 0 CHECK (explicit IN (0, 1)),
    isrc            TEXT NOT NULL UNIQUE CHECK (length(isrc) = 12),
    UNIQUE (album_id, track_number)
);

-- A track is playable everywhere except the regions listed here (licensing).
CREATE TABLE track_region_blocks (
    id          INTEGER PRIMARY KEY,
    track_id    INTEGER NOT NULL REFERENCES tracks(id),
    region      TEXT NOT NULL CHECK (region IN ('US', 'GB', 'DE', 'BR', 'JP')),
    UNIQUE (track_id, region)
);

CREATE TABLE plans (
    id                      INTEGER PRIMARY KEY,
    code                    TEXT NOT NULL UNIQUE CHECK (code IN ('free', 'premium', 'family')),
    name                    TEXT NOT NULL,
    monthly_price_cents     INTEGER NOT NULL CHECK (monthly_price_cents >= 0),
    max_members             INTEGER NOT NULL CHECK (max_members >= 1),
    offline_allowed         INTEGER NOT NULL CHECK (offline_allowed IN (0, 1)),
    max_offline_devices     INTEGER NOT NULL CHECK (max_offline_devices >= 0)
);

CREATE TABLE users (
    id              INTEGER PRIMARY KEY,
    username        TEXT NOT NULL UNIQUE,
    email           TEXT NOT NULL UNIQUE,
    display_name    TEXT NOT NULL,
    region          TEXT NOT NULL CHECK (region IN ('US', 'GB', 'DE', 'BR', 'JP')),
    birth_date      TEXT NOT NULL,
    allow_explicit  INTEGER NOT NULL DEFAULT 1 CHECK (allow_explicit IN (0, 1)),
    created_at      TEXT NOT NULL
);

-- Every user has exactly one subscription of their own (the free plan costs nothing). Billing periods are
-- 30 days.
CREATE TABLE subscriptions (
    id                      INTEGER PRIMARY KEY,
    user_id                 INTEGER NOT NULL UNIQUE REFERENCES users(id),
    plan_id                 INTEGER NOT NULL REFERENCES plans(id),
    status                  TEXT NOT NULL CHECK (status IN ('active', 'past_due')),
    started_at              TEXT NOT NULL,
    current_period_start    TEXT NOT NULL,
    current_period_end      TEXT NOT NULL,
    CHECK (current_period_end > current_period_start)
);

-- Members of a family subscription (the owner is not listed; owner + members <= max_members).
CREATE TABLE family_members (
    id              INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    user_id         INTEGER NOT NULL UNIQUE REFERENCES users(id),
    joined_at       TEXT NOT NULL
);

CREATE TABLE plan_changes (
    id              INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    from_plan_id    INTEGER NOT NULL REFERENCES plans(id),
    to_plan_id      INTEGER NOT NULL REFERENCES plans(id),
    proration_cents INTEGER NOT NULL,
    changed_at      TEXT NOT NULL,
    CHECK (from_plan_id <> to_plan_id)
);

-- kind 'subscription': a period's charge; 'proration': the difference charged (positive) or credited
-- (negative) when the plan changes mid-period.
CREATE TABLE invoices (
    id              INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    kind            TEXT NOT NULL CHECK (kind IN ('subscription', 'proration')),
    amount_cents    INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('paid', 'credited', 'failed')),
    period_start    TEXT NOT NULL,
    period_end      TEXT NOT NULL,
    issued_at       TEXT NOT NULL,
    CHECK ((status = 'credited') = (amount_cents < 0))
);

CREATE TABLE devices (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users(id),
    name            TEXT NOT NULL,
    device_type     TEXT NOT NULL CHECK (device_type IN ('phone', 'tablet', 'desktop', 'speaker')),
    offline_enabled INTEGER NOT NULL DEFAULT 0 CHECK (offline_enabled IN (0, 1)),
    registered_at   TEXT NOT NULL,
    UNIQUE (user_id, name)
);

CREATE TABLE downloads (
    id              INTEGER PRIMARY KEY,
    device_id       INTEGER NOT NULL REFERENCES devices(id),
    track_id        INTEGER NOT NULL REFERENCES tracks(id),
    downloaded_at   TEXT NOT NULL,
    UNIQUE (device_id, track_id)
);

CREATE TABLE playlists (
    id                  INTEGER PRIMARY KEY,
    owner_id            INTEGER NOT NULL REFERENCES users(id),
    name                TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    description         TEXT NOT NULL DEFAULT '',
    is_public           INTEGER NOT NULL DEFAULT 1 CHECK (is_public IN (0, 1)),
    is_collaborative    INTEGER NOT NULL DEFAULT 0 CHECK (is_collaborative IN (0, 1)),
    allow_duplicates    INTEGER NOT NULL DEFAULT 0 CHECK (allow_duplicates IN (0, 1)),
    created_at          TEXT NOT NULL,
    UNIQUE (owner_id, name)
);

CREATE TABLE playlist_collaborators (
    id          INTEGER PRIMARY KEY,
    playlist_id INTEGER NOT NULL REFERENCES playlists(id),
    user_id     INTEGER NOT NULL REFERENCES users(id),
    added_at    TEXT NOT NULL,
    UNIQUE (playlist_id, user_id)
);

CREATE TABLE playlist_tracks (
    id          INTEGER PRIMARY KEY,
    playlist_id INTEGER NOT NULL REFERENCES playlists(id),
    track_id    INTEGER NOT NULL REFERENCES tracks(id),
    position    INTEGER NOT NULL CHECK (position >= 1),
    added_by    INTEGER NOT NULL REFERENCES users(id),
    added_at    TEXT NOT NULL,
    UNIQUE (playlist_id, position)
);

CREATE TABLE likes (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    track_id    INTEGER NOT NULL REFERENCES tracks(id),
    liked_at    TEXT NOT NULL,
    UNIQUE (user_id, track_id)
);

-- A follow of an artist or of another user (exactly one of the two).
CREATE TABLE follows (
    id              INTEGER PRIMARY KEY,
    follower_id     INTEGER NOT NULL REFERENCES users(id),
    artist_id       INTEGER REFERENCES artists(id),
    followed_user_id INTEGER REFERENCES users(id),
    followed_at     TEXT NOT NULL,
    CHECK ((artist_id IS NULL) <> (followed_user_id IS NULL)),
    CHECK (followed_user_id IS NULL OR followed_user_id <> follower_id),
    UNIQUE (follower_id, artist_id, followed_user_id)
);

CREATE TABLE podcasts (
    id          INTEGER PRIMARY KEY,
    title       TEXT NOT NULL UNIQUE,
    publisher   TEXT NOT NULL,
    category    TEXT NOT NULL
);

CREATE TABLE episodes (
    id              INTEGER PRIMARY KEY,
    podcast_id      INTEGER NOT NULL REFERENCES podcasts(id),
    title           TEXT NOT NULL,
    episode_number  INTEGER NOT NULL CHECK (episode_number >= 1),
    duration_sec    INTEGER NOT NULL CHECK (duration_sec > 0),
    explicit        INTEGER NOT NULL DEFAULT 0 CHECK (explicit IN (0, 1)),
    published_at    TEXT NOT NULL,
    UNIQUE (podcast_id, episode_number)
);

CREATE TABLE episode_progress (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users(id),
    episode_id      INTEGER NOT NULL REFERENCES episodes(id),
    position_sec    INTEGER NOT NULL CHECK (position_sec >= 0),
    completed       INTEGER NOT NULL DEFAULT 0 CHECK (completed IN (0, 1)),
    updated_at      TEXT NOT NULL,
    UNIQUE (user_id, episode_id)
);

CREATE TABLE listening_history (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    track_id    INTEGER NOT NULL REFERENCES tracks(id),
    device_id   INTEGER REFERENCES devices(id),
    played_at   TEXT NOT NULL,
    ms_played   INTEGER NOT NULL CHECK (ms_played > 0)
);

CREATE TABLE queue_items (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    track_id    INTEGER NOT NULL REFERENCES tracks(id),
    position    INTEGER NOT NULL CHECK (position >= 1),
    added_at    TEXT NOT NULL,
    UNIQUE (user_id, position)
);

CREATE INDEX idx_tracks_album ON tracks(album_id);
CREATE INDEX idx_pt_playlist ON playlist_tracks(playlist_id, position);
CREATE INDEX idx_history_user ON listening_history(user_id, played_at);
CREATE INDEX idx_downloads_device ON downloads(device_id);
CREATE INDEX idx_follows_follower ON follows(follower_id);
