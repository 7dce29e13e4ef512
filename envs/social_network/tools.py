"""Tools of the social_network world: a small social app.

Every tool takes the username of the person acting (``username``; for moderation, the moderator's).
People are named by username, posts, comments, requests and reports by the ids the read tools return,
groups by name. Blocking hides two people from each other completely: no profile, posts, requests,
follows, comments or messages between them.
"""

from __future__ import annotations

from typing import Any, Literal

from awm.tooling import Db, ToolError, clean_text, like_any, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

Reaction = Literal["like", "love", "haha", "wow", "sad", "angry"]
Visibility = Literal["public", "friends"]
MAX_POST = 2000
MAX_COMMENT = 1000
MAX_PENDING_SENT = 20
MAX_GROUP_ADMINS = 5


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _user(db: Db, username: str, what: str = "user") -> dict[str, Any]:
    return db.one("SELECT * FROM users WHERE username = ?", (username.strip().lstrip("@").lower(),),
                  missing=f"No {what} with username {username!r}. Use search_users to find people by name.")


def _actor(db: Db, username: str) -> dict[str, Any]:
    u = _user(db, username, "acting user")
    if u["status"] != "active":
        raise ToolError(f"@{u['username']} is suspended and cannot do anything until the suspension ends.")
    return u


def _blocked(db: Db, a: int, b: int) -> bool:
    return db.value("SELECT 1 FROM blocks WHERE (blocker_id = ? AND blocked_id = ?) OR (blocker_id = ? AND blocked_id = ?)",
                    (a, b, b, a)) is not None


def _other(db: Db, me: dict[str, Any], username: str, what: str = "user") -> dict[str, Any]:
    """Someone else, as the acting user may see them (a block hides them)."""
    u = _user(db, username, what)
    if u["id"] == me["id"]:
        raise ToolError("That is your own account.")
    db.none("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (me["id"], u["id"]),
            found=f"You have blocked @{u['username']}; unblock them first.")
    db.none("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (u["id"], me["id"]),
            found=f"No user with username {username!r} is available to you.")
    return u


def _pair(a: int, b: int) -> tuple[int, int]:
    """Two people's ids as a friendship row stores them: the smaller first."""
    return min(a, b), max(a, b)


def _friends(db: Db, a: int, b: int) -> bool:
    return db.value("SELECT 1 FROM friendships WHERE user_a_id = ? AND user_b_id = ?", _pair(a, b)) is not None


def _end_link(db: Db, username: str, other_username: str, sql: str, refusal: str, pair: bool = False) -> dict[str, Any]:
    """Delete the acting user's friendship, follow or block of someone (``sql`` takes the acting user's id, then
    theirs; with ``pair``, as a friendship stores them); refuse with ``refusal`` (``{}``: their username) if there
    was none. Returns the other person."""
    me = _actor(db, username)
    u = _user(db, other_username)
    if not db.execute(sql, _pair(me["id"], u["id"]) if pair else (me["id"], u["id"])):
        raise ToolError(refusal.format(u["username"]))
    return u


def _friend_ids(db: Db, uid: int) -> list[int]:
    return [r["f"] for r in db.query("SELECT CASE WHEN user_a_id = ? THEN user_b_id ELSE user_a_id END AS f FROM friendships "
                                     "WHERE user_a_id = ? OR user_b_id = ?", (uid, uid, uid))]


def _member(db: Db, group_id: int, uid: int) -> dict[str, Any] | None:
    return db.one("SELECT * FROM group_members WHERE group_id = ? AND user_id = ?", (group_id, uid))


def _group(db: Db, name: str) -> dict[str, Any]:
    return db.one("SELECT * FROM groups WHERE lower(name) = lower(?)", (name.strip(),),
                  missing=f"No group named {name!r}. list_groups finds groups by name.")


def _can_see(db: Db, me: dict[str, Any], p: dict[str, Any]) -> bool:
    if p["author_id"] == me["id"]:
        return True
    if p["status"] != "visible" or _blocked(db, me["id"], p["author_id"]):
        return False
    if p["visibility"] == "public":
        return True
    if p["visibility"] == "friends":
        return _friends(db, me["id"], p["author_id"])
    g = db.one("SELECT privacy FROM groups WHERE id = ?", (p["group_id"],))
    return g["privacy"] == "open" or _member(db, p["group_id"], me["id"]) is not None


def _post(db: Db, me: dict[str, Any], post_id: int) -> dict[str, Any]:
    p = db.one("SELECT p.*, u.username AS author FROM posts p JOIN users u ON u.id = p.author_id WHERE p.id = ?", (post_id,))
    if p is None or not _can_see(db, me, p):
        raise ToolError(f"Post {post_id} does not exist or you cannot see it.")
    return p


def _publish(db: Db, me: dict[str, Any], group_id: int | None, body: str, visibility: str) -> int:
    return db.insert("posts", {"author_id": me["id"], "group_id": group_id, "body": body, "visibility": visibility,
                               "status": "visible", "created_at": _now(db), "removed_at": None})


def _notify(db: Db, user_id: int, kind: str, actor_id: int | None, message: str, post_id: int | None = None,
            group_id: int | None = None) -> None:
    db.insert("notifications", {"user_id": user_id, "kind": kind, "actor_id": actor_id, "post_id": post_id,
                                "group_id": group_id, "message": message, "is_read": 0, "created_at": _now(db)})


def _post_row(db: Db, p: dict[str, Any]) -> dict[str, Any]:
    return {"id": p["id"], "author": p["author"], "group": db.value("SELECT name FROM groups WHERE id = ?", (p["group_id"],)),
            "body": p["body"], "visibility": p["visibility"], "created_at": p["created_at"],
            "reactions": db.value("SELECT COUNT(*) FROM reactions WHERE post_id = ?", (p["id"],)),
            "comments": db.value("SELECT COUNT(*) FROM comments WHERE post_id = ? AND status = 'visible'", (p["id"],))}


def _membership(db: Db, g: dict[str, Any], username: str) -> tuple[dict, dict]:
    """A member of a group and their membership row."""
    u = _user(db, username)
    m = _member(db, g["id"], u["id"])
    if m is None:
        raise ToolError(f"@{u['username']} is not a member of '{g['name']}'.")
    return u, m


def _group_admin(db: Db, me: dict[str, Any], g: dict[str, Any], what: str) -> dict[str, Any]:
    m = _member(db, g["id"], me["id"])
    if m is None or m["role"] not in ("owner", "admin"):
        raise ToolError(f"Only the owner or an admin of '{g['name']}' can {what}.")
    return m


# ----------------------------------------------------------------------------------------------
# read tools
# ----------------------------------------------------------------------------------------------

@tool
def search_users(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find people by part of their display name, username or city.

    Args:
        query: words to look for, e.g. "Maya" or "Lisbon".
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(display_name)", "username", "lower(city)", lower=True)
    return db.query(f"SELECT username, display_name, city, status FROM users WHERE {who} ORDER BY display_name, username "
                    "LIMIT ?", (*params, limit))


@tool
def get_profile(db: Db, username: str, profile_username: str) -> dict:
    """Show a profile as the acting user sees it: a friends-only profile shows non-friends only the name;
    blocked people are not shown at all. Includes friendship, follow and request status between the two.

    Args:
        username: the acting user's username.
        profile_username: whose profile to show (may be your own).
    """
    me = _actor(db, username)
    u = _user(db, profile_username)
    if u["id"] != me["id"]:
        db.none("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (u["id"], me["id"]),
                found=f"No user with username {profile_username!r} is available to you.")
    ps = db.one("SELECT * FROM privacy_settings WHERE user_id = ?", (u["id"],))
    friend = _friends(db, me["id"], u["id"])
    out: dict[str, Any] = {"username": u["username"], "display_name": u["display_name"], "status": u["status"]}
    if u["id"] == me["id"] or friend or ps["profile_visibility"] == "public":
        out.update({"bio": u["bio"], "city": u["city"], "joined_at": u["joined_at"],
                    "friends": len(_friend_ids(db, u["id"])),
                    "followers": db.value("SELECT COUNT(*) FROM follows WHERE followee_id = ?", (u["id"],)),
                    "following": db.value("SELECT COUNT(*) FROM follows WHERE follower_id = ?", (u["id"],))})
    else:
        out["note"] = "This profile is visible to friends only."
    if u["id"] != me["id"]:
        pend = db.one("SELECT id, sender_id FROM friend_requests WHERE status = 'pending' AND ((sender_id = ? AND receiver_id = ?) "
                      "OR (sender_id = ? AND receiver_id = ?))", (me["id"], u["id"], u["id"], me["id"]))
        out.update({"is_friend": friend,
                    "you_follow": db.value("SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?", (me["id"], u["id"])) is not None,
                    "follows_you": db.value("SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?", (u["id"], me["id"])) is not None,
                    "you_blocked": db.value("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (me["id"], u["id"])) is not None,
                    "pending_request": None if pend is None else {"id": pend["id"],
                                                                   "direction": "sent" if pend["sender_id"] == me["id"] else "received"}})
    return out


@tool
def list_friends(db: Db, username: str, of_username: str | None = None, limit: int = 50) -> list[dict]:
    """List someone's friends (default: your own). Another person's list is shown only if their profile is
    public or you are friends.

    Args:
        username: the acting user's username.
        of_username: whose friends; leave empty for your own.
        limit: maximum number of results, 1 to 200.
    """
    me = _actor(db, username)
    _limit(limit, 200)
    u = me if not of_username else _user(db, of_username)
    if u["id"] != me["id"]:
        if _blocked(db, me["id"], u["id"]):
            raise ToolError(f"No user with username {of_username!r} is available to you.")
        vis = db.value("SELECT profile_visibility FROM privacy_settings WHERE user_id = ?", (u["id"],))
        if vis == "friends" and not _friends(db, me["id"], u["id"]):
            raise ToolError(f"@{u['username']} shows their friends to friends only.")
    ids = _friend_ids(db, u["id"])
    rows = [db.one("SELECT username, display_name, city FROM users WHERE id = ?", (i,)) for i in ids]
    return sorted(rows, key=lambda r: r["username"])[:limit]


@tool
def list_friend_requests(db: Db, username: str, direction: Literal["incoming", "outgoing"] = "incoming",
                         status: Literal["pending", "accepted", "declined", "cancelled"] = "pending", limit: int = 30) -> list[dict]:
    """List friend requests the acting user received (incoming) or sent (outgoing), by status.

    Args:
        username: the acting user's username.
        direction: "incoming" or "outgoing".
        status: "pending", "accepted", "declined" or "cancelled".
        limit: maximum number of results, 1 to 100.
    """
    me = _actor(db, username)
    _limit(limit, 100)
    col, other = ("receiver_id", "sender_id") if direction == "incoming" else ("sender_id", "receiver_id")
    return db.query(f"SELECT r.id, u.username, u.display_name, r.status, r.created_at, r.responded_at FROM friend_requests r "
                    f"JOIN users u ON u.id = r.{other} WHERE r.{col} = ? AND r.status = ? ORDER BY r.created_at DESC, r.id DESC LIMIT ?",
                    (me["id"], status, limit))


@tool
def list_follows(db: Db, username: str, direction: Literal["followers", "following"] = "followers", limit: int = 50) -> list[dict]:
    """List who follows the acting user, or whom they follow.

    Args:
        username: the acting user's username.
        direction: "followers" or "following".
        limit: maximum number of results, 1 to 200.
    """
    me = _actor(db, username)
    _limit(limit, 200)
    if direction == "followers":
        sql = "SELECT u.username, u.display_name, f.created_at FROM follows f JOIN users u ON u.id = f.follower_id WHERE f.followee_id = ?"
    else:
        sql = "SELECT u.username, u.display_name, f.created_at FROM follows f JOIN users u ON u.id = f.followee_id WHERE f.follower_id = ?"
    return db.query(sql + " ORDER BY u.username LIMIT ?", (me["id"], limit))


@tool
def get_feed(db: Db, username: str, limit: int = 20) -> list[dict]:
    """The acting user's feed: recent posts by friends and people they follow that they may see, plus posts in
    their groups, newest first.

    Args:
        username: the acting user's username.
        limit: maximum number of posts, 1 to 50.
    """
    me = _actor(db, username)
    _limit(limit)
    rows = db.query(
        "SELECT p.*, u.username AS author FROM posts p JOIN users u ON u.id = p.author_id WHERE p.status = 'visible' AND p.author_id <> ? "
        "AND ((p.group_id IS NULL AND (p.author_id IN (SELECT CASE WHEN user_a_id = ? THEN user_b_id ELSE user_a_id END FROM friendships "
        "WHERE user_a_id = ? OR user_b_id = ?) OR p.author_id IN (SELECT followee_id FROM follows WHERE follower_id = ?))) "
        "OR p.group_id IN (SELECT group_id FROM group_members WHERE user_id = ?)) ORDER BY p.created_at DESC, p.id DESC LIMIT 300",
        (me["id"], me["id"], me["id"], me["id"], me["id"], me["id"]))
    return [_post_row(db, p) for p in rows if _can_see(db, me, p)][:limit]


@tool
def list_posts(db: Db, username: str, author_username: str, limit: int = 20) -> list[dict]:
    """List the posts of one person (not group posts) that the acting user may see, newest first.

    Args:
        username: the acting user's username.
        author_username: whose posts.
        limit: maximum number of posts, 1 to 50.
    """
    me = _actor(db, username)
    _limit(limit)
    a = _user(db, author_username)
    rows = db.query("SELECT p.*, u.username AS author FROM posts p JOIN users u ON u.id = p.author_id WHERE p.author_id = ? "
                    "AND p.group_id IS NULL ORDER BY p.created_at DESC, p.id DESC", (a["id"],))
    out = [p for p in rows if _can_see(db, me, p)]
    return [dict(_post_row(db, p), status=p["status"]) for p in out[:limit]]


@tool
def get_post(db: Db, username: str, post_id: int) -> dict:
    """Show one post with its visible comments and its reactions (who reacted and how).

    Args:
        username: the acting user's username.
        post_id: the post's id.
    """
    me = _actor(db, username)
    p = _post(db, me, post_id)
    out = _post_row(db, p)
    out["status"] = p["status"]
    out["comment_list"] = [c for c in db.query(
        "SELECT c.id, u.username AS author, c.body, c.created_at, c.author_id FROM comments c JOIN users u ON u.id = c.author_id "
        "WHERE c.post_id = ? AND c.status = 'visible' ORDER BY c.created_at, c.id", (post_id,)) if not _blocked(db, me["id"], c.pop("author_id"))]
    out["reaction_list"] = db.query("SELECT u.username, r.kind FROM reactions r JOIN users u ON u.id = r.user_id WHERE r.post_id = ? "
                                    "ORDER BY r.id", (post_id,))
    return out


@tool
def list_groups(db: Db, query: str | None = None, limit: int = 20) -> list[dict]:
    """Find groups by name or description, with privacy, owner and member count.

    Args:
        query: words to look for; empty lists all groups.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    name_or_description, params = like_any((query or "").strip(), "lower(g.name)", "lower(g.description)", lower=True)
    return db.query("SELECT g.name, g.description, g.privacy, u.username AS owner, (SELECT COUNT(*) FROM group_members m WHERE "
                    f"m.group_id = g.id) AS members FROM groups g JOIN users u ON u.id = g.owner_id WHERE {name_or_description} "
                    "ORDER BY g.name LIMIT ?", (*params, limit))


@tool
def get_group(db: Db, username: str, group_name: str) -> dict:
    """Show a group: its owner, admins and (for open groups, or to members) its members with their roles, and
    the acting user's own role or pending request.

    Args:
        username: the acting user's username.
        group_name: the group's name.
    """
    me = _actor(db, username)
    g = _group(db, group_name)
    mine = _member(db, g["id"], me["id"])
    out: dict[str, Any] = {"name": g["name"], "description": g["description"], "privacy": g["privacy"],
                           "your_role": mine["role"] if mine else None,
                           "your_pending_request": db.value("SELECT id FROM group_join_requests WHERE group_id = ? AND user_id = ? "
                                                            "AND status = 'pending'", (g["id"], me["id"])),
                           "member_count": db.value("SELECT COUNT(*) FROM group_members WHERE group_id = ?", (g["id"],))}
    if g["privacy"] == "open" or mine:
        out["members"] = db.query("SELECT u.username, u.display_name, m.role FROM group_members m JOIN users u ON u.id = m.user_id "
                                  "WHERE m.group_id = ? ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, "
                                  "u.username LIMIT 200", (g["id"],))
    else:
        out["admins"] = db.query("SELECT u.username, m.role FROM group_members m JOIN users u ON u.id = m.user_id WHERE m.group_id = ? "
                                 "AND m.role IN ('owner', 'admin') ORDER BY m.role DESC, u.username", (g["id"],))
    return out


@tool
def list_group_posts(db: Db, username: str, group_name: str, limit: int = 20) -> list[dict]:
    """List posts in a group, newest first (closed groups: members only).

    Args:
        username: the acting user's username.
        group_name: the group's name.
        limit: maximum number of posts, 1 to 50.
    """
    me = _actor(db, username)
    _limit(limit)
    g = _group(db, group_name)
    if g["privacy"] == "closed" and not _member(db, g["id"], me["id"]):
        raise ToolError(f"'{g['name']}' is a closed group; only its members can read it. Ask to join with join_group.")
    rows = db.query("SELECT p.*, u.username AS author FROM posts p JOIN users u ON u.id = p.author_id WHERE p.group_id = ? "
                    "AND p.status = 'visible' ORDER BY p.created_at DESC, p.id DESC LIMIT 200", (g["id"],))
    return [_post_row(db, p) for p in rows if _can_see(db, me, p)][:limit]


@tool
def list_join_requests(db: Db, username: str, group_name: str, status: Literal["pending", "approved", "rejected"] = "pending") -> list[dict]:
    """List requests to join a group (group owner and admins only).

    Args:
        username: the acting user's username (an owner or admin of the group).
        group_name: the group's name.
        status: "pending", "approved" or "rejected".
    """
    me = _actor(db, username)
    g = _group(db, group_name)
    _group_admin(db, me, g, "see its join requests")
    return db.query("SELECT r.id, u.username, u.display_name, r.status, r.created_at FROM group_join_requests r JOIN users u "
                    "ON u.id = r.user_id WHERE r.group_id = ? AND r.status = ? ORDER BY r.created_at, r.id LIMIT 100", (g["id"], status))


@tool
def list_conversation(db: Db, username: str, with_username: str, limit: int = 30) -> list[dict]:
    """Show the direct messages between the acting user and one other person, oldest first (the latest ones).

    Args:
        username: the acting user's username.
        with_username: the other person.
        limit: maximum number of messages, 1 to 100.
    """
    me = _actor(db, username)
    _limit(limit, 100)
    o = _user(db, with_username)
    rows = db.query("SELECT m.id, s.username AS sender, m.body, m.sent_at, m.read_at FROM direct_messages m JOIN users s ON "
                    "s.id = m.sender_id WHERE (m.sender_id = ? AND m.recipient_id = ?) OR (m.sender_id = ? AND m.recipient_id = ?) "
                    "ORDER BY m.sent_at DESC, m.id DESC LIMIT ?", (me["id"], o["id"], o["id"], me["id"], limit))
    return list(reversed(rows))


@tool
def list_notifications(db: Db, username: str, unread_only: bool = True, limit: int = 20) -> list[dict]:
    """List the acting user's notifications, newest first.

    Args:
        username: the acting user's username.
        unread_only: only unread ones.
        limit: maximum number of results, 1 to 50.
    """
    me = _actor(db, username)
    _limit(limit)
    return db.query("SELECT n.id, n.kind, u.username AS actor, n.post_id, n.message, n.is_read, n.created_at FROM notifications n "
                    "LEFT JOIN users u ON u.id = n.actor_id WHERE n.user_id = ? AND (? = 0 OR n.is_read = 0) "
                    "ORDER BY n.created_at DESC, n.id DESC LIMIT ?", (me["id"], int(unread_only), limit))


@tool
def list_reports(db: Db, username: str, status: Literal["open", "in_review", "removed", "kept"] = "open",
                 group_name: str | None = None, limit: int = 30) -> list[dict]:
    """List reports for a moderator: site moderators see reports on posts and comments outside groups; a
    group's owner and admins see (with group_name) the reports on that group's content.

    Args:
        username: the acting user's username (a moderator, or a group owner/admin).
        status: "open", "in_review", "removed" or "kept".
        group_name: the group whose reports to list (group owners/admins).
        limit: maximum number of results, 1 to 100.
    """
    me = _actor(db, username)
    _limit(limit, 100)
    gid = None
    if group_name:
        g = _group(db, group_name)
        _group_admin(db, me, g, "review its reports")
        gid = g["id"]
    elif me["role"] != "moderator":
        raise ToolError("Only site moderators can list reports; group owners and admins give the group_name.")
    return db.query(
        "SELECT r.id, r.reason, r.details, r.status, u.username AS reporter, r.post_id, r.comment_id, CASE WHEN r.comment_id IS NULL "
        "THEN pp.body ELSE c.body END AS content, a.username AS content_author, r.created_at FROM reports r JOIN users u ON "
        "u.id = r.reporter_id LEFT JOIN comments c ON c.id = r.comment_id JOIN posts pp ON pp.id = COALESCE(r.post_id, c.post_id) "
        "JOIN users a ON a.id = COALESCE(c.author_id, pp.author_id) "
        "WHERE r.status = ? AND pp.group_id IS ? ORDER BY r.created_at, r.id LIMIT ?", (status, gid, limit))


@tool
def get_privacy_settings(db: Db, username: str) -> dict:
    """Show the acting user's privacy settings and the people they have blocked.

    Args:
        username: the acting user's username.
    """
    me = _actor(db, username)
    ps = db.one("SELECT profile_visibility, default_post_visibility, friend_requests_from FROM privacy_settings WHERE user_id = ?",
                (me["id"],))
    ps["blocked"] = [r["username"] for r in db.query("SELECT u.username FROM blocks b JOIN users u ON u.id = b.blocked_id "
                                                     "WHERE b.blocker_id = ? ORDER BY u.username", (me["id"],))]
    return ps


# ----------------------------------------------------------------------------------------------
# write tools: friends, follows, blocks, privacy
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def send_friend_request(db: Db, username: str, to_username: str) -> dict:
    """Send a friend request. Refused when you are already friends, a request is already pending between you
    (if they asked you, accept theirs instead), either of you blocked the other, or their settings do not
    allow it (nobody, or only friends of friends). At most 20 of your requests may be pending.

    Args:
        username: the acting user's username (the sender).
        to_username: who to send it to.
    """
    me = _actor(db, username)
    u = _other(db, me, to_username)
    if u["status"] != "active":
        raise ToolError(f"@{u['username']} is suspended and cannot receive requests.")
    if _friends(db, me["id"], u["id"]):
        raise ToolError(f"You and @{u['username']} are already friends.")
    pend = db.one("SELECT * FROM friend_requests WHERE status = 'pending' AND ((sender_id = ? AND receiver_id = ?) OR "
                  "(sender_id = ? AND receiver_id = ?))", (me["id"], u["id"], u["id"], me["id"]))
    if pend:
        if pend["sender_id"] == me["id"]:
            raise ToolError(f"Your request {pend['id']} to @{u['username']} is still pending.")
        raise ToolError(f"@{u['username']} already sent you a request (id {pend['id']}); accept it with respond_to_friend_request.")
    rule = db.value("SELECT friend_requests_from FROM privacy_settings WHERE user_id = ?", (u["id"],))
    if rule == "nobody":
        raise ToolError(f"@{u['username']} does not accept friend requests.")
    if rule == "friends_of_friends" and not set(_friend_ids(db, me["id"])) & set(_friend_ids(db, u["id"])):
        raise ToolError(f"@{u['username']} only accepts requests from friends of friends, and you have no friend in common.")
    if db.value("SELECT COUNT(*) FROM friend_requests WHERE sender_id = ? AND status = 'pending'", (me["id"],)) >= MAX_PENDING_SENT:
        raise ToolError(f"You already have {MAX_PENDING_SENT} pending requests; wait for answers or cancel some.")
    rid = db.insert("friend_requests", {"sender_id": me["id"], "receiver_id": u["id"], "status": "pending",
                                        "created_at": _now(db), "responded_at": None})
    _notify(db, u["id"], "friend_request", me["id"], f"{me['display_name']} sent you a friend request.")
    return {"request_id": rid, "to": u["username"], "status": "pending"}


@tool(write=True)
def respond_to_friend_request(db: Db, username: str, request_id: int, accept: bool) -> dict:
    """Accept or decline a pending friend request sent to the acting user. Accepting makes you friends and
    tells the sender.

    Args:
        username: the acting user's username (the receiver).
        request_id: the request's id (list_friend_requests shows it).
        accept: true to accept, false to decline.
    """
    me = _actor(db, username)
    not_yours = f"You have received no friend request {request_id}; list_friend_requests shows yours."
    r = db.one("SELECT * FROM friend_requests WHERE id = ?", (request_id,), missing=not_yours)
    require_owner(r, "receiver_id", me["id"], not_yours)
    if r["status"] != "pending":
        raise ToolError(f"Request {request_id} is already {r['status']}.")
    s = db.one("SELECT * FROM users WHERE id = ?", (r["sender_id"],))
    if accept and _blocked(db, me["id"], s["id"]):
        raise ToolError(f"You cannot become friends with @{s['username']} while one of you blocks the other.")
    now = _now(db)
    db.execute("UPDATE friend_requests SET status = ?, responded_at = ? WHERE id = ?", ("accepted" if accept else "declined", now, request_id))
    if accept:
        a, b = _pair(me["id"], s["id"])
        db.insert("friendships", {"user_a_id": a, "user_b_id": b, "since": now})
        _notify(db, s["id"], "friend_accepted", me["id"], f"{me['display_name']} accepted your friend request.")
    return {"request_id": request_id, "status": "accepted" if accept else "declined", "from": s["username"]}


@tool(write=True)
def unfriend(db: Db, username: str, friend_username: str) -> dict:
    """End a friendship (follows stay as they are).

    Args:
        username: the acting user's username.
        friend_username: the friend to remove.
    """
    u = _end_link(db, username, friend_username, "DELETE FROM friendships WHERE user_a_id = ? AND user_b_id = ?",
                  "You and @{} are not friends.", pair=True)
    return {"unfriended": u["username"]}


@tool(write=True)
def follow(db: Db, username: str, target_username: str) -> dict:
    """Follow someone's public posts (no approval needed; not possible while either blocks the other).

    Args:
        username: the acting user's username.
        target_username: who to follow.
    """
    me = _actor(db, username)
    u = _other(db, me, target_username)
    db.none("SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?", (me["id"], u["id"]),
            found=f"You already follow @{u['username']}.")
    db.insert("follows", {"follower_id": me["id"], "followee_id": u["id"], "created_at": _now(db)})
    _notify(db, u["id"], "follow", me["id"], f"{me['display_name']} started following you.")
    return {"following": u["username"]}


@tool(write=True)
def unfollow(db: Db, username: str, target_username: str) -> dict:
    """Stop following someone.

    Args:
        username: the acting user's username.
        target_username: who to stop following.
    """
    u = _end_link(db, username, target_username, "DELETE FROM follows WHERE follower_id = ? AND followee_id = ?",
                  "You do not follow @{}.")
    return {"unfollowed": u["username"]}


@tool(write=True)
def block_user(db: Db, username: str, target_username: str) -> dict:
    """Block someone: any friendship between you ends, pending friend requests between you are cancelled and
    follows in both directions are removed; afterwards neither can see or contact the other.

    Args:
        username: the acting user's username.
        target_username: who to block.
    """
    me = _actor(db, username)
    u = _user(db, target_username)
    if u["id"] == me["id"]:
        raise ToolError("You cannot block yourself.")
    db.none("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (me["id"], u["id"]),
            found=f"You have already blocked @{u['username']}.")
    now = _now(db)
    db.insert("blocks", {"blocker_id": me["id"], "blocked_id": u["id"], "created_at": now})
    ended = db.execute("DELETE FROM friendships WHERE user_a_id = ? AND user_b_id = ?", _pair(me["id"], u["id"]))
    cancelled = db.execute("UPDATE friend_requests SET status = 'cancelled', responded_at = ? WHERE status = 'pending' AND "
                           "((sender_id = ? AND receiver_id = ?) OR (sender_id = ? AND receiver_id = ?))",
                           (now, me["id"], u["id"], u["id"], me["id"]))
    unfollowed = db.execute("DELETE FROM follows WHERE (follower_id = ? AND followee_id = ?) OR (follower_id = ? AND followee_id = ?)",
                            (me["id"], u["id"], u["id"], me["id"]))
    return {"blocked": u["username"], "friendship_ended": bool(ended), "requests_cancelled": cancelled, "follows_removed": unfollowed}


@tool(write=True)
def unblock_user(db: Db, username: str, target_username: str) -> dict:
    """Unblock someone (nothing that the block removed comes back).

    Args:
        username: the acting user's username.
        target_username: who to unblock.
    """
    u = _end_link(db, username, target_username, "DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?",
                  "You have not blocked @{}.")
    return {"unblocked": u["username"]}


@tool(write=True)
def update_privacy_settings(db: Db, username: str, profile_visibility: Literal["public", "friends"] | None = None,
                            default_post_visibility: Literal["public", "friends"] | None = None,
                            friend_requests_from: Literal["everyone", "friends_of_friends", "nobody"] | None = None) -> dict:
    """Change the acting user's privacy settings; leave a setting empty to keep it.

    Args:
        username: the acting user's username.
        profile_visibility: who sees your profile details: "public" or "friends".
        default_post_visibility: the audience new posts get when none is given: "public" or "friends".
        friend_requests_from: who may send you friend requests: "everyone", "friends_of_friends" or "nobody".
    """
    me = _actor(db, username)
    ps = db.one("SELECT * FROM privacy_settings WHERE user_id = ?", (me["id"],))
    new = {k: v for k, v in (("profile_visibility", profile_visibility), ("default_post_visibility", default_post_visibility),
                             ("friend_requests_from", friend_requests_from)) if v is not None and v != ps[k]}
    if not new:
        raise ToolError("Nothing to change: give at least one setting that differs from the current one.")
    for k, v in new.items():
        db.execute(f"UPDATE privacy_settings SET {k} = ?, updated_at = ? WHERE id = ?", (v, _now(db), ps["id"]))
    return {"changed": new}


# ----------------------------------------------------------------------------------------------
# write tools: posts, comments, reactions, messages
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_post(db: Db, username: str, body: str, visibility: Visibility | None = None) -> dict:
    """Publish a post on the acting user's profile, for everyone ("public") or friends only ("friends");
    without a visibility the user's default applies.

    Args:
        username: the acting user's username.
        body: the text, 1 to 2000 characters.
        visibility: "public" or "friends".
    """
    me = _actor(db, username)
    b = clean_text(body, "A post", 1, MAX_POST)
    vis = visibility or db.value("SELECT default_post_visibility FROM privacy_settings WHERE user_id = ?", (me["id"],))
    pid = _publish(db, me, None, b, vis)
    return {"post_id": pid, "visibility": vis}


@tool(write=True)
def comment_on_post(db: Db, username: str, post_id: int, body: str) -> dict:
    """Comment on a post the acting user can see (not on removed posts; not if the author blocked you).
    The author is notified.

    Args:
        username: the acting user's username.
        post_id: the post's id.
        body: the comment, 1 to 1000 characters.
    """
    me = _actor(db, username)
    p = _post(db, me, post_id)
    if p["status"] != "visible":
        raise ToolError(f"Post {post_id} was removed; it cannot take comments.")
    if p["group_id"] and not _member(db, p["group_id"], me["id"]):
        raise ToolError("Only members of the group can comment on its posts; join it first.")
    b = clean_text(body, "A comment", 1, MAX_COMMENT)
    cid = db.insert("comments", {"post_id": post_id, "author_id": me["id"], "body": b, "status": "visible", "created_at": _now(db)})
    if p["author_id"] != me["id"]:
        _notify(db, p["author_id"], "comment", me["id"], f"{me['display_name']} commented on your post.", post_id=post_id)
    return {"comment_id": cid, "post_id": post_id}


@tool(write=True)
def react_to_post(db: Db, username: str, post_id: int, kind: Reaction) -> dict:
    """React to a post the acting user can see. One reaction per person per post: reacting again with another
    kind replaces it; the same kind again is refused. The author is notified of new reactions.

    Args:
        username: the acting user's username.
        post_id: the post's id.
        kind: "like", "love", "haha", "wow", "sad" or "angry".
    """
    me = _actor(db, username)
    p = _post(db, me, post_id)
    if p["status"] != "visible":
        raise ToolError(f"Post {post_id} was removed.")
    old = db.one("SELECT * FROM reactions WHERE post_id = ? AND user_id = ?", (post_id, me["id"]))
    if old and old["kind"] == kind:
        raise ToolError(f"You already reacted '{kind}' to post {post_id}.")
    if old:
        db.execute("UPDATE reactions SET kind = ?, created_at = ? WHERE id = ?", (kind, _now(db), old["id"]))
    else:
        db.insert("reactions", {"post_id": post_id, "user_id": me["id"], "kind": kind, "created_at": _now(db)})
        if p["author_id"] != me["id"]:
            _notify(db, p["author_id"], "reaction", me["id"], f"{me['display_name']} reacted to your post.", post_id=post_id)
    return {"post_id": post_id, "kind": kind, "replaced": old["kind"] if old else None}


@tool(write=True)
def remove_reaction(db: Db, username: str, post_id: int) -> dict:
    """Take back the acting user's reaction to a post.

    Args:
        username: the acting user's username.
        post_id: the post's id.
    """
    me = _actor(db, username)
    if not db.execute("DELETE FROM reactions WHERE post_id = ? AND user_id = ?", (post_id, me["id"])):
        raise ToolError(f"You have not reacted to post {post_id}.")
    return {"post_id": post_id, "removed": True}


@tool(write=True)
def send_message(db: Db, username: str, to_username: str, body: str) -> dict:
    """Send a direct message. Only friends can message each other, and never while one blocks the other.

    Args:
        username: the acting user's username (the sender).
        to_username: the recipient.
        body: the text, 1 to 2000 characters.
    """
    me = _actor(db, username)
    u = _other(db, me, to_username)
    if not _friends(db, me["id"], u["id"]):
        raise ToolError(f"You can only message friends, and @{u['username']} is not your friend. Send a friend request first.")
    b = clean_text(body, "A message", 1, 2000)
    mid = db.insert("direct_messages", {"sender_id": me["id"], "recipient_id": u["id"], "body": b, "sent_at": _now(db), "read_at": None})
    _notify(db, u["id"], "message", me["id"], f"New message from {me['display_name']}.")
    return {"message_id": mid, "to": u["username"]}


@tool(write=True)
def mark_notifications_read(db: Db, username: str, notification_ids: list[int]) -> dict:
    """Mark some of the acting user's notifications as read.

    Args:
        username: the acting user's username.
        notification_ids: ids of your notifications.
    """
    me = _actor(db, username)
    if not notification_ids:
        raise ToolError("Give at least one notification id.")
    for i in notification_ids:
        if db.value("SELECT user_id FROM notifications WHERE id = ?", (i,)) != me["id"]:
            raise ToolError(f"Notification {i} is not one of yours.")
    n = sum(db.execute("UPDATE notifications SET is_read = 1 WHERE id = ? AND is_read = 0", (i,)) for i in dict.fromkeys(notification_ids))
    return {"marked_read": n}


# ----------------------------------------------------------------------------------------------
# write tools: groups
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def join_group(db: Db, username: str, group_name: str) -> dict:
    """Join a group: an open group lets you in at once; a closed group gets a join request that its owner or
    an admin must approve.

    Args:
        username: the acting user's username.
        group_name: the group's name.
    """
    me = _actor(db, username)
    g = _group(db, group_name)
    if _member(db, g["id"], me["id"]):
        raise ToolError(f"You are already a member of '{g['name']}'.")
    db.none("SELECT 1 FROM group_join_requests WHERE group_id = ? AND user_id = ? AND status = 'pending'", (g["id"], me["id"]),
            found=f"Your request to join '{g['name']}' is still waiting for approval.")
    if g["privacy"] == "open":
        db.insert("group_members", {"group_id": g["id"], "user_id": me["id"], "role": "member", "joined_at": _now(db)})
        return {"group": g["name"], "status": "member"}
    rid = db.insert("group_join_requests", {"group_id": g["id"], "user_id": me["id"], "status": "pending", "created_at": _now(db),
                                            "decided_by": None, "decided_at": None})
    for a in db.query("SELECT user_id FROM group_members WHERE group_id = ? AND role IN ('owner', 'admin') ORDER BY id", (g["id"],)):
        _notify(db, a["user_id"], "group_request", me["id"], f"{me['display_name']} asked to join {g['name']}.", group_id=g["id"])
    return {"group": g["name"], "status": "pending", "request_id": rid}


@tool(write=True)
def decide_join_request(db: Db, username: str, request_id: int, approve: bool) -> dict:
    """Approve or reject a pending request to join a group you own or administer. Approving makes the person a
    member and tells them.

    Args:
        username: the acting user's username (the group's owner or an admin).
        request_id: the request's id (list_join_requests shows it).
        approve: true to approve, false to reject.
    """
    me = _actor(db, username)
    r = db.one("SELECT * FROM group_join_requests WHERE id = ?", (request_id,),
               missing=f"No join request {request_id}.")
    g = db.one("SELECT * FROM groups WHERE id = ?", (r["group_id"],))
    _group_admin(db, me, g, "decide join requests")
    if r["status"] != "pending":
        raise ToolError(f"Request {request_id} was already {r['status']}.")
    now = _now(db)
    db.execute("UPDATE group_join_requests SET status = ?, decided_by = ?, decided_at = ? WHERE id = ?",
               ("approved" if approve else "rejected", me["id"], now, request_id))
    if approve:
        db.insert("group_members", {"group_id": g["id"], "user_id": r["user_id"], "role": "member", "joined_at": now})
        _notify(db, r["user_id"], "group_approved", me["id"], f"You are now a member of {g['name']}.", group_id=g["id"])
    return {"request_id": request_id, "status": "approved" if approve else "rejected", "group": g["name"]}


@tool(write=True)
def set_member_role(db: Db, username: str, group_name: str, member_username: str, role: Literal["admin", "member"]) -> dict:
    """Make a group member an admin or turn an admin back into a member (the group owner only; at most 5 admins;
    the owner's own role cannot change).

    Args:
        username: the acting user's username (the group's owner).
        group_name: the group's name.
        member_username: the member whose role changes.
        role: "admin" or "member".
    """
    me = _actor(db, username)
    g = _group(db, group_name)
    require_owner(g, "owner_id", me["id"], f"Only the owner of '{g['name']}' can change roles.")
    u, m = _membership(db, g, member_username)
    if m["role"] == "owner":
        raise ToolError("The owner's role cannot change.")
    if m["role"] == role:
        raise ToolError(f"@{u['username']} is already {'an admin' if role == 'admin' else 'a member'}.")
    if role == "admin" and db.value("SELECT COUNT(*) FROM group_members WHERE group_id = ? AND role = 'admin'", (g["id"],)) >= MAX_GROUP_ADMINS:
        raise ToolError(f"'{g['name']}' already has {MAX_GROUP_ADMINS} admins.")
    db.execute("UPDATE group_members SET role = ? WHERE id = ?", (role, m["id"]))
    _notify(db, u["id"], "group_role", me["id"], f"You are now {'an admin' if role == 'admin' else 'a member'} of {g['name']}.", group_id=g["id"])
    return {"group": g["name"], "member": u["username"], "role": role}


@tool(write=True)
def remove_group_member(db: Db, username: str, group_name: str, member_username: str) -> dict:
    """Remove someone from a group: the owner may remove anyone else; admins may remove ordinary members only.

    Args:
        username: the acting user's username (the group's owner or an admin).
        group_name: the group's name.
        member_username: the member to remove.
    """
    me = _actor(db, username)
    g = _group(db, group_name)
    mine = _group_admin(db, me, g, "remove members")
    u, m = _membership(db, g, member_username)
    if u["id"] == me["id"]:
        raise ToolError("You cannot remove yourself here.")
    if m["role"] == "owner" or (m["role"] == "admin" and mine["role"] != "owner"):
        raise ToolError("Only the owner can remove an admin, and nobody can remove the owner.")
    db.execute("DELETE FROM group_members WHERE id = ?", (m["id"],))
    return {"group": g["name"], "removed": u["username"]}


@tool(write=True)
def post_in_group(db: Db, username: str, group_name: str, body: str) -> dict:
    """Publish a post in a group you are a member of.

    Args:
        username: the acting user's username.
        group_name: the group's name.
        body: the text, 1 to 2000 characters.
    """
    me = _actor(db, username)
    g = _group(db, group_name)
    if not _member(db, g["id"], me["id"]):
        raise ToolError(f"Only members can post in '{g['name']}'.")
    pid = _publish(db, me, g["id"], clean_text(body, "A post", 1, MAX_POST), "group")
    return {"post_id": pid, "group": g["name"]}


# ----------------------------------------------------------------------------------------------
# write tools: reports and moderation
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def report_content(db: Db, username: str, reason: Literal["spam", "harassment", "hate", "misinformation", "other"],
                   post_id: int | None = None, comment_id: int | None = None, details: str = "") -> dict:
    """Report a post or a comment (exactly one) that the acting user can see and did not write. One open
    report per person per item.

    Args:
        username: the acting user's username.
        reason: "spam", "harassment", "hate", "misinformation" or "other".
        post_id: the post reported.
        comment_id: the comment reported.
        details: what is wrong, in a few words.
    """
    me = _actor(db, username)
    if (post_id is None) == (comment_id is None):
        raise ToolError("Report exactly one thing: give post_id or comment_id.")
    if post_id is not None:
        p = db.one("SELECT * FROM posts WHERE id = ?", (post_id,))
        if p is None or (p["author_id"] != me["id"] and not _can_see(db, me, p)):
            raise ToolError(f"Post {post_id} does not exist or you cannot see it.")
        author = p["author_id"]
        status = p["status"]
    else:
        c = db.one("SELECT * FROM comments WHERE id = ?", (comment_id,),
                   missing=f"No comment {comment_id}.")
        p = db.one("SELECT * FROM posts WHERE id = ?", (c["post_id"],))
        if not _can_see(db, me, p) or _blocked(db, me["id"], c["author_id"]):
            raise ToolError(f"Comment {comment_id} does not exist or you cannot see it.")
        author = c["author_id"]
        status = c["status"]
    if author == me["id"]:
        raise ToolError("You cannot report your own content.")
    if status != "visible":
        raise ToolError("That content has already been removed.")
    db.none("SELECT 1 FROM reports WHERE reporter_id = ? AND post_id IS ? AND comment_id IS ? AND status IN ('open', 'in_review')",
            (me["id"], post_id, comment_id), found="You already have an open report on this.")
    rid = db.insert("reports", {"reporter_id": me["id"], "post_id": post_id, "comment_id": comment_id, "reason": reason,
                                "details": details.strip(), "status": "open", "reviewer_id": None, "resolution_note": None,
                                "created_at": _now(db), "resolved_at": None})
    return {"report_id": rid, "status": "open"}


def _report_for(db: Db, me: dict[str, Any], report_id: int) -> dict[str, Any]:
    r = db.one("SELECT r.*, COALESCE(r.post_id, c.post_id) AS target_post FROM reports r LEFT JOIN comments c ON c.id = r.comment_id "
               "WHERE r.id = ?", (report_id,),
               missing=f"No report {report_id}.")
    gid = db.value("SELECT group_id FROM posts WHERE id = ?", (r["target_post"],))
    if gid is None:
        if me["role"] != "moderator":
            raise ToolError("Only site moderators review reports on content outside groups.")
    else:
        m = _member(db, gid, me["id"])
        if m is None or m["role"] not in ("owner", "admin"):
            raise ToolError("Reports on a group's content are reviewed by that group's owner and admins.")
    if r["reporter_id"] == me["id"]:
        raise ToolError("You filed this report yourself; another moderator must review it.")
    return r


@tool(write=True)
def start_review(db: Db, username: str, report_id: int) -> dict:
    """Take an open report for review (open -> in_review); only then can it be resolved, by the same reviewer.

    Args:
        username: the acting user's username (a site moderator, or the group's owner/admin for group content).
        report_id: the report's id.
    """
    me = _actor(db, username)
    r = _report_for(db, me, report_id)
    if r["status"] != "open":
        raise ToolError(f"Report {report_id} is {r['status']}, not open; only open reports can be taken for review.")
    db.execute("UPDATE reports SET status = 'in_review', reviewer_id = ? WHERE id = ?", (me["id"], report_id))
    return {"report_id": report_id, "status": "in_review"}


@tool(write=True)
def resolve_report(db: Db, username: str, report_id: int, decision: Literal["remove", "keep"], note: str = "") -> dict:
    """Resolve a report you are reviewing: "remove" takes the post or comment down (its author is told) and
    resolves every other open or in-review report on the same item the same way; "keep" leaves it up and
    resolves only this report.

    Args:
        username: the acting user's username (the report's reviewer).
        report_id: the report's id.
        decision: "remove" or "keep".
        note: a short note on the decision.
    """
    me = _actor(db, username)
    r = _report_for(db, me, report_id)
    if r["status"] != "in_review":
        raise ToolError(f"Report {report_id} is {r['status']}; take it for review first (start_review)." if r["status"] == "open"
                        else f"Report {report_id} is already resolved ({r['status']}).")
    require_owner(r, "reviewer_id", me["id"], f"Report {report_id} is being reviewed by someone else.")
    now = _now(db)
    if decision == "keep":
        db.execute("UPDATE reports SET status = 'kept', resolution_note = ?, resolved_at = ? WHERE id = ?", (note.strip(), now, report_id))
        return {"report_id": report_id, "status": "kept"}
    if r["post_id"] is not None:
        db.execute("UPDATE posts SET status = 'removed', removed_at = ? WHERE id = ? AND status = 'visible'", (now, r["post_id"]))
        author = db.value("SELECT author_id FROM posts WHERE id = ?", (r["post_id"],))
    else:
        db.execute("UPDATE comments SET status = 'removed' WHERE id = ?", (r["comment_id"],))
        author = db.value("SELECT author_id FROM comments WHERE id = ?", (r["comment_id"],))
    others = db.execute("UPDATE reports SET status = 'removed', reviewer_id = ?, resolution_note = ?, resolved_at = ? WHERE "
                        "post_id IS ? AND comment_id IS ? AND status IN ('open', 'in_review')",
                        (me["id"], note.strip(), now, r["post_id"], r["comment_id"]))
    _notify(db, author, "content_removed", None, f"Your {'post' if r['post_id'] else 'comment'} was removed after a report "
            f"({r['reason']}).", post_id=r["target_post"])
    return {"report_id": report_id, "status": "removed", "reports_resolved": others}
