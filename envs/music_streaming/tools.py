"""Tools of the music_streaming world: a music and podcast streaming service.

Users are named by their usernames (the acting account of every write tool is ``username``), and
artists, albums, tracks, playlists, devices, podcasts and episodes by the ids the read tools return.

Plans: free, premium and family. A family member listens on the owner's family plan. Offline downloads
need premium or family and an offline-enabled device (at most the plan's offline-device limit). A track
can only be played, queued, liked, downloaded or added to a playlist by a user in a region where it is
not blocked, and explicit tracks are refused for accounts with the explicit filter on. Billing periods
are 30 days; changing plan mid-period charges or credits the price difference for the days left.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Any, Literal

from awm.tooling import Db, ToolError, like_any, require_owner, tool
from awm.tooling import check_limit as _limit
from awm.tooling import now_iso as _now

PERIOD_DAYS = 30
MAX_PLAYLIST_TRACKS = 200
MAX_COLLABORATORS = 10
MAX_QUEUE = 50
MAX_DEVICES = 10
MAX_DOWNLOADS_PER_DEVICE = 500
COMPLETE_MARGIN_SEC = 30

PlanCode = Literal["free", "premium", "family"]
DeviceType = Literal["phone", "tablet", "desktop", "speaker"]


# ----------------------------------------------------------------------------------------------
# helpers (not tools)
# ----------------------------------------------------------------------------------------------


def _round_half_up(x: float) -> int:
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def proration_cents(old_price: int, new_price: int, period_end: str, today: date) -> int:
    """(new - old) monthly price x days left in the period / 30, rounded half away from zero."""
    days_left = max(0, (date.fromisoformat(period_end[:10]) - today).days)
    return _round_half_up((new_price - old_price) * days_left / PERIOD_DAYS)


def _user(db: Db, username: str, what: str = "user") -> dict[str, Any]:
    return db.one("SELECT * FROM users WHERE lower(username) = lower(?)", (username.strip().lstrip("@"),),
                  missing=f"No {what} with username {username!r}. Use find_users to look people up by name or e-mail.")


def _user_rows(db: Db, username: str, sql: str, *params: Any) -> list[dict[str, Any]]:
    """The rows of one of a user's lists: ``sql`` takes the user's id, then ``params``."""
    return db.query(sql, (_user(db, username)["id"], *params))


def _plan(db: Db, user_id: int) -> dict[str, Any]:
    """The plan the user listens on: the family plan they belong to, else their own subscription's plan."""
    fam = db.one("SELECT p.*, s.id AS subscription_id, s.user_id AS owner_id, s.status AS sub_status FROM family_members fm "
                 "JOIN subscriptions s ON s.id = fm.subscription_id JOIN plans p ON p.id = s.plan_id "
                 "WHERE fm.user_id = ?", (user_id,))
    if fam:
        return {**fam, "via_family": True}
    own = db.one("SELECT p.*, s.id AS subscription_id, s.user_id AS owner_id, s.status AS sub_status FROM subscriptions s "
                 "JOIN plans p ON p.id = s.plan_id WHERE s.user_id = ?", (user_id,))
    return {**own, "via_family": False}


def _artist(db: Db, artist_id: int) -> dict[str, Any]:
    return db.one("SELECT * FROM artists WHERE id = ?", (artist_id,), missing=f"No artist with id {artist_id}.")


def _track(db: Db, track_id: int) -> dict[str, Any]:
    return db.one("SELECT t.*, al.title AS album, ar.name AS artist, ar.id AS artist_id FROM tracks t JOIN albums al ON "
                  "al.id = t.album_id JOIN artists ar ON ar.id = al.artist_id WHERE t.id = ?", (track_id,),
                  missing=f"No track with id {track_id}. Use search_catalog to find tracks.")


def _playable(db: Db, user: dict[str, Any], t: dict[str, Any]) -> None:
    db.none("SELECT 1 FROM track_region_blocks WHERE track_id = ? AND region = ?", (t["id"], user["region"]),
            found=f"'{t['title']}' by {t['artist']} is not available in {user['region']}, where "
                  f"{user['username']}'s account is registered.")
    if t["explicit"] and not user["allow_explicit"]:
        raise ToolError(f"'{t['title']}' is explicit and {user['username']}'s account has the explicit-content filter on.")


def _playable_track(db: Db, user: dict[str, Any], track_id: int) -> dict[str, Any]:
    t = _track(db, track_id)
    _playable(db, user, t)
    return t


def _playlist(db: Db, playlist_id: int) -> dict[str, Any]:
    return db.one("SELECT p.*, u.username AS owner FROM playlists p JOIN users u ON u.id = p.owner_id WHERE p.id = ?",
                  (playlist_id,),
                  missing=f"No playlist with id {playlist_id}. Use list_playlists with the owner's username.")


def _owned_playlist(db: Db, username: str, playlist_id: int, what: str) -> tuple[dict, dict]:
    """The acting user and a playlist they own; only the owner can ``what``."""
    u = _user(db, username)
    p = _playlist(db, playlist_id)
    require_owner(p, "owner_id", u["id"], f"Only the owner ({p['owner']}) can {what}.")
    return u, p


def _refuse_taken_name(db: Db, user: dict[str, Any], name: str) -> None:
    db.none("SELECT 1 FROM playlists WHERE owner_id = ? AND lower(name) = lower(?)", (user["id"], name),
            found=f"{user['username']} already has a playlist called {name!r}.")


def _is_collaborator(db: Db, playlist_id: int, user_id: int) -> bool:
    return db.value("SELECT 1 FROM playlist_collaborators WHERE playlist_id = ? AND user_id = ?",
                    (playlist_id, user_id)) is not None


def _delete_own(db: Db, username: str, sql: str, target_id: int, refusal: str) -> None:
    """Delete the acting user's row for ``target_id`` (``sql`` takes the user's id, then ``target_id``); if
    there is none, refuse with "<username> ``refusal``"."""
    u = _user(db, username)
    if not db.execute(sql, (u["id"], target_id)):
        raise ToolError(f"{u['username']} {refusal}")


def _device(db: Db, user: dict[str, Any], device_id: int) -> dict[str, Any]:
    refusal = f"{user['username']} has no device with id {device_id}. Use list_devices."
    d = db.one("SELECT * FROM devices WHERE id = ?", (device_id,), missing=refusal)
    require_owner(d, "user_id", user["id"], refusal)
    return d


def _drop_offline(db: Db, user_id: int) -> int:
    n = db.execute("DELETE FROM downloads WHERE device_id IN (SELECT id FROM devices WHERE user_id = ?)", (user_id,))
    db.execute("UPDATE devices SET offline_enabled = 0 WHERE user_id = ? AND offline_enabled = 1", (user_id,))
    return n


def _money(c: int) -> str:
    return f"-${-c / 100:.2f}" if c < 0 else f"${c / 100:.2f}"


# ----------------------------------------------------------------------------------------------
# read tools: catalogue
# ----------------------------------------------------------------------------------------------

@tool
def search_catalog(db: Db, query: str, kind: Literal["track", "album", "artist", "podcast"] = "track",
                   limit: int = 10) -> list[dict]:
    """Search the catalogue by words in a name or title. Tracks also match on their artist's name.

    Args:
        query: words to look for, e.g. "midnight harbor".
        kind: what to search: track, album, artist or podcast.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    words = [w for w in query.lower().split() if w][:6] or [""]
    if kind == "track":
        sql = ("SELECT t.id AS track_id, t.title, ar.name AS artist, al.title AS album, t.duration_sec, t.explicit FROM "
               "tracks t JOIN albums al ON al.id = t.album_id JOIN artists ar ON ar.id = al.artist_id WHERE 1 = 1")
        cols = ("t.title", "ar.name")
        order = " ORDER BY t.title, t.id LIMIT ?"
    elif kind == "album":
        sql = ("SELECT al.id AS album_id, al.title, ar.name AS artist, al.album_type, al.release_date FROM albums al JOIN "
               "artists ar ON ar.id = al.artist_id WHERE 1 = 1")
        cols = ("al.title", "ar.name")
        order = " ORDER BY al.title, al.id LIMIT ?"
    elif kind == "artist":
        sql = "SELECT ar.id AS artist_id, ar.name, ar.country, ar.verified FROM artists ar WHERE 1 = 1"
        cols = ("ar.name", "ar.name")
        order = " ORDER BY ar.name, ar.id LIMIT ?"
    else:
        sql = "SELECT p.id AS podcast_id, p.title, p.publisher, p.category FROM podcasts p WHERE 1 = 1"
        cols = ("p.title", "p.publisher")
        order = " ORDER BY p.title, p.id LIMIT ?"
    params: list[Any] = []
    for w in words:
        either_column, word_params = like_any(w, f"lower({cols[0]})", f"lower({cols[1]})")
        sql += f" AND {either_column}"
        params += word_params
    return db.query(sql + order, (*params, limit))


@tool
def get_album(db: Db, album_id: int) -> dict:
    """Show an album with its tracks in order (id, title, duration, explicit flag).

    Args:
        album_id: the album's id, from search_catalog.
    """
    al = db.one("SELECT al.*, ar.name AS artist FROM albums al JOIN artists ar ON ar.id = al.artist_id WHERE al.id = ?",
                (album_id,),
                missing=f"No album with id {album_id}.")
    tracks = db.query("SELECT id AS track_id, track_number, title, duration_sec, explicit FROM tracks WHERE album_id = ? "
                      "ORDER BY track_number", (album_id,))
    return {"album_id": al["id"], "title": al["title"], "artist": al["artist"], "artist_id": al["artist_id"],
            "album_type": al["album_type"], "release_date": al["release_date"], "label": al["label"], "tracks": tracks}


@tool
def get_artist(db: Db, artist_id: int) -> dict:
    """Show an artist: country, verified flag, follower count and their albums.

    Args:
        artist_id: the artist's id, from search_catalog.
    """
    ar = _artist(db, artist_id)
    albums = db.query("SELECT id AS album_id, title, album_type, release_date FROM albums WHERE artist_id = ? "
                      "ORDER BY release_date", (artist_id,))
    followers = db.value("SELECT COUNT(*) FROM follows WHERE artist_id = ?", (artist_id,))
    return {"artist_id": ar["id"], "name": ar["name"], "country": ar["country"], "verified": ar["verified"],
            "followers": followers, "albums": albums}


@tool
def get_track(db: Db, track_id: int) -> dict:
    """Show a track: artist, album, duration, explicit flag, and the regions where it is blocked.

    Args:
        track_id: the track's id.
    """
    t = _track(db, track_id)
    blocked = [r["region"] for r in db.query("SELECT region FROM track_region_blocks WHERE track_id = ? ORDER BY region",
                                             (track_id,))]
    return {"track_id": t["id"], "title": t["title"], "artist": t["artist"], "artist_id": t["artist_id"],
            "album": t["album"], "album_id": t["album_id"], "track_number": t["track_number"],
            "duration_sec": t["duration_sec"], "explicit": t["explicit"], "blocked_regions": blocked}


@tool
def get_podcast(db: Db, podcast_id: int) -> dict:
    """Show a podcast and its episodes (id, number, title, duration, explicit flag, publication time).

    Args:
        podcast_id: the podcast's id, from search_catalog with kind "podcast".
    """
    p = db.one("SELECT * FROM podcasts WHERE id = ?", (podcast_id,),
               missing=f"No podcast with id {podcast_id}.")
    eps = db.query("SELECT id AS episode_id, episode_number, title, duration_sec, explicit, published_at FROM episodes "
                   "WHERE podcast_id = ? ORDER BY episode_number", (podcast_id,))
    return {"podcast_id": p["id"], "title": p["title"], "publisher": p["publisher"], "category": p["category"],
            "episodes": eps}


# ----------------------------------------------------------------------------------------------
# read tools: accounts and libraries
# ----------------------------------------------------------------------------------------------

@tool
def find_users(db: Db, query: str, limit: int = 10) -> list[dict]:
    """Find users by part of their username, display name or e-mail.

    Args:
        query: text to look for.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    who, params = like_any(query.strip(), "lower(username)", "lower(display_name)", "lower(email)", lower=True)
    return db.query(f"SELECT username, display_name, email, region FROM users WHERE {who} ORDER BY username LIMIT ?",
                    (*params, limit))


@tool
def get_account(db: Db, username: str) -> dict:
    """Show a user's account: region, explicit filter, their own subscription (plan, price, status, current
    30-day billing period), the plan they actually listen on (a family member uses the owner's family plan),
    family members (for a family owner), and offline limits.

    Args:
        username: the user's username.
    """
    u = _user(db, username)
    sub = db.one("SELECT s.*, p.code, p.name, p.monthly_price_cents FROM subscriptions s JOIN plans p ON p.id = s.plan_id "
                 "WHERE s.user_id = ?", (u["id"],))
    eff = _plan(db, u["id"])
    members = db.query("SELECT u.username, u.display_name, fm.joined_at FROM family_members fm JOIN users u ON "
                       "u.id = fm.user_id WHERE fm.subscription_id = ? ORDER BY fm.id", (sub["id"],))
    owner = db.value("SELECT username FROM users WHERE id = ?", (eff["owner_id"],)) if eff["via_family"] else None
    offline = db.value("SELECT COUNT(*) FROM devices WHERE user_id = ? AND offline_enabled = 1", (u["id"],))
    return {"username": u["username"], "display_name": u["display_name"], "email": u["email"], "region": u["region"],
            "allow_explicit": u["allow_explicit"],
            "subscription": {"plan": sub["code"], "monthly_price": _money(sub["monthly_price_cents"]),
                             "status": sub["status"], "current_period_start": sub["current_period_start"],
                             "current_period_end": sub["current_period_end"]},
            "listening_on": eff["code"], "family_owner": owner, "family_members": members,
            "offline_allowed": bool(eff["offline_allowed"]), "offline_devices": offline,
            "max_offline_devices": eff["max_offline_devices"]}


@tool
def list_invoices(db: Db, username: str, limit: int = 10) -> list[dict]:
    """List the invoices of a user's own subscription, newest first (period charges and plan-change
    prorations; negative amounts are credits).

    Args:
        username: the user's username.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    return _user_rows(db, username, "SELECT i.id AS invoice_id, i.kind, i.amount_cents, i.status, i.period_start, "
                      "i.period_end, i.issued_at FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id "
                      "WHERE s.user_id = ? ORDER BY i.issued_at DESC, i.id DESC LIMIT ?", limit)


@tool
def list_devices(db: Db, username: str) -> list[dict]:
    """List a user's devices with their ids, type, offline flag and number of downloads.

    Args:
        username: the user's username.
    """
    return _user_rows(db, username, "SELECT d.id AS device_id, d.name, d.device_type, d.offline_enabled, "
                      "(SELECT COUNT(*) FROM downloads x WHERE x.device_id = d.id) AS downloads FROM devices d "
                      "WHERE d.user_id = ? ORDER BY d.id")


@tool
def list_downloads(db: Db, username: str, device_id: int, limit: int = 30) -> list[dict]:
    """List the tracks downloaded on one of a user's devices.

    Args:
        username: the user's username.
        device_id: the device's id, from list_devices.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    u = _user(db, username)
    _device(db, u, device_id)
    return db.query("SELECT t.id AS track_id, t.title, ar.name AS artist, d.downloaded_at FROM downloads d JOIN tracks t "
                    "ON t.id = d.track_id JOIN albums al ON al.id = t.album_id JOIN artists ar ON ar.id = al.artist_id "
                    "WHERE d.device_id = ? ORDER BY d.downloaded_at DESC, d.id DESC LIMIT ?", (device_id, limit))


@tool
def list_playlists(db: Db, username: str) -> list[dict]:
    """List the playlists a user owns or collaborates on, with their settings and track counts.

    Args:
        username: the user's username.
    """
    u = _user(db, username)
    return db.query("SELECT p.id AS playlist_id, p.name, o.username AS owner, p.is_public, p.is_collaborative, "
                    "p.allow_duplicates, (SELECT COUNT(*) FROM playlist_tracks x WHERE x.playlist_id = p.id) AS tracks, "
                    "CASE WHEN p.owner_id = ? THEN 'owner' ELSE 'collaborator' END AS role FROM playlists p JOIN users o "
                    "ON o.id = p.owner_id WHERE p.owner_id = ? OR p.id IN (SELECT playlist_id FROM playlist_collaborators "
                    "WHERE user_id = ?) ORDER BY p.id", (u["id"], u["id"], u["id"]))


@tool
def get_playlist(db: Db, playlist_id: int, limit: int = 50) -> dict:
    """Show a playlist: owner, settings, collaborators, and its tracks in order (position, track id, title,
    artist, duration, explicit flag, who added it).

    Args:
        playlist_id: the playlist's id.
        limit: maximum number of tracks listed, 1 to 200.
    """
    _limit(limit, 200)
    p = _playlist(db, playlist_id)
    collabs = [r["username"] for r in db.query("SELECT u.username FROM playlist_collaborators c JOIN users u ON "
                                               "u.id = c.user_id WHERE c.playlist_id = ? ORDER BY c.id", (playlist_id,))]
    tracks = db.query("SELECT pt.position, t.id AS track_id, t.title, ar.name AS artist, t.duration_sec, t.explicit, "
                      "u.username AS added_by FROM playlist_tracks pt JOIN tracks t ON t.id = pt.track_id JOIN albums al "
                      "ON al.id = t.album_id JOIN artists ar ON ar.id = al.artist_id JOIN users u ON u.id = pt.added_by "
                      "WHERE pt.playlist_id = ? ORDER BY pt.position LIMIT ?", (playlist_id, limit))
    total = db.value("SELECT COUNT(*) FROM playlist_tracks WHERE playlist_id = ?", (playlist_id,))
    return {"playlist_id": p["id"], "name": p["name"], "owner": p["owner"], "description": p["description"],
            "is_public": p["is_public"], "is_collaborative": p["is_collaborative"],
            "allow_duplicates": p["allow_duplicates"], "collaborators": collabs, "track_count": total, "tracks": tracks}


@tool
def list_likes(db: Db, username: str, limit: int = 20) -> list[dict]:
    """List the tracks a user has liked, newest first.

    Args:
        username: the user's username.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    return _user_rows(db, username, "SELECT t.id AS track_id, t.title, ar.name AS artist, l.liked_at FROM likes l "
                      "JOIN tracks t ON t.id = l.track_id JOIN albums al ON al.id = t.album_id JOIN artists ar "
                      "ON ar.id = al.artist_id WHERE l.user_id = ? ORDER BY l.liked_at DESC, l.id DESC LIMIT ?",
                      limit)


@tool
def list_follows(db: Db, username: str) -> dict:
    """List the artists and users a user follows.

    Args:
        username: the user's username.
    """
    u = _user(db, username)
    artists = db.query("SELECT a.id AS artist_id, a.name, f.followed_at FROM follows f JOIN artists a ON a.id = f.artist_id "
                       "WHERE f.follower_id = ? ORDER BY f.id", (u["id"],))
    users = db.query("SELECT x.username, x.display_name, f.followed_at FROM follows f JOIN users x ON "
                     "x.id = f.followed_user_id WHERE f.follower_id = ? ORDER BY f.id", (u["id"],))
    return {"artists": artists, "users": users}


@tool
def get_listening_history(db: Db, username: str, date_from: str | None = None, date_to: str | None = None,
                          limit: int = 30) -> list[dict]:
    """List a user's plays, newest first, optionally within a date range (YYYY-MM-DD, inclusive).

    Args:
        username: the user's username.
        date_from: only plays on or after this date.
        date_to: only plays on or before this date.
        limit: maximum number of results, 1 to 50.
    """
    _limit(limit)
    return _user_rows(db, username, "SELECT h.played_at, t.id AS track_id, t.title, ar.name AS artist, h.ms_played "
                      "FROM listening_history h JOIN tracks t ON t.id = h.track_id JOIN albums al "
                      "ON al.id = t.album_id JOIN artists ar ON ar.id = al.artist_id WHERE h.user_id = ? "
                      "AND (? IS NULL OR substr(h.played_at, 1, 10) >= ?) "
                      "AND (? IS NULL OR substr(h.played_at, 1, 10) <= ?) ORDER BY h.played_at DESC, h.id DESC LIMIT ?",
                      date_from, date_from, date_to, date_to, limit)


@tool
def get_queue(db: Db, username: str) -> list[dict]:
    """Show a user's play queue in order.

    Args:
        username: the user's username.
    """
    return _user_rows(db, username, "SELECT q.position, t.id AS track_id, t.title, ar.name AS artist FROM "
                      "queue_items q JOIN tracks t ON t.id = q.track_id JOIN albums al ON al.id = t.album_id "
                      "JOIN artists ar ON ar.id = al.artist_id WHERE q.user_id = ? ORDER BY q.position")


@tool
def get_episode_progress(db: Db, username: str, podcast_id: int) -> list[dict]:
    """Show where a user is in each episode of a podcast they have started (position in seconds, completed).

    Args:
        username: the user's username.
        podcast_id: the podcast's id.
    """
    return _user_rows(db, username, "SELECT e.id AS episode_id, e.episode_number, e.title, e.duration_sec, "
                      "p.position_sec, p.completed, p.updated_at FROM episode_progress p JOIN episodes e "
                      "ON e.id = p.episode_id WHERE p.user_id = ? AND e.podcast_id = ? ORDER BY e.episode_number",
                      podcast_id)


# ----------------------------------------------------------------------------------------------
# write tools: playlists
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def create_playlist(db: Db, username: str, name: str, description: str = "", is_public: bool = True,
                    is_collaborative: bool = False, allow_duplicates: bool = False) -> dict:
    """Create an empty playlist owned by the user. Names are unique among a user's own playlists. A
    collaborative playlist cannot be public.

    Args:
        username: the owner (the account acting).
        name: the playlist's name, 1 to 100 characters.
        description: optional description.
        is_public: listed on the user's profile (default true).
        is_collaborative: collaborators may add tracks (default false).
        allow_duplicates: whether the same track may appear twice (default false).
    """
    u = _user(db, username)
    name = name.strip()
    if not 1 <= len(name) <= 100:
        raise ToolError("A playlist name has 1 to 100 characters.")
    if is_collaborative and is_public:
        raise ToolError("A collaborative playlist must be private: pass is_public=false.")
    _refuse_taken_name(db, u, name)
    pid = db.insert("playlists", {"owner_id": u["id"], "name": name, "description": description.strip(),
                                  "is_public": int(is_public), "is_collaborative": int(is_collaborative),
                                  "allow_duplicates": int(allow_duplicates), "created_at": _now(db)})
    return {"playlist_id": pid, "name": name}


@tool(write=True)
def update_playlist(db: Db, username: str, playlist_id: int, name: str | None = None, description: str | None = None,
                    is_public: bool | None = None, is_collaborative: bool | None = None,
                    allow_duplicates: bool | None = None) -> dict:
    """Change a playlist's name, description or settings. Only the owner may. A collaborative playlist cannot be
    public; duplicates cannot be disallowed while the playlist contains a track twice.

    Args:
        username: the owner (the account acting).
        playlist_id: the playlist's id.
        name: new name.
        description: new description.
        is_public: new public flag.
        is_collaborative: new collaborative flag.
        allow_duplicates: new duplicates flag.
    """
    u, p = _owned_playlist(db, username, playlist_id, "change playlist settings")
    new = {"name": p["name"] if name is None else name.strip(),
           "description": p["description"] if description is None else description.strip(),
           "is_public": p["is_public"] if is_public is None else int(is_public),
           "is_collaborative": p["is_collaborative"] if is_collaborative is None else int(is_collaborative),
           "allow_duplicates": p["allow_duplicates"] if allow_duplicates is None else int(allow_duplicates)}
    if new == {k: p[k] for k in new}:
        raise ToolError("Nothing to change.")
    if not 1 <= len(new["name"]) <= 100:
        raise ToolError("A playlist name has 1 to 100 characters.")
    if new["is_collaborative"] and new["is_public"]:
        raise ToolError("A collaborative playlist must be private: also set is_public=false.")
    if new["name"].lower() != p["name"].lower():
        _refuse_taken_name(db, u, new["name"])
    if not new["allow_duplicates"]:
        db.none("SELECT 1 FROM playlist_tracks WHERE playlist_id = ? GROUP BY track_id HAVING COUNT(*) > 1",
                (playlist_id,), found="The playlist contains a track more than once; remove the duplicates first.")
    db.execute("UPDATE playlists SET name = ?, description = ?, is_public = ?, is_collaborative = ?, allow_duplicates = ? "
               "WHERE id = ?", (new["name"], new["description"], new["is_public"], new["is_collaborative"],
                                new["allow_duplicates"], playlist_id))
    return {"playlist_id": playlist_id, **new}


@tool(write=True)
def add_track_to_playlist(db: Db, username: str, playlist_id: int, track_id: int) -> dict:
    """Add a track to the end of a playlist. The owner may always add; collaborators may add to collaborative
    playlists. The track must be playable for the acting user (region, explicit filter); a track already on
    the playlist is refused unless the playlist allows duplicates; at most 200 tracks.

    Args:
        username: the account acting (owner or collaborator).
        playlist_id: the playlist's id.
        track_id: the track's id.
    """
    u = _user(db, username)
    p = _playlist(db, playlist_id)
    if p["owner_id"] != u["id"] and not (p["is_collaborative"] and _is_collaborator(db, playlist_id, u["id"])):
        raise ToolError(f"{u['username']} cannot edit '{p['name']}': only its owner ({p['owner']}) and, on a "
                        "collaborative playlist, its collaborators can add tracks.")
    t = _playable_track(db, u, track_id)
    n = db.value("SELECT COUNT(*) FROM playlist_tracks WHERE playlist_id = ?", (playlist_id,))
    if n >= MAX_PLAYLIST_TRACKS:
        raise ToolError(f"'{p['name']}' already has {MAX_PLAYLIST_TRACKS} tracks, the maximum.")
    if not p["allow_duplicates"]:
        db.none("SELECT 1 FROM playlist_tracks WHERE playlist_id = ? AND track_id = ?", (playlist_id, track_id),
                found=f"'{t['title']}' is already on '{p['name']}', which does not allow duplicates.")
    pos = db.value("SELECT COALESCE(MAX(position), 0) + 1 FROM playlist_tracks WHERE playlist_id = ?", (playlist_id,))
    db.insert("playlist_tracks", {"playlist_id": playlist_id, "track_id": track_id, "position": pos, "added_by": u["id"],
                                  "added_at": _now(db)})
    return {"playlist_id": playlist_id, "track_id": track_id, "title": t["title"], "position": pos}


@tool(write=True)
def remove_track_from_playlist(db: Db, username: str, playlist_id: int, position: int) -> dict:
    """Remove the track at a position of a playlist; later tracks move up one place. The owner may remove any
    track; a collaborator only tracks they added themselves.

    Args:
        username: the account acting.
        playlist_id: the playlist's id.
        position: the track's position (1 = first), from get_playlist.
    """
    u = _user(db, username)
    p = _playlist(db, playlist_id)
    row = db.one("SELECT * FROM playlist_tracks WHERE playlist_id = ? AND position = ?", (playlist_id, position),
                 missing=f"'{p['name']}' has no track at position {position}.")
    if p["owner_id"] != u["id"]:
        if not (p["is_collaborative"] and _is_collaborator(db, playlist_id, u["id"])) or row["added_by"] != u["id"]:
            raise ToolError(f"{u['username']} may not remove that track: collaborators can only remove tracks they added.")
    db.execute("DELETE FROM playlist_tracks WHERE id = ?", (row["id"],))
    for r in db.query("SELECT id FROM playlist_tracks WHERE playlist_id = ? AND position > ? ORDER BY position",
                      (playlist_id, position)):
        db.execute("UPDATE playlist_tracks SET position = position - 1 WHERE id = ?", (r["id"],))
    return {"playlist_id": playlist_id, "removed_track_id": row["track_id"], "position": position}


@tool(write=True)
def add_collaborator(db: Db, username: str, playlist_id: int, collaborator_username: str) -> dict:
    """Let another user add tracks to a collaborative playlist. Only the owner may, at most 10 collaborators.

    Args:
        username: the owner (the account acting).
        playlist_id: the playlist's id.
        collaborator_username: the user to add.
    """
    u, p = _owned_playlist(db, username, playlist_id, "add collaborators")
    if not p["is_collaborative"]:
        raise ToolError(f"'{p['name']}' is not collaborative; make it collaborative (and private) with update_playlist "
                        "first.")
    c = _user(db, collaborator_username, "collaborator")
    if c["id"] == u["id"]:
        raise ToolError("The owner is not added as a collaborator.")
    if _is_collaborator(db, playlist_id, c["id"]):
        raise ToolError(f"{c['username']} is already a collaborator.")
    if db.value("SELECT COUNT(*) FROM playlist_collaborators WHERE playlist_id = ?", (playlist_id,)) >= MAX_COLLABORATORS:
        raise ToolError(f"'{p['name']}' already has {MAX_COLLABORATORS} collaborators.")
    db.insert("playlist_collaborators", {"playlist_id": playlist_id, "user_id": c["id"], "added_at": _now(db)})
    return {"playlist_id": playlist_id, "collaborator": c["username"]}


# ----------------------------------------------------------------------------------------------
# write tools: likes, follows, queue
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def like_track(db: Db, username: str, track_id: int) -> dict:
    """Like a track (it must be playable for the user).

    Args:
        username: the account acting.
        track_id: the track's id.
    """
    u = _user(db, username)
    t = _playable_track(db, u, track_id)
    db.none("SELECT 1 FROM likes WHERE user_id = ? AND track_id = ?", (u["id"], track_id),
            found=f"{u['username']} already likes '{t['title']}'.")
    db.insert("likes", {"user_id": u["id"], "track_id": track_id, "liked_at": _now(db)})
    return {"track_id": track_id, "title": t["title"], "liked": True}


@tool(write=True)
def unlike_track(db: Db, username: str, track_id: int) -> dict:
    """Remove a track from the user's likes.

    Args:
        username: the account acting.
        track_id: the track's id.
    """
    _delete_own(db, username, "DELETE FROM likes WHERE user_id = ? AND track_id = ?", track_id,
                f"does not like track {track_id}.")
    return {"track_id": track_id, "liked": False}


@tool(write=True)
def follow_artist(db: Db, username: str, artist_id: int) -> dict:
    """Follow an artist.

    Args:
        username: the account acting.
        artist_id: the artist's id.
    """
    u = _user(db, username)
    a = _artist(db, artist_id)
    db.none("SELECT 1 FROM follows WHERE follower_id = ? AND artist_id = ?", (u["id"], artist_id),
            found=f"{u['username']} already follows {a['name']}.")
    db.insert("follows", {"follower_id": u["id"], "artist_id": artist_id, "followed_user_id": None,
                          "followed_at": _now(db)})
    return {"artist": a["name"], "following": True}


@tool(write=True)
def unfollow_artist(db: Db, username: str, artist_id: int) -> dict:
    """Stop following an artist.

    Args:
        username: the account acting.
        artist_id: the artist's id.
    """
    _delete_own(db, username, "DELETE FROM follows WHERE follower_id = ? AND artist_id = ?", artist_id,
                f"does not follow artist {artist_id}.")
    return {"artist_id": artist_id, "following": False}


@tool(write=True)
def follow_user(db: Db, username: str, other_username: str) -> dict:
    """Follow another user (not yourself).

    Args:
        username: the account acting.
        other_username: the user to follow.
    """
    u = _user(db, username)
    o = _user(db, other_username, "user to follow")
    if o["id"] == u["id"]:
        raise ToolError("Users cannot follow themselves.")
    db.none("SELECT 1 FROM follows WHERE follower_id = ? AND followed_user_id = ?", (u["id"], o["id"]),
            found=f"{u['username']} already follows {o['username']}.")
    db.insert("follows", {"follower_id": u["id"], "artist_id": None, "followed_user_id": o["id"],
                          "followed_at": _now(db)})
    return {"following": o["username"]}


@tool(write=True)
def add_to_queue(db: Db, username: str, track_id: int) -> dict:
    """Add a playable track to the end of the user's play queue (at most 50 items).

    Args:
        username: the account acting.
        track_id: the track's id.
    """
    u = _user(db, username)
    t = _playable_track(db, u, track_id)
    n = db.value("SELECT COUNT(*) FROM queue_items WHERE user_id = ?", (u["id"],))
    if n >= MAX_QUEUE:
        raise ToolError(f"The queue already holds {MAX_QUEUE} tracks.")
    pos = db.value("SELECT COALESCE(MAX(position), 0) + 1 FROM queue_items WHERE user_id = ?", (u["id"],))
    db.insert("queue_items", {"user_id": u["id"], "track_id": track_id, "position": pos, "added_at": _now(db)})
    return {"track_id": track_id, "title": t["title"], "position": pos}


# ----------------------------------------------------------------------------------------------
# write tools: devices and downloads
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def register_device(db: Db, username: str, name: str, device_type: DeviceType) -> dict:
    """Register a new device for the user (at most 10; names unique per user). Offline is off until enabled.

    Args:
        username: the account acting.
        name: the device's name, e.g. "Kitchen speaker".
        device_type: phone, tablet, desktop or speaker.
    """
    u = _user(db, username)
    name = name.strip()
    if not name:
        raise ToolError("Give the device a name.")
    db.none("SELECT 1 FROM devices WHERE user_id = ? AND lower(name) = lower(?)", (u["id"], name),
            found=f"{u['username']} already has a device called {name!r}.")
    if db.value("SELECT COUNT(*) FROM devices WHERE user_id = ?", (u["id"],)) >= MAX_DEVICES:
        raise ToolError(f"{u['username']} already has {MAX_DEVICES} devices.")
    did = db.insert("devices", {"user_id": u["id"], "name": name, "device_type": device_type, "offline_enabled": 0,
                                "registered_at": _now(db)})
    return {"device_id": did, "name": name}


@tool(write=True)
def enable_offline(db: Db, username: str, device_id: int) -> dict:
    """Turn on offline listening for one of the user's devices. Needs a plan with offline listening (premium or
    family, own or as a family member) and is limited to the plan's number of offline devices.

    Args:
        username: the account acting.
        device_id: the device's id, from list_devices.
    """
    u = _user(db, username)
    d = _device(db, u, device_id)
    plan = _plan(db, u["id"])
    if not plan["offline_allowed"]:
        raise ToolError(f"{u['username']} listens on the {plan['name']} plan, which has no offline listening; upgrade "
                        "to premium or family first.")
    if d["offline_enabled"]:
        raise ToolError(f"Offline listening is already on for {d['name']}.")
    n = db.value("SELECT COUNT(*) FROM devices WHERE user_id = ? AND offline_enabled = 1", (u["id"],))
    if n >= plan["max_offline_devices"]:
        raise ToolError(f"{u['username']} already has {n} offline devices, the {plan['name']} plan's limit.")
    db.execute("UPDATE devices SET offline_enabled = 1 WHERE id = ?", (device_id,))
    return {"device_id": device_id, "offline_enabled": True}


@tool(write=True)
def download_track(db: Db, username: str, device_id: int, track_id: int) -> dict:
    """Download a track to one of the user's offline-enabled devices. The user's plan must allow offline
    listening and the track must be playable for them; each track once per device.

    Args:
        username: the account acting.
        device_id: the device's id.
        track_id: the track's id.
    """
    u = _user(db, username)
    d = _device(db, u, device_id)
    plan = _plan(db, u["id"])
    if not plan["offline_allowed"]:
        raise ToolError(f"Downloads need premium or family; {u['username']} listens on the {plan['name']} plan.")
    if not d["offline_enabled"]:
        raise ToolError(f"Offline listening is off for {d['name']}; enable it first.")
    t = _playable_track(db, u, track_id)
    db.none("SELECT 1 FROM downloads WHERE device_id = ? AND track_id = ?", (device_id, track_id),
            found=f"'{t['title']}' is already downloaded on {d['name']}.")
    if db.value("SELECT COUNT(*) FROM downloads WHERE device_id = ?", (device_id,)) >= MAX_DOWNLOADS_PER_DEVICE:
        raise ToolError(f"{d['name']} already holds {MAX_DOWNLOADS_PER_DEVICE} downloads.")
    db.insert("downloads", {"device_id": device_id, "track_id": track_id, "downloaded_at": _now(db)})
    return {"device_id": device_id, "track_id": track_id, "title": t["title"]}


# ----------------------------------------------------------------------------------------------
# write tools: plans and family
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def change_plan(db: Db, username: str, plan_code: PlanCode) -> dict:
    """Switch the user's own subscription to another plan, effective now.

    Proration: the difference between the new and old monthly prices for the days left in the current 30-day
    period, i.e. (new - old) x days_left / 30 rounded to the nearest cent, is charged (a paid invoice) or,
    when negative, credited. Rules: a family member cannot change plan while in someone's family (the owner
    must remove them first); a family owner must remove all members before leaving the family plan; a
    past-due subscription cannot upgrade; moving to free removes all the user's downloads and turns offline
    listening off on their devices.

    Args:
        username: the account acting (the subscription's owner).
        plan_code: free, premium or family.
    """
    u = _user(db, username)
    db.none("SELECT 1 FROM family_members WHERE user_id = ?", (u["id"],),
            found=f"{u['username']} is a member of someone's family plan; the family owner must remove them before "
                  "they change their own plan.")
    sub = db.one("SELECT s.*, p.code, p.monthly_price_cents AS price FROM subscriptions s JOIN plans p ON p.id = s.plan_id "
                 "WHERE s.user_id = ?", (u["id"],))
    new = db.one("SELECT * FROM plans WHERE code = ?", (plan_code,))
    if sub["code"] == plan_code:
        raise ToolError(f"{u['username']} is already on the {new['name']} plan.")
    members = db.value("SELECT COUNT(*) FROM family_members WHERE subscription_id = ?", (sub["id"],))
    if members and plan_code != "family":
        raise ToolError(f"{u['username']}'s family plan still has {members} member(s); remove them first.")
    if sub["status"] == "past_due" and new["monthly_price_cents"] > sub["price"]:
        raise ToolError("The last payment failed (past due); the subscription cannot be upgraded until it is settled.")
    pr = proration_cents(sub["price"], new["monthly_price_cents"], sub["current_period_end"], db.today())
    db.execute("UPDATE subscriptions SET plan_id = ? WHERE id = ?", (new["id"], sub["id"]))
    db.insert("plan_changes", {"subscription_id": sub["id"], "from_plan_id": sub["plan_id"], "to_plan_id": new["id"],
                               "proration_cents": pr, "changed_at": _now(db)})
    if pr:
        db.insert("invoices", {"subscription_id": sub["id"], "kind": "proration", "amount_cents": pr,
                               "status": "paid" if pr > 0 else "credited", "period_start": db.today().isoformat(),
                               "period_end": sub["current_period_end"][:10], "issued_at": _now(db)})
    removed = 0
    if not new["offline_allowed"]:
        removed = _drop_offline(db, u["id"])
    return {"plan": plan_code, "proration": _money(pr), "proration_cents": pr, "downloads_removed": removed}


@tool(write=True)
def add_family_member(db: Db, username: str, member_username: str) -> dict:
    """Add a user to the acting owner's family plan. The owner must be on the family plan, with room left (the
    owner plus members may not exceed the plan's maximum); the new member must be on the free plan, not in
    another family, and registered in the same region as the owner.

    Args:
        username: the family plan's owner (the account acting).
        member_username: the user to add.
    """
    u = _user(db, username)
    sub = db.one("SELECT s.*, p.code, p.max_members FROM subscriptions s JOIN plans p ON p.id = s.plan_id WHERE "
                 "s.user_id = ?", (u["id"],))
    if sub["code"] != "family":
        raise ToolError(f"{u['username']} is not on the family plan.")
    m = _user(db, member_username, "member")
    if m["id"] == u["id"]:
        raise ToolError("The owner is already part of the plan.")
    db.none("SELECT 1 FROM family_members WHERE user_id = ?", (m["id"],),
            found=f"{m['username']} is already in a family plan.")
    if db.value("SELECT p.code FROM subscriptions s JOIN plans p ON p.id = s.plan_id WHERE s.user_id = ?",
                (m["id"],)) != "free":
        raise ToolError(f"{m['username']} pays for their own plan; they must switch to free before joining a family.")
    if m["region"] != u["region"]:
        raise ToolError(f"Family members must live in the same country: {m['username']} is in {m['region']}, "
                        f"{u['username']} in {u['region']}.")
    n = db.value("SELECT COUNT(*) FROM family_members WHERE subscription_id = ?", (sub["id"],))
    if n + 1 >= sub["max_members"]:
        raise ToolError(f"The family plan is full: {n} members plus the owner, at most {sub['max_members']} people.")
    db.insert("family_members", {"subscription_id": sub["id"], "user_id": m["id"], "joined_at": _now(db)})
    return {"owner": u["username"], "member": m["username"], "members": n + 1}


@tool(write=True)
def remove_family_member(db: Db, username: str, member_username: str) -> dict:
    """Remove a member from the acting owner's family plan. The removed member falls back to their own free
    plan, so their downloads are removed and offline listening is turned off on their devices.

    Args:
        username: the family plan's owner (the account acting).
        member_username: the member to remove.
    """
    u = _user(db, username)
    m = _user(db, member_username, "member")
    row = db.one("SELECT fm.id FROM family_members fm JOIN subscriptions s ON s.id = fm.subscription_id WHERE "
                 "fm.user_id = ? AND s.user_id = ?", (m["id"], u["id"]),
                 missing=f"{m['username']} is not a member of {u['username']}'s family plan.")
    db.execute("DELETE FROM family_members WHERE id = ?", (row["id"],))
    removed = 0
    if not _plan(db, m["id"])["offline_allowed"]:
        removed = _drop_offline(db, m["id"])
    return {"owner": u["username"], "removed": m["username"], "downloads_removed": removed}


# ----------------------------------------------------------------------------------------------
# write tools: podcasts
# ----------------------------------------------------------------------------------------------

@tool(write=True)
def update_episode_progress(db: Db, username: str, episode_id: int, position_sec: int) -> dict:
    """Save where the user is in a podcast episode. The position is between 0 and the episode's length; within
    the last 30 seconds the episode counts as completed. Explicit episodes are refused with the explicit
    filter on.

    Args:
        username: the account acting.
        episode_id: the episode's id, from get_podcast.
        position_sec: the position in seconds from the start (e.g. 1395 for 23:15).
    """
    u = _user(db, username)
    e = db.one("SELECT * FROM episodes WHERE id = ?", (episode_id,),
               missing=f"No episode with id {episode_id}. Use get_podcast to see episode ids.")
    if e["explicit"] and not u["allow_explicit"]:
        raise ToolError(f"'{e['title']}' is explicit and {u['username']}'s account has the explicit filter on.")
    if not 0 <= position_sec <= e["duration_sec"]:
        raise ToolError(f"The position must be between 0 and {e['duration_sec']} seconds (the episode's length).")
    done = int(position_sec >= e["duration_sec"] - COMPLETE_MARGIN_SEC)
    old = db.one("SELECT * FROM episode_progress WHERE user_id = ? AND episode_id = ?", (u["id"], episode_id))
    if old:
        if old["position_sec"] == position_sec:
            raise ToolError("That position is already saved.")
        db.execute("UPDATE episode_progress SET position_sec = ?, completed = ?, updated_at = ? WHERE id = ?",
                   (position_sec, done, _now(db), old["id"]))
    else:
        db.insert("episode_progress", {"user_id": u["id"], "episode_id": episode_id, "position_sec": position_sec,
                                       "completed": done, "updated_at": _now(db)})
    return {"episode_id": episode_id, "position_sec": position_sec, "completed": bool(done)}
