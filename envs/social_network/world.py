"""World builder for social_network: people, friendships, follows, posts, groups, messages and reports.

``build(ctx)`` returns rows per table (parents first, explicit integer keys); randomness only from
``ctx.rng`` / ``ctx.faker``, time only from ``ctx.clock``. Invariants the tools rely on:

- friendships are stored once per pair (a < b); an accepted request exists for many of them; at most one
  pending request per pair, never between friends or blocked people, and only where the receiver's
  settings allow it; blocked pairs are not friends and do not follow each other;
- every comment, reaction and report comes from someone who could see the post (friends-only posts:
  friends; closed groups: members) and is not blocked by or blocking its author; one reaction per person
  per post; direct messages only between friends;
- groups have one owner (also a member with role owner), admins and members; pending join requests only
  for closed groups and non-members;
- reports: open (no reviewer), in_review (a moderator or group admin reviewing), removed (content removed,
  removed_at after the report) or kept; site moderators review content outside groups;
- everything happened before the clock.

Every template has instances in every world: where chance leaves a template without a candidate, the builder
plants one (``_plant_pending``, ``_plant_mutual``, ``_plant_join_request``, ``_plant_open_report``, an admin in
the last group, a unique-named owner for the first group and one site moderator without a namesake); these
paths only run when needed, so the seed-0 world (seed.json) is unchanged.

With ``ctx.distractors``: namesakes (same surname, similar first name; or the same display name with another
username) and posts whose text repeats another's with a small change.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _ts
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]
CITIES = ["Lisbon", "Porto", "Austin", "Denver", "Leeds", "Bristol", "Dublin", "Toronto", "Melbourne", "Portland",
          "Seattle", "Madrid", "Lyon", "Oslo"]
DOMAINS = ["mail.com", "inbox.net", "post.org", "webmail.io"]
GROUPS = [("Trail Runners", "Weekend runs and race tips."), ("Sourdough Society", "Bread, starters and crumb shots."),
          ("Film Photography", "Analog cameras, film stocks and darkroom tips."), ("Urban Gardeners", "Balcony and allotment growing."),
          ("Board Game Night", "Finding players and reviewing games."), ("Indie Game Devs", "Sharing builds and feedback."),
          ("Birdwatchers", "Sightings, ID help and gear."), ("Book Swap", "Trading and recommending books."),
          ("Climbing Crew", "Gyms, crags and partners."), ("Vegan Kitchen", "Recipes and restaurant finds."),
          ("Cycling Commuters", "Routes, gear and safety."), ("Jazz Appreciation", "Records, gigs and history.")]
OPENERS = ["Just finished", "Can't believe", "Anyone tried", "Loving", "Quick question about", "Finally booked",
           "Thoughts on", "Big news:", "Throwback to", "Weekend plans:"]
SUBJECTS = ["the new bakery on Main Street", "my first half marathon", "the sunset at the pier", "a vintage Leica I found",
            "the tomato harvest", "the jazz night downtown", "that new sci-fi series", "our hiking trip to the lakes",
            "the farmers market", "a 1000-piece puzzle", "learning the guitar", "the climbing gym reopening",
            "my sourdough starter", "the museum's night opening", "a road trip up the coast", "the local book fair",
            "the community garden", "switching to a standing desk", "the city marathon route", "homemade ramen"]
TAILS = ["", " Highly recommend!", " What do you think?", " More photos soon.", " Who's in?", " Best decision this year.",
         " Never again.", " 10/10."]
COMMENTS = ["Looks amazing!", "So jealous.", "Count me in next time.", "Where was this?", "Congrats!", "Great shot.",
            "I had the same experience.", "Tell me more!", "Love this.", "Haha, classic."]
DMS = ["Hey, are you around this weekend?", "Thanks for yesterday!", "Did you see the new post in the group?",
       "Can you send me that recipe?", "Running late, be there in 10.", "Happy birthday!", "Let's catch up soon.",
       "Got the tickets.", "How did it go?", "Sounds good to me."]
KINDS = ["like", "like", "like", "love", "love", "haha", "wow", "sad", "angry"]


def _slug(s: str) -> str:
    return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower())


class _World:
    def __init__(self, ctx: WorldContext):
        self.ctx, self.rng, self.fk, self.now = ctx, ctx.rng, ctx.faker, ctx.clock
        self.t = Tables([
            "users", "privacy_settings", "friend_requests", "friendships", "follows", "blocks", "groups", "group_members",
            "group_join_requests", "posts", "comments", "reactions", "direct_messages", "notifications", "reports"])
        self.friends: dict[int, set] = {}
        self.blocked: set = set()
        self.pending: set = set()
        self.follow_pairs: set = set()
        self.bodies: set = set()

    # -- people ------------------------------------------------------------------------------------
    def people(self) -> None:
        ctx = self.ctx
        names: set = set()
        self.unames: set = set()
        self.users: list[Row] = []
        n = ctx.n(22, 240)
        for i in range(n):
            name = ctx.unique(lambda: f"{self.fk.first_name()} {self.fk.last_name()}", names)
            self._user(name, "moderator" if i in (2, 5) else "member")
        if ctx.distractors:
            keep = self.users[5]["display_name"]  # one site moderator keeps a display name of their own
            for base in list(self.users[: max(3, n // 5)]):
                last = base["display_name"].split(" ", 1)[1]
                twin = f"{self.fk.first_name()} {last}" if ctx.chance(0.6) else base["display_name"]
                while twin == keep:
                    twin = f"{self.fk.first_name()} {last}"
                self._user(twin, "member")
        for u in self.users:
            self.friends[u["id"]] = set()
            r = self.rng.random()
            self.t.add("privacy_settings", {
                "user_id": u["id"], "profile_visibility": "friends" if r < 0.3 else "public",
                "default_post_visibility": "friends" if self.rng.random() < 0.35 else "public",
                "friend_requests_from": "nobody" if r > 0.93 else ("friends_of_friends" if r > 0.75 else "everyone"),
                "updated_at": _ts(self.ctx.between(u["_joined"], self.now - timedelta(days=1)))})
        self.rule = {p["user_id"]: p["friend_requests_from"] for p in self.t["privacy_settings"]}
        self.profile = {p["user_id"]: p for p in self.t["privacy_settings"]}

    def _user(self, name: str, role: str) -> Row:
        first, last = name.split(" ", 1)
        base = f"{_slug(first)}{_slug(last)[:8]}"
        un = base
        while un in self.unames or len(un) < 3:
            un = f"{base}{self.rng.randint(2, 99)}"
        self.unames.add(un)
        joined = self.ctx.moment_ago(120, 1500)
        u = self.t.add("users", {"username": un, "email": f"{un}@{self.ctx.pick(DOMAINS)}", "display_name": name,
                                 "bio": self.ctx.pick(["Coffee first.", "Runner and reader.", "Dog person.", "Amateur chef.",
                                                       "Always outdoors.", "Film nerd.", ""]),
                                 "city": self.ctx.pick(CITIES), "role": role,
                                 "status": "suspended" if self.rng.random() < 0.04 and role == "member" else "active",
                                 "joined_at": _ts(joined)})
        u["_joined"] = joined
        self.users.append(u)
        return u

    def social_graph(self) -> None:
        ctx, rng = self.ctx, self.rng
        ids = [u["id"] for u in self.users]
        by_id = {u["id"]: u for u in self.users}
        self.by_id = by_id
        pairs = []
        for u in self.users:
            for v in ctx.sample([i for i in ids if i != u["id"]], rng.randint(2, 3)):
                a, b = min(u["id"], v), max(u["id"], v)
                if b not in self.friends[a]:
                    self.friends[a].add(b)
                    self.friends[b].add(a)
                    pairs.append((a, b))
        for a, b in sorted(pairs):
            since = self.ctx.between(max(by_id[a]["_joined"], by_id[b]["_joined"]), self.now - timedelta(days=2))
            self.t.add("friendships", {"user_a_id": a, "user_b_id": b, "since": _ts(since)})
            if ctx.chance(0.5):
                s, r = (a, b) if ctx.chance(0.5) else (b, a)
                self.t.add("friend_requests", {"sender_id": s, "receiver_id": r, "status": "accepted",
                                               "created_at": _ts(since - timedelta(hours=rng.randint(1, 72))), "responded_at": _ts(since)})
        # blocks between non-friends
        for _ in range(self.ctx.n(3, 30)):
            a, b = ctx.sample(ids, 2)
            if b in self.friends[a] or (a, b) in self.blocked or (b, a) in self.blocked:
                continue
            self.blocked.add((a, b))
            self.t.add("blocks", {"blocker_id": a, "blocked_id": b, "created_at": _ts(ctx.moment_ago(3, 90))})
        # follows
        for u in self.users:
            for v in ctx.sample([i for i in ids if i != u["id"]], rng.randint(2, 5)):
                if self.is_blocked(u["id"], v) or (u["id"], v) in self.follow_pairs:
                    continue
                self.follow_pairs.add((u["id"], v))
                self.t.add("follows", {"follower_id": u["id"], "followee_id": v,
                                       "created_at": _ts(self.ctx.between(max(u["_joined"], by_id[v]["_joined"]), self.now - timedelta(hours=3)))})
        # pending and declined requests
        for u in self.users:
            if u["status"] != "active":
                continue
            for s in ctx.sample([i for i in ids if i != u["id"]], rng.choices([0, 1, 2, 3], [30, 35, 25, 10])[0]):
                if not self.can_request(s, u["id"]):
                    continue
                pend = ctx.chance(0.8)
                created = ctx.moment_ago(0.2, 20)
                if pend:
                    self._pending_request(s, u["id"], created)
                self.t.add("friend_requests", {"sender_id": s, "receiver_id": u["id"], "status": "pending" if pend else "declined",
                                               "created_at": _ts(created),
                                               "responded_at": None if pend else _ts(self.ctx.between(created, self.now - timedelta(minutes=5)))})
        self._plant_pending()
        self._plant_mutual()

    def _pending_request(self, s: int, r: int, created: datetime) -> None:
        """Note a pending request from ``s`` to ``r`` and the notice ``r`` got of it (its row is added by the caller)."""
        self.pending.add((min(s, r), max(s, r)))
        self.t.add("notifications", {"user_id": r, "kind": "friend_request", "actor_id": s, "post_id": None,
                                     "group_id": None, "message": f"{self.by_id[s]['display_name']} sent you a friend request.",
                                     "is_read": int(self.ctx.chance(0.3)), "created_at": _ts(created)})

    def _plant_pending(self) -> None:
        """Make sure some active user with a unique display name has at least two pending incoming requests
        (the pending_friend_requests template needs one); planted only when chance left none."""
        ctx = self.ctx
        names: dict[str, int] = {}
        for u in self.users:
            names[u["display_name"]] = names.get(u["display_name"], 0) + 1
        incoming: dict[int, int] = {}
        sent: dict[int, int] = {}
        for r in self.t["friend_requests"]:
            if r["status"] == "pending":
                incoming[r["receiver_id"]] = incoming.get(r["receiver_id"], 0) + 1
                sent[r["sender_id"]] = sent.get(r["sender_id"], 0) + 1
        eligible = [u for u in self.users if u["status"] == "active" and names[u["display_name"]] == 1]
        if any(incoming.get(u["id"], 0) >= 2 for u in eligible):
            return
        ids = [u["id"] for u in self.users]
        # prefer someone who already has one pending request, then the lowest id
        for u in sorted(eligible, key=lambda u: (-incoming.get(u["id"], 0), u["id"])):
            need = 2 - incoming.get(u["id"], 0)
            senders = [s for s in ids if self.can_request(s, u["id"]) and sent.get(s, 0) < 20]
            if len(senders) < need:
                continue
            for s in ctx.sample(senders, need):
                created = ctx.moment_ago(0.2, 20)
                self._pending_request(s, u["id"], created)
                self.t.add("friend_requests", {"sender_id": s, "receiver_id": u["id"], "status": "pending",
                                               "created_at": _ts(created), "responded_at": None})
            return

    def _plant_mutual(self) -> None:
        """Make sure two people with unique display names, ids at most 12 apart, neither friends nor blocked, have
        2 to 8 mutual friends (the mutual_friends template needs such a pair, the first active); planted only when
        chance left none (it can in large worlds)."""
        ctx = self.ctx
        names: dict[str, int] = {}
        for u in self.users:
            names[u["display_name"]] = names.get(u["display_name"], 0) + 1
        uniq = [u["id"] for u in self.users if names[u["display_name"]] == 1]
        pairs = []
        for u in uniq:
            if self.by_id[u]["status"] != "active":
                continue
            for o in uniq:
                if o != u and abs(o - u) <= 12 and o not in self.friends[u] and not self.is_blocked(u, o):
                    k = len(self.friends[u] & self.friends[o])
                    if 2 <= k <= 8:
                        return
                    if k < 2:
                        pairs.append((-k, u, o))

        def free(a: int, b: int) -> bool:
            return b in self.friends[a] or not (self.is_blocked(a, b) or (min(a, b), max(a, b)) in self.pending)

        for negk, u, o in sorted(pairs):
            common = self.friends[u] & self.friends[o]
            cands = [m["id"] for m in self.users if m["id"] not in (u, o) and m["id"] not in common and m["status"] == "active"
                     and free(u, m["id"]) and free(o, m["id"])]
            if len(cands) < 2 + negk:
                continue
            for m in ctx.sample(cands, 2 + negk):
                for x in (u, o):
                    if m in self.friends[x]:
                        continue
                    a, b = min(x, m), max(x, m)
                    self.friends[a].add(b)
                    self.friends[b].add(a)
                    since = self.ctx.between(max(self.by_id[a]["_joined"], self.by_id[b]["_joined"]), self.now - timedelta(days=2))
                    self.t.add("friendships", {"user_a_id": a, "user_b_id": b, "since": _ts(since)})
            return

    def is_blocked(self, a: int, b: int) -> bool:
        return (a, b) in self.blocked or (b, a) in self.blocked

    def can_request(self, s: int, r: int) -> bool:
        if s == r or r in self.friends[s] or self.is_blocked(s, r) or (min(s, r), max(s, r)) in self.pending:
            return False
        if self.by_id[s]["status"] != "active":
            return False
        rule = self.rule[r]
        return rule == "everyone" or (rule == "friends_of_friends" and bool(self.friends[s] & self.friends[r]))

    # -- groups ------------------------------------------------------------------------------------
    def groups(self) -> None:
        ctx, rng = self.ctx, self.rng
        self.members: dict[int, dict[int, str]] = {}
        self.group_rows: list[Row] = []
        active = [u for u in self.users if u["status"] == "active"]
        n_groups = ctx.n(6, 60)
        for i in range(n_groups):
            name, desc = GROUPS[i % len(GROUPS)]
            if i >= len(GROUPS):
                name = f"{name} {CITIES[(i // len(GROUPS)) % len(CITIES)]}"
            owner = ctx.pick(active)
            if i == 0 and sum(1 for u in self.users if u["display_name"] == owner["display_name"]) > 1:
                # the first (closed) group's owner has a display name of their own (only namesake worlds re-pick)
                owner = ctx.pick([u for u in active if sum(1 for v in self.users if v["display_name"] == u["display_name"]) == 1])
            created = self.ctx.between(owner["_joined"], self.now - timedelta(days=60))
            g = self.t.add("groups", {"name": name, "description": desc, "privacy": "closed" if i % 2 == 0 or ctx.chance(0.3) else "open",
                                      "owner_id": owner["id"], "created_at": _ts(created)})
            self.group_rows.append(g)
            self.members[g["id"]] = {owner["id"]: "owner"}
            self.t.add("group_members", {"group_id": g["id"], "user_id": owner["id"], "role": "owner", "joined_at": _ts(created)})
            others = ctx.sample([u for u in self.users if u["id"] != owner["id"]], rng.randint(4, 9))
            for k, u in enumerate(others):
                role = "admin" if k < rng.randint(0, 2) else "member"
                self.members[g["id"]][u["id"]] = role
                self.t.add("group_members", {"group_id": g["id"], "user_id": u["id"], "role": role,
                                             "joined_at": _ts(self.ctx.between(max(created, u["_joined"]), self.now - timedelta(days=1)))})
            if i == n_groups - 1 and not any(self._admins_and_members(x["id"]) for x in self.group_rows):
                # chance gave no group an admin next to a plain member: the first member of the last group becomes one
                self.members[g["id"]][others[0]["id"]] = "admin"
                next(m for m in self.t["group_members"] if m["group_id"] == g["id"] and m["user_id"] == others[0]["id"])["role"] = "admin"
            if g["privacy"] == "closed":
                outsiders = [u for u in active if u["id"] not in self.members[g["id"]]]
                for u in ctx.sample(outsiders, rng.randint(1, 2)):
                    self.join_request(g, u, ctx.moment_ago(0.5, 15))
                for u in ctx.sample(outsiders, rng.randint(0, 1)):
                    when = ctx.moment_ago(20, 50)
                    admin = ctx.pick([x for x, r in self.members[g["id"]].items() if r in ("owner", "admin")])
                    if any(r["group_id"] == g["id"] and r["user_id"] == u["id"] for r in self.t["group_join_requests"]):
                        continue
                    self.t.add("group_join_requests", {"group_id": g["id"], "user_id": u["id"], "status": "rejected",
                                                       "created_at": _ts(when), "decided_by": admin,
                                                       "decided_at": _ts(when + timedelta(hours=rng.randint(1, 48)))})
        self._plant_join_request()

    def _plant_join_request(self) -> None:
        """Make sure a closed group whose owner (active, unique display name) has a plain member with a unique display
        name and fewer than 5 admins holds a pending join request from someone with a unique display name (the
        approve_join_request and promote_and_approve templates need one); planted only when chance left none."""
        ctx = self.ctx
        names: dict[str, int] = {}
        for u in self.users:
            names[u["display_name"]] = names.get(u["display_name"], 0) + 1

        def uniq(uid: int) -> bool:
            return names[self.by_id[uid]["display_name"]] == 1

        fit = []
        for g in self.group_rows:
            ms = self.members[g["id"]]
            if g["privacy"] != "closed" or self.by_id[g["owner_id"]]["status"] != "active" or not uniq(g["owner_id"]):
                continue
            if sum(1 for r in ms.values() if r == "admin") >= 5 or not any(r == "member" and uniq(x) for x, r in ms.items()):
                continue
            if any(r["group_id"] == g["id"] and r["status"] == "pending" and uniq(r["user_id"]) for r in self.t["group_join_requests"]):
                return
            fit.append(g)
        for g in fit:
            asked = {r["user_id"] for r in self.t["group_join_requests"] if r["group_id"] == g["id"]}
            outsiders = [u for u in self.users if u["status"] == "active" and uniq(u["id"]) and u["id"] not in self.members[g["id"]]
                         and u["id"] not in asked]
            if not outsiders:
                continue
            self.join_request(g, ctx.pick(outsiders), ctx.moment_ago(0.5, 15))
            return

    def join_request(self, g: Row, u: Row, when: datetime) -> None:
        """A pending request to join a closed group, and the notice each of its owner and admins got."""
        self.t.add("group_join_requests", {"group_id": g["id"], "user_id": u["id"], "status": "pending",
                                           "created_at": _ts(when), "decided_by": None, "decided_at": None})
        for uid, role in self.members[g["id"]].items():
            if role in ("owner", "admin"):
                self.t.add("notifications", {"user_id": uid, "kind": "group_request", "actor_id": u["id"], "post_id": None,
                                             "group_id": g["id"], "message": f"{u['display_name']} asked to join {g['name']}.",
                                             "is_read": 0, "created_at": _ts(when)})

    def _admins_and_members(self, gid: int) -> bool:
        """The group has an admin and a plain member who is active with a display name of their own (group_admins)."""
        ms = self.members[gid]
        return "admin" in ms.values() and any(
            r == "member" and self.by_id[x]["status"] == "active"
            and sum(1 for v in self.users if v["display_name"] == self.by_id[x]["display_name"]) == 1 for x, r in ms.items())

    # -- content -----------------------------------------------------------------------------------
    def body(self) -> str:
        for _ in range(200):
            b = f"{self.ctx.pick(OPENERS)} {self.ctx.pick(SUBJECTS)}.{self.ctx.pick(TAILS)}"
            if b not in self.bodies:
                self.bodies.add(b)
                return b
        b = f"{self.ctx.pick(OPENERS)} {self.ctx.pick(SUBJECTS)} ({self.rng.randint(2, 999)})."
        self.bodies.add(b)
        return b

    def viewers(self, p: Row) -> list[int]:
        a = p["author_id"]
        if p["group_id"]:
            g = next(x for x in self.group_rows if x["id"] == p["group_id"])
            pool = list(self.members[g["id"]]) if g["privacy"] == "closed" else [u["id"] for u in self.users]
        elif p["visibility"] == "friends":
            pool = sorted(self.friends[a])
        else:
            pool = [u["id"] for u in self.users]
        return [i for i in pool if i != a and not self.is_blocked(i, a) and self.by_id[i]["status"] == "active"]

    def content(self) -> None:
        ctx, rng = self.ctx, self.rng
        posts = []
        for u in self.users:
            for _ in range(rng.randint(2, 4)):
                vis = self.profile[u["id"]]["default_post_visibility"] if ctx.chance(0.8) else ctx.pick(["public", "friends"])
                posts.append({"author_id": u["id"], "group_id": None, "body": self.body(), "visibility": vis,
                              "_at": ctx.moment_ago(0.5, 60)})
        for g in self.group_rows:
            for _ in range(rng.randint(2, 4)):
                a = ctx.pick(sorted(self.members[g["id"]]))
                posts.append({"author_id": a, "group_id": g["id"], "body": self.body(), "visibility": "group",
                              "_at": ctx.moment_ago(0.5, 50)})
        if ctx.distractors:
            for p in ctx.sample(posts, max(3, len(posts) // 8)):
                twin = dict(p)
                twin["author_id"] = ctx.pick(self.users)["id"]
                twin["body"] = p["body"].rstrip(".!?") + "!!"
                if twin["body"] not in self.bodies:
                    self.bodies.add(twin["body"])
                    twin["_at"] = ctx.moment_ago(0.5, 60)
                    twin["group_id"], twin["visibility"] = None, "public"
                    posts.append(twin)
        posts.sort(key=lambda p: p["_at"])
        self.posts = []
        for p in posts:
            row = self.t.add("posts", {"author_id": p["author_id"], "group_id": p["group_id"], "body": p["body"],
                                       "visibility": p["visibility"], "status": "visible", "created_at": _ts(p["_at"]), "removed_at": None})
            row["_at"] = p["_at"]
            self.posts.append(row)
            seen = self.viewers(row)
            for v in ctx.sample(seen, rng.randint(0, min(5, len(seen)))):
                when = self.ctx.between(p["_at"], self.now - timedelta(minutes=5))
                self.t.add("reactions", {"post_id": row["id"], "user_id": v, "kind": ctx.pick(KINDS), "created_at": _ts(when)})
                if ctx.chance(0.3):
                    self.t.add("notifications", {"user_id": row["author_id"], "kind": "reaction", "actor_id": v, "post_id": row["id"],
                                                 "group_id": None, "message": f"{self.by_id[v]['display_name']} reacted to your post.",
                                                 "is_read": int(ctx.chance(0.6)), "created_at": _ts(when)})
            commenters = [v for v in seen if not row["group_id"] or v in self.members[row["group_id"]]]
            for v in ctx.sample(commenters, rng.randint(0, min(3, len(commenters)))):
                when = self.ctx.between(p["_at"], self.now - timedelta(minutes=5))
                self.t.add("comments", {"post_id": row["id"], "author_id": v, "body": ctx.pick(COMMENTS), "status": "visible",
                                        "created_at": _ts(when)})
                self.t.add("notifications", {"user_id": row["author_id"], "kind": "comment", "actor_id": v, "post_id": row["id"],
                                             "group_id": None, "message": f"{self.by_id[v]['display_name']} commented on your post.",
                                             "is_read": int(ctx.chance(0.6)), "created_at": _ts(when)})

    def messages(self) -> None:
        ctx, rng = self.ctx, self.rng
        pairs = sorted((a, b) for a in self.friends for b in self.friends[a] if a < b)
        for a, b in ctx.sample(pairs, max(3, len(pairs) // 3)):
            t = ctx.moment_ago(1, 30)
            for _ in range(rng.randint(1, 5)):
                s, r = (a, b) if ctx.chance(0.5) else (b, a)
                t = t + timedelta(minutes=rng.randint(2, 600))
                if t >= self.now:
                    break
                read = t < self.now - timedelta(hours=6) or ctx.chance(0.3)
                self.t.add("direct_messages", {"sender_id": s, "recipient_id": r, "body": ctx.pick(DMS), "sent_at": _ts(t),
                                               "read_at": _ts(self.ctx.between(t, self.now - timedelta(minutes=1))) if read else None})

    def reports(self) -> None:
        ctx, rng = self.ctx, self.rng
        mods = [u["id"] for u in self.users if u["role"] == "moderator"]
        reported = ctx.sample(self.posts, max(4, len(self.posts) // 10))
        for p in reported:
            seen = [v for v in self.viewers(p) if v not in mods or p["group_id"]]
            if not seen:
                continue
            status = ctx.weighted({"open": 50, "in_review": 15, "removed": 20, "kept": 15})
            if p["group_id"]:
                reviewers = [x for x, r in self.members[p["group_id"]].items() if r in ("owner", "admin")]
            else:
                reviewers = mods
            reporters = ctx.sample(seen, 1 if status != "open" else rng.randint(1, 2))
            reviewer = ctx.pick([r for r in reviewers if r not in reporters] or reviewers)
            if reviewer in reporters:
                status = "open"
            last = max([p["_at"]] + [datetime.fromisoformat(x["created_at"]) for x in self.t["comments"] + self.t["reactions"]
                                     if x["post_id"] == p["id"]])
            for rep in reporters:
                created = self.ctx.between(p["_at"], self.now - timedelta(hours=2))
                resolved = self.ctx.between(max(created, last), self.now - timedelta(minutes=30)) if status in ("removed", "kept") else None
                self.t.add("reports", {"reporter_id": rep, "post_id": p["id"], "comment_id": None,
                                       "reason": ctx.pick(["spam", "harassment", "misinformation", "other", "hate"]),
                                       "details": ctx.pick(["Looks like an ad.", "Rude to people in the comments.", "Misleading claim.",
                                                            "Off-topic.", ""]),
                                       "status": status, "reviewer_id": None if status == "open" else reviewer,
                                       "resolution_note": {"removed": "Violates the community rules.", "kept": "No rule broken."}.get(status),
                                       "created_at": _ts(created), "resolved_at": _ts(resolved) if resolved else None})
                if status == "removed":
                    p["status"], p["removed_at"] = "removed", _ts(resolved)
                    self.t.add("notifications", {"user_id": p["author_id"], "kind": "content_removed", "actor_id": None,
                                                 "post_id": p["id"], "group_id": None,
                                                 "message": "Your post was removed after a report.", "is_read": 0,
                                                 "created_at": _ts(resolved)})
        self._plant_open_report(mods)
        # a few comment reports, left open
        vis = [c for c in self.t["comments"] if not self.by_id[c["author_id"]]["role"] == "moderator"]
        for c in ctx.sample(vis, min(len(vis), ctx.n(2, 20))):
            p = self.t["posts"][c["post_id"] - 1]
            seen = [v for v in self.viewers(p) if v != c["author_id"] and not self.is_blocked(v, c["author_id"])]
            if not seen or p["status"] != "visible":
                continue
            self.t.add("reports", {"reporter_id": ctx.pick(seen), "post_id": None, "comment_id": c["id"], "reason": "harassment",
                                   "details": "Mean-spirited comment.", "status": "open", "reviewer_id": None, "resolution_note": None,
                                   "created_at": _ts(self.ctx.between(datetime.fromisoformat(c["created_at"]), self.now - timedelta(minutes=10))),
                                   "resolved_at": None})

    def _plant_open_report(self, mods: list[int]) -> None:
        """Make sure an open report on a visible post outside groups can be taken by a site moderator (active, unique
        display name, neither its reporter nor the post's author), as the moderate_report_remove template needs;
        planted on an unreported post only when chance left none."""
        ctx = self.ctx
        names: dict[str, int] = {}
        for u in self.users:
            names[u["display_name"]] = names.get(u["display_name"], 0) + 1
        able = [m for m in mods if self.by_id[m]["status"] == "active" and names[self.by_id[m]["display_name"]] == 1]
        if not able:
            return
        first_open: dict[int, Row] = {}
        for r in self.t["reports"]:
            if r["post_id"] is not None and r["status"] == "open" and r["post_id"] not in first_open:
                first_open[r["post_id"]] = r
        for pid, r in first_open.items():
            p = self.t["posts"][pid - 1]
            if p["group_id"] is None and p["status"] == "visible" and any(m not in (r["reporter_id"], p["author_id"]) for m in able):
                return
        reported = {r["post_id"] for r in self.t["reports"] if r["post_id"] is not None}
        for p in self.posts:
            if p["id"] in reported or p["group_id"] is not None or p["status"] != "visible":
                continue
            if not any(m != p["author_id"] for m in able):
                continue
            seen = [v for v in self.viewers(p) if v not in mods]
            if not seen:
                continue
            self.t.add("reports", {"reporter_id": ctx.pick(seen), "post_id": p["id"], "comment_id": None,
                                   "reason": ctx.pick(["spam", "harassment", "misinformation", "other", "hate"]),
                                   "details": ctx.pick(["Looks like an ad.", "Rude to people in the comments.", "Misleading claim.",
                                                        "Off-topic.", ""]),
                                   "status": "open", "reviewer_id": None, "resolution_note": None,
                                   "created_at": _ts(self.ctx.between(p["_at"], self.now - timedelta(hours=2))), "resolved_at": None})
            return

    def rows(self) -> dict[str, list[Row]]:
        return {k: [{c: v for c, v in r.items() if not c.startswith("_")} for r in rows] for k, rows in self.t.items()}


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = _World(ctx)
    w.people()
    w.social_graph()
    w.groups()
    w.content()
    w.messages()
    w.reports()
    return w.rows()
