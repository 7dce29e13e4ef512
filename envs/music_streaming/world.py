"""Randomized worlds of the music_streaming service.

``build(ctx)`` returns one service: a catalogue of artists, albums and tracks (some explicit, some blocked
in some regions), podcasts with episodes, users in five regions on free / premium / family plans (family
owners with members from their own region who are on the free plan), 30-day billing periods with paid
invoices, devices (offline only where the plan allows, within the plan's device limit) with downloads,
playlists (collaborative ones private, with collaborators), likes, follows, listening history, queues and
podcast progress.

Every track a user plays, likes, queues, downloads or adds is playable for that user (region and explicit
filter), as the tools require. Everything comes from ``ctx.rng`` / ``ctx.faker`` and ``ctx.clock``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _iso
from awm.worldgen import Tables, WorldContext

# fmt: off
REGIONS = {"US": 0.4, "GB": 0.2, "DE": 0.15, "BR": 0.15, "JP": 0.1}
PLANS = [("free", "Free", 0, 1, 0, 0), ("premium", "Premium", 1099, 1, 1, 3), ("family", "Family", 1799, 6, 1, 3)]
ADJ = ["Neon", "Velvet", "Silver", "Midnight", "Golden", "Electric", "Paper", "Wild", "Crimson", "Hollow", "Lunar",
       "Static", "Glass", "Northern", "Quiet", "Burning", "Blue", "Broken", "Summer", "Copper"]
NOUN = ["Harbor", "Echo", "Parade", "Signal", "Garden", "Highway", "Tide", "Lantern", "Canyon", "Mirror", "River",
        "Satellite", "Orchard", "Fever", "Skyline", "Daydream", "Horizon", "Machine", "Ocean", "Thunder"]
WORDS = ["Love", "Night", "Heart", "Fire", "Rain", "Dance", "Home", "Light", "Run", "Stay", "Gold", "Dream", "Wave",
         "Falling", "Stars", "Hold On", "Forever", "Alone", "Tonight", "Shadows", "Sunrise", "Electric", "Paper Planes",
         "Slow Motion", "Afterglow", "Wildfire", "Ghost", "Satellite", "Kaleidoscope", "Heartbeat"]
LABELS = ["Blue Room Records", "Northside Music", "Pulse Audio", "Harbor Lights", "Indigo Sound", "Redwood Records"]
PODCASTS = [("The Daily Signal", "Signal Media", "news"), ("Tech Unplugged", "Circuit FM", "technology"),
            ("History Hour", "Archive Audio", "history"), ("True Crime Files", "Dark Room", "true crime"),
            ("Mindful Minutes", "Calm Co", "health"), ("Startup Stories", "Founders Net", "business"),
            ("Football Weekly", "Pitchside", "sports"), ("Science Now", "Lab Notes", "science"),
            ("Comedy Bunker", "Laugh Track", "comedy"), ("Film Club", "Reel Talk", "film")]
DEVICE_NAMES = [("My phone", "phone"), ("Work laptop", "desktop"), ("iPad", "tablet"), ("Kitchen speaker", "speaker"),
                ("Home desktop", "desktop"), ("Car phone", "phone")]
PLAYLIST_NAMES = ["Morning Run", "Focus Mode", "Chill Evening", "Road Trip", "Party Mix", "Rainy Day", "Workout",
                  "Study Beats", "Sunday Brunch", "Throwbacks", "Late Night Drive", "Summer Vibes", "Deep Cuts",
                  "Dinner Party", "Gym Hits"]
# fmt: on


class _Service:
    def __init__(self, ctx: WorldContext):
        self.ctx, self.rng = ctx, ctx.rng
        self.now = ctx.clock.replace(microsecond=0)
        self.t = Tables([
            "artists", "albums", "tracks", "track_region_blocks", "plans", "users", "subscriptions", "family_members",
            "plan_changes", "invoices", "devices", "downloads", "playlists", "playlist_collaborators", "playlist_tracks",
            "likes", "follows", "podcasts", "episodes", "episode_progress", "listening_history", "queue_items"])

    def renumber(self, table: str) -> None:
        """Ids 1, 2, 3 ... again after rows were taken out of ``table``."""
        for k, r in enumerate(self.t[table]):
            r["id"] = k + 1

    def ago(self, lo: float, hi: float) -> datetime:
        return self.ctx.moment_ago(lo, hi)

    # ------------------------------------------------------------------------------------------
    def catalogue(self) -> None:
        ctx, rng = self.ctx, self.rng
        names: set[str] = set()
        for _ in range(ctx.n(14, 150)):
            if rng.random() < 0.5:
                name = ctx.unique(lambda: f"The {ADJ[rng.randrange(len(ADJ))]} {NOUN[rng.randrange(len(NOUN))]}s", names)
            else:
                name = ctx.unique(lambda: f"{ctx.faker.first_name()} {ctx.faker.last_name()}", names)
            self.t.add("artists", {"name": name, "country": ctx.weighted(REGIONS), "verified": int(rng.random() < 0.6)})
        isrcs: set[str] = set()
        for ar in self.t["artists"]:
            titles: set[str] = set()
            for _ in range(rng.choice([1, 1, 2, 2, 3])):
                kind = ctx.weighted({"album": 0.5, "ep": 0.25, "single": 0.25})
                title = ctx.unique(lambda: f"{ADJ[rng.randrange(len(ADJ))]} {NOUN[rng.randrange(len(NOUN))]}", titles)
                al = self.t.add("albums", {"artist_id": ar["id"], "title": title, "album_type": kind,
                                           "release_date": ctx.days_ago(20, 6000).isoformat(), "label": rng.choice(LABELS)})
                n = {"album": rng.randint(5, 8), "ep": rng.randint(3, 5), "single": rng.randint(1, 2)}[kind]
                used: set[str] = set()
                for k in range(n):
                    tt = ctx.unique(lambda: rng.choice(WORDS) if rng.random() < 0.6 else
                                    f"{rng.choice(WORDS)} {rng.choice(['Again', 'Tonight', 'Forever', 'Song', 'Away'])}",
                                    used) if k or kind != "single" else title
                    used.add(tt)
                    tr = self.t.add("tracks", {"album_id": al["id"], "title": tt, "track_number": k + 1,
                                               "duration_sec": rng.randint(125, 360), "explicit": int(rng.random() < 0.2),
                                               "isrc": ctx.unique(lambda: f"{ar['country']}{rng.choice(['ABC', 'XYZ', 'QRS'])}"
                                                                          f"{rng.randint(0, 9999999):07d}", isrcs)})
                    if rng.random() < 0.12:
                        for reg in ctx.sample(list(REGIONS), rng.choice([1, 1, 2])):
                            self.t.add("track_region_blocks", {"track_id": tr["id"], "region": reg})
        self.blocked: dict[int, list[str]] = {}
        for b in self.t["track_region_blocks"]:
            self.blocked.setdefault(b["track_id"], []).append(b["region"])
        self.artist_of = {}
        albums = {a["id"]: a for a in self.t["albums"]}
        for tr in self.t["tracks"]:
            self.artist_of[tr["id"]] = albums[tr["album_id"]]["artist_id"]
        for title, pub, cat in PODCASTS[: ctx.n(6, 10)]:
            p = self.t.add("podcasts", {"title": title, "publisher": pub, "category": cat})
            for k in range(rng.randint(3, ctx.n(6, 20))):
                self.t.add("episodes", {"podcast_id": p["id"], "title": f"Episode {k + 1}: {rng.choice(WORDS)} "
                                                                         f"{rng.choice(NOUN)}",
                                        "episode_number": k + 1, "duration_sec": rng.randint(900, 4200),
                                        "explicit": int(cat in ("true crime", "comedy") and rng.random() < 0.5),
                                        "published_at": _iso(self.ago(3 + (20 - k) * 7, 6 + (20 - k) * 7))})

    def playable(self, u: dict, track: dict) -> bool:
        return u["region"] not in self.blocked.get(track["id"], []) and (u["allow_explicit"] or not track["explicit"])

    def pick_tracks(self, u: dict, k: int) -> list[dict]:
        ok = [t for t in self.t["tracks"] if self.playable(u, t)]
        return self.ctx.sample(ok, k)

    # ------------------------------------------------------------------------------------------
    def users(self) -> None:
        ctx, rng = self.ctx, self.rng
        for code, name, price, mm, off, mod in PLANS:
            self.t.add("plans", {"code": code, "name": name, "monthly_price_cents": price, "max_members": mm,
                                 "offline_allowed": off, "max_offline_devices": mod})
        unames: set[str] = set()
        emails: set[str] = set()

        def user(display: str) -> dict:
            first = display.split(" ")[0].lower()
            uname = ctx.unique(lambda: f"{first}{rng.choice(['', '_', '.'])}{rng.choice(['beats', 'music', 'fan', 'x', ''])}"
                                       f"{rng.randint(1, 999)}", unames)
            email = ctx.unique(lambda: f"{uname.replace('_', '.')}@{rng.choice(['example.com', 'mail.test', 'example.org'])}",
                               emails)
            age = rng.randint(14, 60)
            u = self.t.add("users", {"username": uname, "email": email, "display_name": display,
                                     "region": ctx.weighted(REGIONS),
                                     "birth_date": (self.now.date() - timedelta(days=age * 365 + rng.randint(0, 300))).isoformat(),
                                     "allow_explicit": 0 if age < 18 or rng.random() < 0.08 else 1,
                                     "created_at": _iso(self.ago(60, 1500))})
            return u

        for _ in range(ctx.n(40, 460)):
            user(f"{ctx.faker.first_name()} {ctx.faker.last_name()}")
        if ctx.distractors:
            for u in ctx.sample(self.t["users"][:], max(4, len(self.t["users"]) // 8)):
                user(u["display_name"])
        # subscriptions
        for u in self.t["users"]:
            code = ctx.weighted({"free": 0.45, "premium": 0.4, "family": 0.15})
            plan = next(p for p in self.t["plans"] if p["code"] == code)
            start = (self.now - timedelta(days=rng.randint(0, 29))).replace(hour=0, minute=0, second=0)
            started = min(datetime.fromisoformat(u["created_at"]) + timedelta(days=rng.randint(0, 30)), start)
            s = self.t.add("subscriptions", {"user_id": u["id"], "plan_id": plan["id"],
                                             "status": "past_due" if code != "free" and rng.random() < 0.05 else "active",
                                             "started_at": _iso(started), "current_period_start": _iso(start),
                                             "current_period_end": _iso(start + timedelta(days=30))})
            u["_sub"], u["_plan"] = s, plan
            if code != "free":
                for k in (1, 0):
                    ps = start - timedelta(days=30 * k)
                    if ps < started:
                        continue
                    failed = k == 0 and s["status"] == "past_due"
                    self.t.add("invoices", {"subscription_id": s["id"], "kind": "subscription",
                                            "amount_cents": plan["monthly_price_cents"],
                                            "status": "failed" if failed else "paid", "period_start": ps.date().isoformat(),
                                            "period_end": (ps + timedelta(days=30)).date().isoformat(),
                                            "issued_at": _iso(ps + timedelta(hours=1))})
        # family members: free users of the owner's region
        taken: set[int] = set()
        single = 0  # plant family owners with exactly one member
        for u in self.t["users"]:
            if u["_plan"]["code"] != "family":
                continue
            cands = [m for m in self.t["users"] if m["_plan"]["code"] == "free" and m["region"] == u["region"]
                     and m["id"] not in taken]
            k = 1 if single < ctx.n(2, 8) else rng.randint(1, 4)
            single += 1
            for m in ctx.sample(cands, k):
                taken.add(m["id"])
                self.t.add("family_members", {"subscription_id": u["_sub"]["id"], "user_id": m["id"],
                                              "joined_at": _iso(self.ago(5, 200))})
                m["_family"] = u
        self.plant_plan_mix()
        # a few historic plan changes (upgrades from free), before the current period
        for u in ctx.sample([x for x in self.t["users"] if x["_plan"]["code"] != "free"], ctx.n(4, 40)):
            s = u["_sub"]
            when = datetime.fromisoformat(s["current_period_start"]) - timedelta(days=rng.randint(35, 80))
            if when <= datetime.fromisoformat(s["started_at"]):
                continue
            pr = round(u["_plan"]["monthly_price_cents"] * rng.randint(1, 29) / 30)
            self.t.add("plan_changes", {"subscription_id": s["id"], "from_plan_id": 1, "to_plan_id": u["_plan"]["id"],
                                        "proration_cents": pr, "changed_at": _iso(when)})
            self.t.add("invoices", {"subscription_id": s["id"], "kind": "proration", "amount_cents": pr, "status": "paid",
                                    "period_start": when.date().isoformat(),
                                    "period_end": (when + timedelta(days=rng.randint(1, 29))).date().isoformat(),
                                    "issued_at": _iso(when)})

    # -- planting (only where chance left a template without a candidate; no randomness) ----------
    def _members(self, owner: dict) -> list[dict]:
        return [r for r in self.t["family_members"] if r["subscription_id"] == owner["_sub"]["id"]]

    def _drop_member(self, row: dict) -> None:
        self.t["family_members"].remove(row)
        self.renumber("family_members")
        self.t["users"][row["user_id"] - 1].pop("_family", None)

    def _set_plan(self, u: dict, code: str) -> None:
        """Move a user (not in any family) to another plan, with the invoices that plan implies."""
        plan = next(p for p in self.t["plans"] if p["code"] == code)
        s = u["_sub"]
        s["plan_id"], u["_plan"] = plan["id"], plan
        if code == "free":
            s["status"] = "active"
            self.t["invoices"] = [r for r in self.t["invoices"] if r["subscription_id"] != s["id"]]
            self.renumber("invoices")
            return
        mine = [r for r in self.t["invoices"] if r["subscription_id"] == s["id"]]
        for r in mine:
            r["amount_cents"] = plan["monthly_price_cents"]
        if not mine:
            start = datetime.fromisoformat(s["current_period_start"])
            self.t.add("invoices", {"subscription_id": s["id"], "kind": "subscription",
                                    "amount_cents": plan["monthly_price_cents"], "status": "paid",
                                    "period_start": start.date().isoformat(),
                                    "period_end": (start + timedelta(days=30)).date().isoformat(),
                                    "issued_at": _iso(start + timedelta(hours=1))})

    def plant_plan_mix(self) -> None:
        """Every world has a family owner with exactly one member (family_down_to_premium) and a free user
        outside any family (upgrade_and_download). Chance can leave neither: family owners only in regions
        without free users, or families that took every free user."""
        users = self.t["users"]
        owners = [u for u in users if u["_plan"]["code"] == "family"]
        if not any(len(self._members(o)) == 1 for o in owners):
            big = [o for o in owners if len(self._members(o)) >= 2]
            if big:
                for row in self._members(big[0])[1:]:
                    self._drop_member(row)
            else:  # no family has a member
                if not owners:
                    owner = next((u for u in users if u["_plan"]["code"] == "premium"), users[0])
                    self._set_plan(owner, "family")
                    owners = [owner]
                owner = owners[0]
                free = [u for u in users if u["_plan"]["code"] == "free" and u is not owner]
                if free:
                    m = next((u for u in free if u["region"] == owner["region"]), free[0])
                else:  # everyone else pays (premium, or family owners without members)
                    m = next(u for u in users if u is not owner)
                    self._set_plan(m, "free")
                m["region"] = owner["region"]
                self.t.add("family_members", {"subscription_id": owner["_sub"]["id"], "user_id": m["id"],
                                              "joined_at": _iso(datetime.fromisoformat(owner["_sub"]["current_period_start"])
                                                                + timedelta(hours=2))})
                m["_family"] = owner
        if not any(u["_plan"]["code"] == "free" and not u.get("_family") for u in users):
            big = [o for o in owners if len(self._members(o)) >= 2]
            singles = [o for o in owners if len(self._members(o)) == 1]
            if big:
                self._drop_member(self._members(big[0])[-1])
            elif len(singles) >= 2:
                self._drop_member(self._members(singles[-1])[0])
            else:
                self._set_plan(next(u for u in users if u["_plan"]["code"] == "premium"
                                    or (u["_plan"]["code"] == "family" and not self._members(u))), "free")

    def eff_plan(self, u: dict) -> dict:
        return u["_family"]["_plan"] if u.get("_family") else u["_plan"]

    def devices(self) -> None:
        ctx, rng = self.ctx, self.rng
        for u in self.t["users"]:
            plan = self.eff_plan(u)
            offline_left = plan["max_offline_devices"] - rng.randint(0, 1) if plan["offline_allowed"] else 0
            for name, kind in ctx.sample(DEVICE_NAMES, rng.randint(1, 3)):
                off = int(offline_left > 0 and kind != "speaker")
                offline_left -= off
                d = self.t.add("devices", {"user_id": u["id"], "name": name, "device_type": kind, "offline_enabled": off,
                                           "registered_at": _iso(self.ago(10, 400))})
                if off:
                    for tr in self.pick_tracks(u, rng.randint(2, 6)):
                        self.t.add("downloads", {"device_id": d["id"], "track_id": tr["id"],
                                                 "downloaded_at": _iso(self.ago(0.5, 9))})

    def library(self) -> None:
        ctx, rng = self.ctx, self.rng
        users = self.t["users"]
        for u in users:
            for tr in self.pick_tracks(u, rng.randint(2, 6)):
                self.t.add("likes", {"user_id": u["id"], "track_id": tr["id"], "liked_at": _iso(self.ago(1, 300))})
            for a in ctx.sample(self.t["artists"], rng.randint(1, 3)):
                self.t.add("follows", {"follower_id": u["id"], "artist_id": a["id"], "followed_user_id": None,
                                       "followed_at": _iso(self.ago(1, 300))})
            for o in ctx.sample([x for x in users if x["id"] != u["id"]], rng.randint(0, 2)):
                self.t.add("follows", {"follower_id": u["id"], "artist_id": None, "followed_user_id": o["id"],
                                       "followed_at": _iso(self.ago(1, 300))})
            devs = [d for d in self.t["devices"] if d["user_id"] == u["id"]]
            fav = self.pick_tracks(u, 3)
            for _ in range(rng.randint(4, 10)):
                tr = fav[rng.randrange(len(fav))] if fav and rng.random() < 0.5 else self.pick_tracks(u, 1)[0]
                self.t.add("listening_history", {"user_id": u["id"], "track_id": tr["id"],
                                                 "device_id": devs[rng.randrange(len(devs))]["id"],
                                                 "played_at": _iso(self.ago(0.1, 14)),
                                                 "ms_played": rng.randint(20, tr["duration_sec"]) * 1000})
            if rng.random() < 0.3:
                for k, tr in enumerate(self.pick_tracks(u, rng.randint(1, 4))):
                    self.t.add("queue_items", {"user_id": u["id"], "track_id": tr["id"], "position": k + 1,
                                               "added_at": _iso(self.ago(0.01, 1))})
        # playlists
        for _ in range(ctx.n(30, 330)):
            o = users[rng.randrange(len(users))]
            mine = {p["name"] for p in self.t["playlists"] if p["owner_id"] == o["id"]}
            names = [n for n in PLAYLIST_NAMES if n not in mine]
            if not names:
                continue
            collab = rng.random() < 0.25
            p = self.t.add("playlists", {"owner_id": o["id"], "name": names[rng.randrange(len(names))],
                                         "description": "", "is_public": 0 if collab or rng.random() < 0.2 else 1,
                                         "is_collaborative": int(collab), "allow_duplicates": int(rng.random() < 0.1),
                                         "created_at": _iso(self.ago(20, 500))})
            adders = [o]
            if collab:
                for c in ctx.sample([x for x in users if x["id"] != o["id"]], rng.randint(1, 3)):
                    self.t.add("playlist_collaborators", {"playlist_id": p["id"], "user_id": c["id"],
                                                          "added_at": _iso(self.ago(10, 19))})
                    adders.append(c)
            seen: set[int] = set()
            pos = 0
            for _ in range(rng.randint(3, 10)):
                who = adders[rng.randrange(len(adders))]
                tr = self.pick_tracks(who, 1)
                if not tr or tr[0]["id"] in seen:
                    continue
                seen.add(tr[0]["id"])
                pos += 1
                self.t.add("playlist_tracks", {"playlist_id": p["id"], "track_id": tr[0]["id"], "position": pos,
                                               "added_by": who["id"], "added_at": _iso(self.ago(1, 9))})
        if self.t["playlists"] and not any(p["is_collaborative"] for p in self.t["playlists"]):
            # invite_collaborator_and_add needs a collaborative playlist: the owner turns the first one collaborative
            self.t["playlists"][0].update(is_public=0, is_collaborative=1)
        # podcast progress
        eps = self.t["episodes"]
        for u in ctx.sample(users, len(users) // 2):
            for e in ctx.sample(eps, rng.randint(1, 3)):
                if e["explicit"] and not u["allow_explicit"]:
                    continue
                pos = rng.randint(60, e["duration_sec"])
                self.t.add("episode_progress", {"user_id": u["id"], "episode_id": e["id"], "position_sec": pos,
                                                "completed": int(pos >= e["duration_sec"] - 30),
                                                "updated_at": _iso(self.ago(0.2, 30))})

    def tables(self) -> dict[str, list[dict[str, Any]]]:
        return {k: [{c: v for c, v in r.items() if not c.startswith("_")} for r in rows] for k, rows in self.t.items()}


def build(ctx: WorldContext) -> dict[str, list[dict[str, Any]]]:
    w = _Service(ctx)
    w.catalogue()
    w.users()
    w.devices()
    w.library()
    return w.tables()
