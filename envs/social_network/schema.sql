-- social_network: a small social app. Timestamps are ISO-8601 text without time zone.
-- Friendships are stored once per pair with user_a_id < user_b_id.

CREATE TABLE users (
    id              INTEGER PRIMARY KEY,
    username        TEXT NOT NULL UNIQUE CHECK (username = lower(username) AND length(username) BETWEEN 3 AND 30),
    email           TEXT NOT NULL UNIQUE,
    display_name    TEXT NOT NULL,
    bio             TEXT NOT NULL DEFAULT '',
    city            TEXT NOT NULL DEFAULT '',
    role            TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('member', 'moderator')),
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    joined_at       TEXT NOT NULL
);

CREATE TABLE privacy_settings (
    id                      INTEGER PRIMARY KEY,
    user_id                 INTEGER NOT NULL UNIQUE REFERENCES users(id),
    profile_visibility      TEXT NOT NULL CHECK (profile_visibility IN ('public', 'friends')),
    default_post_visibility TEXT NOT NULL CHECK (default_post_visibility IN ('public', 'friends')),
    friend_requests_from    TEXT NOT NULL CHECK (friend_requests_from IN ('everyone', 'friends_of_friends', 'nobody')),
    updated_at              TEXT NOT NULL
);

CREATE TABLE friend_requests (
    id              INTEGER PRIMARY KEY,
    sender_id       INTEGER NOT NULL REFERENCES users(id),
    receiver_id     INTEGER NOT NULL REFERENCES users(id),
    status          TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'cancelled')),
    created_at      TEXT NOT NULL,
    responded_at    TEXT,
    CHECK (sender_id <> receiver_id),
    CHECK ((status = 'pending') = (responded_at IS NULL))
);
CREATE UNIQUE INDEX one_pending_request ON friend_requests(min(sender_id, receiver_id), max(sender_id, receiver_id)) WHERE status = 'pending';

CREATE TABLE friendships (
    id          INTEGER PRIMARY KEY,
    user_a_id   INTEGER NOT NULL REFERENCES users(id),
    user_b_id   INTEGER NOT NULL REFERENCES users(id),
    since       TEXT NOT NULL,
    UNIQUE (user_a_id, user_b_id),
    CHECK (user_a_id < user_b_id)
);

CREATE TABLE follows (
    id              INTEGER PRIMARY KEY,
    follower_id     INTEGER NOT NULL REFERENCES users(id),
    followee_id     INTEGER NOT NULL REFERENCES users(id),
    created_at      TEXT NOT NULL,
    UNIQUE (follower_id, followee_id),
    CHECK (follower_id <> followee_id)
);

CREATE TABLE blocks (
    id          INTEGER PRIMARY KEY,
    blocker_id  INTEGER NOT NULL REFERENCES users(id),
    blocked_id  INTEGER NOT NULL REFERENCES users(id),
    created_at  TEXT NOT NULL,
    UNIQUE (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);

CREATE TABLE groups (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    privacy     TEXT NOT NULL CHECK (privacy IN ('open', 'closed')),
    owner_id    INTEGER NOT NULL REFERENCES users(id),
    created_at  TEXT NOT NULL
);

CREATE TABLE group_members (
    id          INTEGER PRIMARY KEY,
    group_id    INTEGER NOT NULL REFERENCES groups(id),
    user_id     INTEGER NOT NULL REFERENCES users(id),
    role        TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    joined_at   TEXT NOT NULL,
    UNIQUE (group_id, user_id)
);

CREATE TABLE group_join_requests (
    id          INTEGER PRIMARY KEY,
    group_id    INTEGER NOT NULL REFERENCES groups(id),
    user_id     INTEGER NOT NULL REFERENCES users(id),
    status      TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
    created_at  TEXT NOT NULL,
    decided_by  INTEGER REFERENCES users(id),
    decided_at  TEXT,
    CHECK ((status = 'pending') = (decided_at IS NULL)),
    CHECK ((status = 'pending') = (decided_by IS NULL))
);

CREATE TABLE posts (
    id          INTEGER PRIMARY KEY,
    author_id   INTEGER NOT NULL REFERENCES users(id),
    group_id    INTEGER REFERENCES groups(id),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    visibility  TEXT NOT NULL CHECK (visibility IN ('public', 'friends', 'group')),
    status      TEXT NOT NULL CHECK (status IN ('visible', 'removed')),
    created_at  TEXT NOT NULL,
    removed_at  TEXT,
    CHECK ((visibility = 'group') = (group_id IS NOT NULL)),
    CHECK ((status = 'removed') = (removed_at IS NOT NULL))
);

CREATE TABLE comments (
    id          INTEGER PRIMARY KEY,
    post_id     INTEGER NOT NULL REFERENCES posts(id),
    author_id   INTEGER NOT NULL REFERENCES users(id),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 1000),
    status      TEXT NOT NULL CHECK (status IN ('visible', 'removed')),
    created_at  TEXT NOT NULL
);

CREATE TABLE reactions (
    id          INTEGER PRIMARY KEY,
    post_id     INTEGER NOT NULL REFERENCES posts(id),
    user_id     INTEGER NOT NULL REFERENCES users(id),
    kind        TEXT NOT NULL CHECK (kind IN ('like', 'love', 'haha', 'wow', 'sad', 'angry')),
    created_at  TEXT NOT NULL,
    UNIQUE (post_id, user_id)
);

CREATE TABLE direct_messages (
    id          INTEGER PRIMARY KEY,
    sender_id   INTEGER NOT NULL REFERENCES users(id),
    recipient_id INTEGER NOT NULL REFERENCES users(id),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
    sent_at     TEXT NOT NULL,
    read_at     TEXT,
    CHECK (sender_id <> recipient_id)
);

CREATE TABLE notifications (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id),
    kind        TEXT NOT NULL CHECK (kind IN ('friend_request', 'friend_accepted', 'comment', 'reaction', 'message',
                                              'group_request', 'group_approved', 'group_role', 'content_removed', 'follow')),
    actor_id    INTEGER REFERENCES users(id),
    post_id     INTEGER REFERENCES posts(id),
    group_id    INTEGER REFERENCES groups(id),
    message     TEXT NOT NULL,
    is_read     INTEGER NOT NULL DEFAULT 0 CHECK (is_read IN (0, 1)),
    created_at  TEXT NOT NULL
);

-- A report on a post or a comment: open -> in_review (a moderator took it) -> removed | kept.
CREATE TABLE reports (
    id              INTEGER PRIMARY KEY,
    reporter_id     INTEGER NOT NULL REFERENCES users(id),
    post_id         INTEGER REFERENCES posts(id),
    comment_id      INTEGER REFERENCES comments(id),
    reason          TEXT NOT NULL CHECK (reason IN ('spam', 'harassment', 'hate', 'misinformation', 'other')),
    details         TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL CHECK (status IN ('open', 'in_review', 'removed', 'kept')),
    reviewer_id     INTEGER REFERENCES users(id),
    resolution_note TEXT,
    created_at      TEXT NOT NULL,
    resolved_at     TEXT,
    CHECK ((post_id IS NULL) <> (comment_id IS NULL)),
    CHECK ((status = 'open') = (reviewer_id IS NULL)),
    CHECK ((status IN ('removed', 'kept')) = (resolved_at IS NOT NULL))
);

CREATE INDEX idx_posts_author ON posts(author_id, created_at);
CREATE INDEX idx_posts_group ON posts(group_id, created_at);
CREATE INDEX idx_comments_post ON comments(post_id);
CREATE INDEX idx_reactions_post ON reactions(post_id);
CREATE INDEX idx_dm_pair ON direct_messages(sender_id, recipient_id);
CREATE INDEX idx_notifications_user ON notifications(user_id, is_read);
