"""World builder for calendar: the shared calendars of Lumen's staff, rooms, meetings and time off.

``build(ctx)`` returns rows per table (parents first, explicit integer keys); randomness only from
``ctx.rng`` / ``ctx.faker``, time only from ``ctx.clock``. Invariants the tools rely on:

- everyone has one primary calendar; team calendars are shared with their team (read or write);
- meetings fall on weekdays between 08:30 and 16:00, never cross midnight; the hour from 16:00 is left
  free in every calendar (the templates plan new meetings there);
- nobody is invited on a day of their time off, and answers are consistent (responded_at exactly when
  answered, before the clock); cancelled events carry cancelled_at and their room bookings are released;
- active room bookings never overlap and never exceed the room's capacity (organiser + invitees who have
  not declined); closed rooms have no future bookings;
- weekly series are materialised one event per week; a cancelled occurrence has its series_exceptions row;
- notifications: an unread invitation for every open invitation to an upcoming meeting, cancellation
  notices for cancelled upcoming meetings.

With ``ctx.distractors``: namesake colleagues (same surname, similar first name) and meetings whose titles
repeat on other days or in other calendars.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, time, timedelta
from typing import Any

from awm.tooling import iso_seconds as _ts
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]
DOMAIN = "lumen.co"
DEPTS = {"Sales": ["Account Executive", "Sales Manager", "Sales Engineer"],
         "Engineering": ["Software Engineer", "Engineering Manager", "QA Engineer", "Site Reliability Engineer"],
         "Marketing": ["Marketing Manager", "Content Strategist", "Designer"],
         "Finance": ["Accountant", "Financial Analyst", "Controller"],
         "People": ["Recruiter", "HR Partner"],
         "Operations": ["Operations Manager", "Office Manager", "Analyst"]}
ROOM_NAMES = ["Aspen", "Birch", "Cedar", "Douglas", "Elm", "Fir", "Ginkgo", "Hazel", "Juniper", "Larch", "Maple",
              "Oak", "Pine", "Rowan", "Spruce", "Willow", "Yew", "Alder", "Beech", "Cypress"]
TOPICS = ["Budget review", "Pipeline review", "Design critique", "Sprint planning", "Quarterly planning",
          "Customer call prep", "Hiring debrief", "Roadmap sync", "Launch readiness", "Vendor demo", "Incident review",
          "Pricing workshop", "Onboarding session", "Contract review", "Brand refresh", "Board prep", "Data review",
          "Partner check-in", "Release go/no-go", "Offsite planning", "Forecast review", "Security review"]
PROJECTS = ["Atlas", "Beacon", "Comet", "Delta", "Echo", "Fjord", "Glacier", "Horizon", "Indigo", "Jetstream",
            "Keystone", "Lighthouse"]
SERIES = ["Weekly team sync", "Stand-up", "Pipeline huddle", "Design review", "Leadership sync", "Ops review",
          "Analytics office hours", "Hiring sync"]
COLORS = ["blue", "green", "red", "purple", "orange", "teal", "gray"]


def _slug(s: str) -> str:
    return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower())


class _World:
    def __init__(self, ctx: WorldContext):
        self.ctx, self.rng, self.fk = ctx, ctx.rng, ctx.faker
        self.tools = ctx.tools  # the notices the tools send, worded the same way
        self.now = ctx.clock
        self.t = Tables([
            "users", "working_hours", "calendars", "calendar_shares", "rooms", "event_series", "events",
            "series_exceptions", "attendees", "room_bookings", "reminders", "time_off", "notifications", "event_changes"])
        self.bookings: dict[int, list[tuple[str, str]]] = {}
        self.off: dict[int, list[tuple[str, str]]] = {}
        self.titles: set = set()

    # -- people, calendars, rooms ------------------------------------------------------------------
    def people(self) -> None:
        ctx, rng = self.ctx, self.rng
        names: set = set()
        mails: set = set()
        self.users: list[Row] = []
        n = ctx.n(14, 190)
        for i in range(n):
            name = ctx.unique(lambda: f"{self.fk.first_name()} {self.fk.last_name()}", names)
            self._user(name, mails, active=i < 2 or rng.random() > 0.06)
        if ctx.distractors:
            for base in list(self.users[: max(3, n // 4)]):
                last = base["full_name"].split(" ", 1)[1]
                twin = f"{self.fk.first_name()} {last}"
                if twin not in names:
                    names.add(twin)
                    self._user(twin, mails, active=True)
        self.active = [u for u in self.users if u["is_active"]]

    def _user(self, name: str, mails: set, active: bool) -> Row:
        first, last = name.split(" ", 1)
        base = f"{_slug(first)}.{_slug(last)}"
        addr, k = f"{base}@{DOMAIN}", 2
        while addr in mails:
            addr, k = f"{base}{k}@{DOMAIN}", k + 1
        mails.add(addr)
        dept = self.ctx.pick(list(DEPTS))
        u = self.t.add("users", {"email": addr, "full_name": name, "department": dept, "title": self.ctx.pick(DEPTS[dept]),
                                 "is_active": int(active), "created_at": _ts(self.ctx.moment_ago(120, 1200))})
        self.users.append(u)
        return u

    def settings(self) -> None:
        ctx, rng = self.ctx, self.rng
        self.primary: dict[int, Row] = {}
        for u in self.users:
            r = rng.random()
            start, end, days = ("09:00", "17:00", range(5)) if r < 0.6 else (("08:30", "17:00", range(5)) if r < 0.8 else
                                                                             ("09:00", "17:30", range(4)))
            for d in days:
                self.t.add("working_hours", {"user_id": u["id"], "weekday": d, "start_time": start, "end_time": end})
            self.primary[u["id"]] = self.t.add("calendars", {"owner_id": u["id"], "name": "Work", "color": ctx.pick(COLORS),
                                                             "is_primary": 1, "created_at": u["created_at"]})
            if ctx.chance(0.3):
                self.t.add("calendars", {"owner_id": u["id"], "name": "Personal", "color": ctx.pick(COLORS), "is_primary": 0,
                                         "created_at": u["created_at"]})
        # team calendars owned by one member of each department, shared with the others
        by_dept: dict[str, list[Row]] = {}
        for u in self.active:
            by_dept.setdefault(u["department"], []).append(u)
        for dept in DEPTS:
            members = by_dept.get(dept, [])
            if len(members) < 2:
                continue
            owner = members[0]
            cal = self.t.add("calendars", {"owner_id": owner["id"], "name": f"{dept} team", "color": ctx.pick(COLORS),
                                           "is_primary": 0, "created_at": _ts(ctx.moment_ago(100, 300))})
            for m in members[1:]:
                self.t.add("calendar_shares", {"calendar_id": cal["id"], "user_id": m["id"],
                                               "permission": "write" if ctx.chance(0.4) else "read",
                                               "shared_at": _ts(ctx.moment_ago(30, 99))})
        # a few personal shares (assistants, managers)
        for u in ctx.sample(self.active, max(2, len(self.active) // 5)):
            other = ctx.pick([x for x in self.active if x["id"] != u["id"]])
            if not any(s["calendar_id"] == self.primary[u["id"]]["id"] and s["user_id"] == other["id"]
                       for s in self.t["calendar_shares"]):
                self.t.add("calendar_shares", {"calendar_id": self.primary[u["id"]]["id"], "user_id": other["id"],
                                               "permission": ctx.pick(["read", "write"]), "shared_at": _ts(ctx.moment_ago(10, 90))})
        # rooms
        n = ctx.n(8, 60)
        self.rooms = []
        for i in range(n):
            base = ROOM_NAMES[i % len(ROOM_NAMES)]
            name = base if i < len(ROOM_NAMES) else f"{base} {i // len(ROOM_NAMES) + 1}"
            self.rooms.append(self.t.add("rooms", {"name": name, "building": "HQ" if i % 3 else "Annex", "floor": 1 + i % 4,
                                                   "capacity": ctx.pick([4, 4, 6, 6, 8, 10, 12, 16, 24]),
                                                   "has_video": int(ctx.chance(0.6)), "is_active": int(i != 3)}))
            self.bookings[self.rooms[-1]["id"]] = []
        # time off
        for u in self.users:
            self.off[u["id"]] = []
            if ctx.chance(0.3):
                s = ctx.today + timedelta(days=rng.randint(-25, 25))
                e = s + timedelta(days=rng.randint(0, 4))
                self.off[u["id"]].append((s.isoformat(), e.isoformat()))
                self.t.add("time_off", {"user_id": u["id"], "start_date": s.isoformat(), "end_date": e.isoformat(),
                                        "kind": ctx.pick(["vacation", "vacation", "conference", "personal", "sick"]),
                                        "note": "", "created_at": _ts(min(self.now - timedelta(hours=1),
                                                                        datetime.combine(s, time(8)) - timedelta(days=3)))})

    # -- events ------------------------------------------------------------------------------------
    def is_off(self, uid: int, day: str) -> bool:
        return any(a <= day <= b for a, b in self.off[uid])

    def room_for(self, people: int, s: str, e: str) -> Row | None:
        cands = [r for r in self.rooms if r["is_active"] and r["capacity"] >= people and
                 not any(b0 < e and b1 > s for b0, b1 in self.bookings[r["id"]])]
        if not cands:
            return None
        cands.sort(key=lambda r: (r["capacity"], r["id"]))
        return cands[self.rng.randrange(min(3, len(cands)))]

    def title(self) -> str:
        for _ in range(100):
            t = f"{self.ctx.pick(TOPICS)}: {self.ctx.pick(PROJECTS)}"
            if t not in self.titles:
                self.titles.add(t)
                return t
        return f"{self.ctx.pick(TOPICS)}: {self.ctx.pick(PROJECTS)} {self.rng.randint(2, 99)}"

    def answer(self, start: datetime, created: datetime) -> tuple[str, str | None]:
        past = start < self.now
        opts = {"accepted": 70, "declined": 12, "tentative": 10, "needs_action": 8} if past else \
            {"accepted": 40, "declined": 10, "tentative": 10, "needs_action": 40}
        resp = self.ctx.weighted(opts)
        if resp == "needs_action":
            return resp, None
        return resp, _ts(self.between(created, min(self.now, start)))

    def between(self, lo: datetime, hi: datetime) -> datetime:
        """A moment a minute or more after ``lo`` and (when there is room) before ``hi``."""
        return lo + timedelta(seconds=self.rng.randint(60, max(61, int((hi - lo).total_seconds()) - 60)))

    def meeting(self, org: Row, start: datetime, minutes: int, invitees: list[Row], series: Row | None = None,
                title: str | None = None, room: Row | None | bool = True, cancel: bool | None = None) -> Row:
        ctx = self.ctx
        end = start + timedelta(minutes=minutes)
        day = start.date().isoformat()
        created = min(start, self.now) - timedelta(days=self.rng.randint(2, 20), hours=self.rng.randint(0, 8))
        if series is not None:
            created = datetime.fromisoformat(series["created_at"])
        cancelled = (ctx.chance(0.07) if cancel is None else cancel)
        cancelled_at = None
        if cancelled:
            cancelled_at = self.between(created, min(self.now, start))
        ev = self.t.add("events", {
            "calendar_id": series["calendar_id"] if series else self.primary[org["id"]]["id"], "organizer_id": org["id"],
            "series_id": series["id"] if series else None, "occurrence_date": day if series else None,
            "title": title or self.title(), "description": "", "location": "", "start_at": _ts(start), "end_at": _ts(end),
            "status": "cancelled" if cancelled else "confirmed", "created_at": _ts(created),
            "updated_at": _ts(cancelled_at or created), "cancelled_at": _ts(cancelled_at) if cancelled_at else None})
        going = 1
        for u in invitees:
            resp, at = self.answer(start, created)
            if cancelled_at and at and at > _ts(cancelled_at):
                resp, at = "needs_action", None
            self.t.add("attendees", {"event_id": ev["id"], "user_id": u["id"], "response": resp,
                                     "is_optional": int(ctx.chance(0.1)), "responded_at": at})
            going += resp != "declined"
            if not cancelled and start > self.now and resp == "needs_action":
                self.t.add("notifications", {"user_id": u["id"], "event_id": ev["id"], "kind": "invited",
                                             "message": self.tools._invitation(org, ev["title"], ev["start_at"]),
                                             "is_read": 0, "created_at": _ts(created)})
            if cancelled and start > self.now:
                self.t.add("notifications", {"user_id": u["id"], "event_id": ev["id"], "kind": "cancelled",
                                             "message": self.tools._cancellation(org, ev["title"], ev["start_at"]),
                                             "is_read": int(ctx.chance(0.4)), "created_at": _ts(cancelled_at)})
        r = room if isinstance(room, dict) else (self.room_for(going, _ts(start), _ts(end)) if room and ctx.chance(0.55) else None)
        if r is not None:
            self.t.add("room_bookings", {"event_id": ev["id"], "room_id": r["id"], "start_at": _ts(start), "end_at": _ts(end),
                                         "status": "released" if cancelled else "active", "booked_at": _ts(created)})
            if not cancelled:
                self.bookings[r["id"]].append((_ts(start), _ts(end)))
            ev["location"] = r["name"]
        if cancelled:
            self.t.add("event_changes", {"event_id": ev["id"], "actor_id": org["id"], "field": "status",
                                         "old_value": "confirmed", "new_value": "cancelled", "changed_at": _ts(cancelled_at)})
        if not cancelled and start > self.now and ctx.chance(0.35):
            self.t.add("reminders", {"event_id": ev["id"], "user_id": org["id"], "minutes_before": ctx.pick([10, 15, 30]),
                                     "method": "popup"})
        return ev

    def slot(self, day: date) -> tuple[datetime, int]:
        minutes = self.ctx.pick([30, 30, 45, 60, 60, 90])
        latest = 16 * 60 - minutes
        start_min = self.rng.randrange(8 * 60 + 30, latest + 1, 15)
        return datetime.combine(day, time(start_min // 60, start_min % 60)), minutes

    def weekday_near(self, lo: int, hi: int) -> date:
        while True:
            d = self.ctx.today + timedelta(days=self.rng.randint(lo, hi))
            if d.weekday() < 5:
                return d

    def series(self) -> None:
        ctx, rng = self.ctx, self.rng
        for i in range(ctx.n(4, 40)):
            org = ctx.pick(self.active)
            members = [u for u in self.active if u["id"] != org["id"]]
            invitees = ctx.sample(members, rng.randint(2, 5))
            wd = rng.randrange(5)
            hh = ctx.pick(["09:30", "10:00", "11:00", "13:30", "14:00", "15:00"])
            dur = ctx.pick([30, 45, 60])
            first = ctx.today - timedelta(days=rng.randint(14, 35))
            first += timedelta(days=(wd - first.weekday()) % 7)
            until = ctx.today + timedelta(days=rng.randint(35, 63))
            title = ctx.pick(SERIES) + f" ({org['department']})"
            if title in self.titles:
                title = title.replace(")", f" {i + 1})")
            self.titles.add(title)
            created = datetime.combine(first, time(9)) - timedelta(days=rng.randint(3, 10))
            s = self.t.add("event_series", {"calendar_id": self.primary[org["id"]]["id"], "organizer_id": org["id"],
                                            "title": title, "weekday": wd, "start_time": hh, "duration_min": dur,
                                            "first_date": first.isoformat(), "until_date": until.isoformat(),
                                            "status": "active", "created_at": _ts(created)})
            days = []
            d = first
            while d <= until:
                days.append(d)
                d += timedelta(days=7)
            # a room free for every occurrence, if any
            starts = [datetime.combine(d, time(int(hh[:2]), int(hh[3:]))) for d in days]
            room = None
            for r in sorted(self.rooms, key=lambda r: (r["capacity"], r["id"])):
                if r["is_active"] and r["capacity"] >= len(invitees) + 1 and ctx.chance(0.7) and all(
                        not any(b0 < _ts(st + timedelta(minutes=dur)) and b1 > _ts(st) for b0, b1 in self.bookings[r["id"]])
                        for st in starts):
                    room = r
                    break
            future = [k for k, st in enumerate(starts) if st > self.now + timedelta(days=2)]
            cancel_k = ctx.pick(future) if future and ctx.chance(0.6) else None
            for k, st in enumerate(starts):
                who = [u for u in invitees if not self.is_off(u["id"], days[k].isoformat())]
                ev = self.meeting(org, st, dur, who, series=s, title=title, room=room if room else False, cancel=k == cancel_k)
                if k == cancel_k:
                    self.t.add("series_exceptions", {"series_id": s["id"], "occurrence_date": days[k].isoformat(),
                                                     "action": "cancelled", "event_id": ev["id"],
                                                     "created_at": ev["cancelled_at"]})

    def meetings(self) -> None:
        ctx, rng = self.ctx, self.rng
        for org in self.active:
            for _ in range(rng.randint(3, 5)):
                day = self.weekday_near(-21, 24)
                start, minutes = self.slot(day)
                others = [u for u in self.active if u["id"] != org["id"] and not self.is_off(u["id"], day.isoformat())]
                if self.is_off(org["id"], day.isoformat()) or not others:
                    continue
                self.meeting(org, start, minutes, ctx.sample(others, rng.choices([1, 2, 3, 4, 6], [30, 30, 20, 12, 8])[0]))

    def rows(self) -> dict[str, list[Row]]:
        self.t["events"].sort(key=lambda r: r["id"])
        return {k: [{c: v for c, v in r.items() if not c.startswith("_")} for r in rows] for k, rows in self.t.items()}


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = _World(ctx)
    w.people()
    w.settings()
    w.series()
    w.meetings()
    return w.rows()
