"""World builder for email: the mailboxes of Northpeak's staff and their outside correspondents.

``build(ctx)`` returns rows per table (parents first, explicit integer keys). Randomness comes only from
``ctx.rng`` / ``ctx.faker`` and time only from ``ctx.clock``. Invariants the tools rely on:

- every account has exactly one folder of each system kind (inbox, sent, drafts, archive, spam, trash)
  plus a few custom folders; every message sits in a folder of its own account;
- a message between two accounts exists once per mailbox, sharing message_ref and thread_id: the
  sender's copy in Sent (read), each recipient's copy placed by the recipient's filters at delivery
  (move / label / mark read / star) and possibly archived or trashed later; bcc only on the sender's
  copy and on the bcc recipient's own copy;
- drafts are read, unsent (sent_at NULL) and in Drafts; every message is dated before the clock;
- mail from an address an account has blocked is in that account's Spam, never its inbox;
- out-of-office replies that are on start today or later, so no automatic reply is owed yet;
- mailbox usage (messages + attachments) stays well under each quota.

Planted for the templates: unread inbox mail from colleagues and from outside senders, outside senders
with several inbox messages, contact groups with members and contacts outside them, drafts with
recipients, sent mail with several recipients, attachments in inboxes; and, where chance or namesakes left
none, one unread inbox message between two colleagues without namesakes (for reply_and_archive).

With ``ctx.distractors``: namesake colleagues (same surname, similar first name; or the same full name
with another address) and near-duplicate subjects ("... (follow-up)", "Re: ...") in other mailboxes.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from awm.tooling import iso_seconds as _ts
from awm.worldgen import Tables, WorldContext

Row = dict[str, Any]
DOMAIN = "northpeak.io"
DEPARTMENTS = ["Sales", "Finance", "Engineering", "Marketing", "People", "Operations", "Legal", "Support"]
CUSTOM_FOLDERS = ["Projects", "Receipts", "Travel", "Clients", "Hiring", "Newsletters", "Vendors", "Board",
                  "Conferences", "Training"]
LABELS = [("Urgent", "red"), ("Follow up", "orange"), ("Finance", "green"), ("Personal", "purple"),
          ("Waiting", "yellow"), ("Reference", "blue"), ("Team", "gray")]
GROUPS = ["Project Atlas", "Suppliers", "Leadership", "Key clients", "Book club", "Offsite crew", "Hiring panel",
          "Quarterly review"]
EXT_DOMAINS = [("Acme Supplies", "acmesupplies.com"), ("Brightlane", "brightlane.co"), ("Corvid Legal", "corvidlegal.com"),
               ("Delta Print", "deltaprint.net"), ("Evergreen Travel", "evergreentravel.com"),
               ("Fairway Consulting", "fairwayconsulting.com"), ("Granite Bank", "granitebank.com"),
               ("Harbor Logistics", "harborlogistics.io"), ("Ionic Media", "ionicmedia.co"),
               ("Juno Analytics", "junoanalytics.com"), (None, "gmail.com"), (None, "outlook.com")]
SPAMMERS = [("Prize Desk", "winner@lucky-prize.net"), ("Deal Blast", "deals@promo-blast.biz"),
            ("Crypto Gains", "alerts@crypto-gainz.xyz"), ("Pharma Direct", "offers@rx-direct.shop"),
            ("Account Team", "security@paypa1-verify.com"), ("SEO Experts", "rank@seo-boost.click")]
SPAM_SUBJECTS = ["You have won a $500 gift card", "Last chance: 90% off everything", "Verify your account now",
                 "Double your crypto in 24 hours", "Cheap meds, no prescription", "Get to page one of Google"]
TOPICS = ["Q1 budget review", "Vendor contract renewal", "Offsite agenda", "Hiring plan for Q2", "Board deck draft",
          "Customer escalation", "Security training reminder", "Office move logistics", "Sales pipeline update",
          "Release notes", "Expense report", "Travel booking", "Invoice", "Purchase order", "Quarterly OKRs",
          "Website refresh", "Conference sponsorship", "Partner onboarding", "Price list update", "Audit preparation",
          "Team lunch", "Product roadmap", "Support backlog", "Contract redlines", "Press release review",
          "Payroll question", "Laptop refresh", "Recruiting pipeline", "Newsletter draft", "Renewal quote"]
QUALIFIERS = ["Atlas", "Beacon", "Cedar", "Dune", "Ember", "Falcon", "Granite", "Harbor", "Iris", "Juniper",
              "Kestrel", "Lumen", "Maple", "Nova", "Orchid", "Pioneer"]
BODY_LINES = ["Could you take a look when you have a minute?", "Please find the details below.",
              "Let me know if anything is missing.", "I have attached the latest version.",
              "Can we discuss this at Thursday's meeting?", "Thanks for the quick turnaround.",
              "The numbers are final unless someone objects.", "We need a decision by Friday.",
              "Happy to jump on a call if easier.", "Looping in the team for visibility."]
ATTACH = [("pdf", "application/pdf"), ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
          ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
          ("png", "image/png"), ("pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
          ("csv", "text/csv")]
QUOTAS = [1073741824, 2147483648, 5368709120]


def _slug(s: str) -> str:
    s = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z]", "", s)


class _World:
    def __init__(self, ctx: WorldContext):
        self.ctx, self.rng, self.fk = ctx, ctx.rng, ctx.faker
        self.size = ctx.tools._text_size  # a message's size as the tools count it against the quota
        self.t = Tables([
            "accounts", "folders", "threads", "messages", "message_recipients", "attachments", "labels",
            "message_labels", "filters", "contacts", "contact_groups", "contact_group_members", "signatures",
            "vacation_responders", "vacation_replies", "blocked_senders"])
        self.folders: dict[int, dict[str, Row]] = {}  # account -> kind/name -> folder
        self.custom: dict[int, list[Row]] = {}
        self.labels: dict[int, list[Row]] = {}
        self.filters: dict[int, list[Row]] = {}
        self.blocked: dict[int, set] = {}
        self.refs = 0
        self.subjects: set = set()

    # -- people ----------------------------------------------------------------------------------
    def people(self) -> None:
        ctx, rng = self.ctx, self.rng
        n = ctx.n(9, 116)
        seen_names: set = set()
        seen_mail: set = set()
        self.accounts: list[Row] = []
        for _ in range(n):
            name = ctx.unique(lambda: f"{self.fk.first_name()} {self.fk.last_name()}", seen_names)
            self._account(name, seen_mail)
        if ctx.distractors:
            for base in list(self.accounts[: max(2, n // 4)]):
                first, last = base["display_name"].split(" ", 1)
                if ctx.chance(0.5):
                    twin = f"{self.fk.first_name()} {last}"
                    if twin in seen_names:
                        continue
                    seen_names.add(twin)
                else:
                    twin = base["display_name"]
                self._account(twin, seen_mail)
        self.externals: list[Row] = []
        ext_names: set = set(seen_names)
        for _ in range(ctx.n(14, 180)):
            name = ctx.unique(lambda: f"{self.fk.first_name()} {self.fk.last_name()}", ext_names)
            company, dom = ctx.pick(EXT_DOMAINS)
            first, last = name.split(" ", 1)
            addr = f"{_slug(first)}.{_slug(last)}@{dom}" if company else f"{_slug(first)}{_slug(last)}{rng.randint(1, 99)}@{dom}"
            if addr in seen_mail:
                continue
            seen_mail.add(addr)
            self.externals.append({"name": name, "email": addr, "company": company})

    def _account(self, name: str, seen_mail: set) -> Row:
        first, last = name.split(" ", 1)
        base = f"{_slug(first)}.{_slug(last)}"
        addr, k = f"{base}@{DOMAIN}", 2
        while addr in seen_mail:
            addr, k = f"{base}{k}@{DOMAIN}", k + 1
        seen_mail.add(addr)
        created = self.ctx.moment_ago(200, 1500)
        a = self.t.add("accounts", {"email": addr, "display_name": name, "department": self.ctx.pick(DEPARTMENTS),
                                    "quota_bytes": self.ctx.pick(QUOTAS), "status": "active", "created_at": _ts(created)})
        a["_created"] = created
        self.accounts.append(a)
        return a

    # -- per-account settings ------------------------------------------------------------------------
    def settings(self) -> None:
        ctx, rng = self.ctx, self.rng
        today = ctx.today
        for a in self.accounts:
            aid, made = a["id"], a["_created"]
            self.folders[aid] = {}
            for kind in ("inbox", "sent", "drafts", "archive", "spam", "trash"):
                f = self.t.add("folders", {"account_id": aid, "name": kind.capitalize() if kind != "inbox" else "Inbox",
                                           "kind": kind, "created_at": _ts(made)})
                self.folders[aid][kind] = f
            self.custom[aid] = []
            for name in ctx.sample(CUSTOM_FOLDERS, rng.randint(1, 3)):
                f = self.t.add("folders", {"account_id": aid, "name": name, "kind": "custom",
                                           "created_at": _ts(made + timedelta(days=rng.randint(1, 100)))})
                self.custom[aid].append(f)
            self.labels[aid] = []
            for name, color in ctx.sample(LABELS, rng.randint(2, 4)):
                self.labels[aid].append(self.t.add("labels", {"account_id": aid, "name": name, "color": color,
                                                              "created_at": _ts(made + timedelta(days=rng.randint(1, 100)))}))
            first = a["display_name"].split(" ")[0]
            sigs = [("Work", f"{a['display_name']}\n{a['department']} | Northpeak\n{a['email']}"),
                    ("Short", f"Best,\n{first}")]
            n_sig = rng.randint(1, 2)
            default = rng.randrange(n_sig)
            for i, (sn, sb) in enumerate(sigs[:n_sig]):
                self.t.add("signatures", {"account_id": aid, "name": sn, "body": sb, "is_default": int(i == default)})
            # contacts: colleagues and outside people
            others = [x for x in self.accounts if x["id"] != aid]
            picks = ctx.sample(others, rng.randint(2, 4)) + ctx.sample(self.externals, rng.randint(3, 6))
            contacts = []
            for p in picks:
                is_acct = "display_name" in p
                contacts.append(self.t.add("contacts", {
                    "account_id": aid, "name": p["display_name"] if is_acct else p["name"], "email": p["email"],
                    "phone": self.fk.numerify("+1-###-###-####") if ctx.chance(0.5) else None,
                    "company": "Northpeak" if is_acct else p["company"],
                    "created_at": _ts(made + timedelta(days=rng.randint(1, 150)))}))
            a["_contacts"] = contacts
            for gname in ctx.sample(GROUPS, rng.randint(1, 2)):
                g = self.t.add("contact_groups", {"account_id": aid, "name": gname,
                                                  "created_at": _ts(made + timedelta(days=rng.randint(150, 180)))})
                members = ctx.sample(contacts, rng.randint(2, min(4, len(contacts) - 1)))
                for c in members:
                    self.t.add("contact_group_members", {"group_id": g["id"], "contact_id": c["id"],
                                                         "added_at": _ts(made + timedelta(days=rng.randint(181, 199)))})
            # blocked spammers
            self.blocked[aid] = set()
            for _, addr in ctx.sample(SPAMMERS, rng.randint(0, 2)):
                self.blocked[aid].add(addr)
                self.t.add("blocked_senders", {"account_id": aid, "address": addr,
                                               "blocked_at": _ts(ctx.moment_ago(30, 120))})
            # filters
            self.filters[aid] = []
            if ctx.chance(0.6) and self.custom[aid]:
                comp, dom = ctx.pick([d for d in EXT_DOMAINS if d[0]])
                self.filters[aid].append(self.t.add("filters", {
                    "account_id": aid, "name": f"{comp} mail", "match_field": "from", "match_value": "@" + dom,
                    "action": "move", "folder_id": ctx.pick(self.custom[aid])["id"], "label_id": None,
                    "is_active": 1, "created_at": _ts(made + timedelta(days=2))}))
            if ctx.chance(0.5):
                lab = ctx.pick(self.labels[aid])
                word = ctx.pick(["invoice", "budget", "offsite", "release"])
                self.filters[aid].append(self.t.add("filters", {
                    "account_id": aid, "name": f"Tag {word}", "match_field": "subject", "match_value": word,
                    "action": "label", "folder_id": None, "label_id": lab["id"], "is_active": int(ctx.chance(0.8)),
                    "created_at": _ts(made + timedelta(days=3))}))
            # out of office
            r = rng.random()
            if r < 0.25:
                s = today - timedelta(days=rng.randint(20, 90))
                self.t.add("vacation_responders", {
                    "account_id": aid, "is_enabled": 0, "start_date": s.isoformat(),
                    "end_date": (s + timedelta(days=rng.randint(3, 14))).isoformat(), "subject": "Out of office",
                    "body": f"I am away with limited access to e-mail. For urgent matters contact {a['department'].lower()}@{DOMAIN}.",
                    "updated_at": _ts(ctx.moment_ago(95, 150))})
            elif r < 0.35:
                s = today + timedelta(days=rng.randint(0, 10))
                self.t.add("vacation_responders", {
                    "account_id": aid, "is_enabled": 1, "start_date": s.isoformat(),
                    "end_date": (s + timedelta(days=rng.randint(4, 12))).isoformat(),
                    "subject": f"Away until {(s + timedelta(days=13)).strftime('%d %B')}",
                    "body": "Thanks for your message. I am on leave and will reply when I am back.",
                    "updated_at": _ts(ctx.moment_ago(1, 5))})

    # -- mail --------------------------------------------------------------------------------------
    def subject(self) -> str:
        for _ in range(200):
            s = f"{self.ctx.pick(TOPICS)} - {self.ctx.pick(QUALIFIERS)}"
            if self.ctx.chance(0.4):
                s += f" {self.ctx.pick(['March', 'April', 'Q2', 'draft 2', 'final', 'week 11', 'week 12'])}"
            if s not in self.subjects:
                self.subjects.add(s)
                return s
        raise RuntimeError("subjects exhausted")

    def body(self, to_name: str, sender_first: str) -> str:
        lines = self.ctx.sample(BODY_LINES, self.rng.randint(2, 4))
        return f"Hi {to_name.split(' ')[0]},\n\n" + " ".join(lines) + f"\n\nThanks,\n{sender_first}"

    def ref(self, who: int) -> str:
        self.refs += 1
        return f"<m{self.refs}.{who}@mail.northpeak.io>"

    def make_attachments(self, subject: str) -> list[Row]:
        out = []
        for _ in range(self.rng.choices([0, 1, 2], weights=[60, 30, 10])[0]):
            ext, mime = self.ctx.pick(ATTACH)
            stem = re.sub(r"[^A-Za-z0-9]+", "_", subject.split(" - ")[0]).strip("_")
            fname = f"{stem}_{self.rng.randint(1, 999):03d}.{ext}"
            out.append({"filename": fname, "mime_type": mime, "size_bytes": self.rng.randint(20_000, 6_000_000)})
        return out

    def store(self, account: Row, folder: Row, thread: Row, ref: str, reply_to: str | None, sender: dict,
              subject: str, body: str, to: list[dict], cc: list[dict], bcc: list[dict], when: datetime, *,
              received: bool, is_read: int, starred: int = 0, atts: list[Row] = (), labels: list[int] = (),
              draft: bool = False) -> Row:
        m = self.t.add("messages", {
            "account_id": account["id"], "folder_id": folder["id"], "thread_id": thread["id"], "message_ref": ref,
            "in_reply_to": reply_to, "from_address": sender["email"], "from_name": sender["name"],
            "subject": subject, "body": body, "is_draft": int(draft), "is_read": 1 if draft else is_read,
            "is_starred": starred, "size_bytes": self.size(subject, body), "sent_at": None if draft else _ts(when),
            "received_at": _ts(when) if received else None, "updated_at": _ts(when)})
        for kind, lst in (("to", to), ("cc", cc), ("bcc", bcc)):
            for p in lst:
                self.t.add("message_recipients", {"message_id": m["id"], "kind": kind, "address": p["email"],
                                                  "name": p["name"]})
        for x in atts:
            self.t.add("attachments", {"message_id": m["id"], **x})
        for lid in labels:
            self.t.add("message_labels", {"message_id": m["id"], "label_id": lid})
        return m

    def thread(self, subject: str, when: datetime) -> Row:
        return self.t.add("threads", {"subject": subject, "started_at": _ts(when)})

    def person(self, a: Row) -> dict:
        return {"email": a["email"], "name": a["display_name"]}

    def deliver(self, rcpt: Row, sender: dict, thread: Row, ref: str, reply_to: str | None, subject: str, body: str,
                to: list[dict], cc: list[dict], bcc_self: bool, when: datetime, atts: list[Row],
                internal: bool) -> Row:
        """Place a received copy the way the service would have, then maybe as the user tidied up later."""
        rng, aid = self.rng, rcpt["id"]
        age = (self.ctx.clock - when).days
        folder = self.folders[aid]["inbox"]
        is_read = int(rng.random() < (0.35 if age < 4 else 0.85))
        starred, labels = int(rng.random() < 0.1), []
        blocked = sender["email"] in self.blocked[aid]
        if blocked:
            folder = self.folders[aid]["spam"]
        elif internal:
            for f in self.filters[aid]:
                if not f["is_active"]:
                    continue
                hay = sender["email"] if f["match_field"] == "from" else subject
                if f["match_value"].lower() not in hay.lower():
                    continue
                if f["action"] == "move":
                    folder = next(x for x in self.custom[aid] if x["id"] == f["folder_id"])
                elif f["action"] == "label":
                    labels.append(f["label_id"])
        if folder["kind"] == "inbox":
            r = rng.random()
            if age > 10 and r < 0.3:
                folder = self.folders[aid]["archive"]
            elif age > 5 and 0.3 <= r < 0.4 and self.custom[aid]:
                folder = self.ctx.pick(self.custom[aid])
            elif 0.4 <= r < 0.5 and is_read:
                folder = self.folders[aid]["trash"]
        if not labels and not blocked and rng.random() < 0.2:
            labels = [self.ctx.pick(self.labels[aid])["id"]]
        bcc = [self.person(rcpt)] if bcc_self else []
        return self.store(rcpt, folder, thread, ref, reply_to, sender, subject, body, to, cc, bcc, when,
                          received=True, is_read=is_read, starred=starred, atts=atts, labels=list(dict.fromkeys(labels)))

    def internal_mail(self, sender: Row, when: datetime, thread: Row | None = None, reply_to: Row | None = None) -> Row:
        ctx, rng = self.ctx, self.rng
        others = [x for x in self.accounts if x["id"] != sender["id"]]
        if reply_to is not None:
            to = [reply_to["_from"]]
            cc = [p for p in reply_to["_cc"] if p["email"] != sender["email"]]
            subject = "Re: " + reply_to["_subject"]
        else:
            to = [self.person(x) for x in ctx.sample(others, rng.choices([1, 2, 3], weights=[55, 30, 15])[0])]
            cc = [self.person(x) for x in ctx.sample([o for o in others if self.person(o) not in to], rng.randint(0, 1))]
            if ctx.chance(0.15):
                e = ctx.pick(self.externals)
                cc.append({"email": e["email"], "name": e["name"]})
            subject = self.subject()
        bcc = []
        if reply_to is None and ctx.chance(0.1):
            cand = [o for o in others if self.person(o) not in to and self.person(o) not in cc]
            if cand:
                bcc = [self.person(ctx.pick(cand))]
        if thread is None:
            thread = self.thread(subject, when)
        sp = self.person(sender)
        body = self.body(to[0]["name"], sender["display_name"].split(" ")[0])
        atts = self.make_attachments(subject) if reply_to is None else []
        ref = self.ref(sender["id"])
        parent = reply_to["_ref"] if reply_to else None
        self.store(sender, self.folders[sender["id"]]["sent"], thread, ref, parent, sp, subject, body, to, cc, bcc,
                   when, received=False, is_read=1, atts=atts)
        by_mail = {a["email"]: a for a in self.accounts}
        for p in to + cc + bcc:
            r = by_mail.get(p["email"])
            if r is not None:
                self.deliver(r, sp, thread, ref, parent, subject, body, to, cc, p in bcc, when, atts, True)
        return {"_from": sp, "_cc": [p for p in to + cc if p["email"] != sp["email"]], "_subject": subject.removeprefix("Re: "),
                "_ref": ref, "_thread": thread}

    def external_in(self, rcpt: Row, when: datetime, ext: dict | None = None) -> None:
        ctx = self.ctx
        e = ext or ctx.pick(self.externals)
        sp = {"email": e["email"], "name": e["name"]}
        subject = self.subject()
        thread = self.thread(subject, when)
        body = self.body(rcpt["display_name"], e["name"].split(" ")[0])
        self.deliver(rcpt, sp, thread, self.ref(0), None, subject, body, [self.person(rcpt)], [], False, when,
                     self.make_attachments(subject), False)

    def external_out(self, sender: Row, when: datetime) -> None:
        e = self.ctx.pick(self.externals)
        subject = self.subject()
        thread = self.thread(subject, when)
        to = [{"email": e["email"], "name": e["name"]}]
        self.store(sender, self.folders[sender["id"]]["sent"], thread, self.ref(sender["id"]), None,
                   self.person(sender), subject, self.body(e["name"], sender["display_name"].split(" ")[0]), to, [], [],
                   when, received=False, is_read=1, atts=self.make_attachments(subject))

    def spam_in(self, rcpt: Row, when: datetime) -> None:
        i = self.rng.randrange(len(SPAMMERS))
        name, addr = SPAMMERS[i]
        subject = SPAM_SUBJECTS[i]
        thread = self.thread(subject, when)
        self.store(rcpt, self.folders[rcpt["id"]]["spam"], thread, self.ref(0), None, {"email": addr, "name": name},
                   subject, "Click the link below to claim your reward before it expires.", [self.person(rcpt)], [], [],
                   when, received=True, is_read=int(self.ctx.chance(0.3)))

    def draft(self, a: Row, when: datetime) -> None:
        ctx, rng = self.ctx, self.rng
        subject = self.subject()
        others = [self.person(x) for x in self.accounts if x["id"] != a["id"]]
        pool = others + [{"email": e["email"], "name": e["name"]} for e in ctx.sample(self.externals, 4)]
        to = ctx.sample(pool, rng.randint(1, 2))
        thread = self.thread(subject, when)
        self.store(a, self.folders[a["id"]]["drafts"], thread, self.ref(a["id"]), None, self.person(a), subject,
                   self.body(to[0]["name"], a["display_name"].split(" ")[0]), to, [], [], when, received=False,
                   is_read=1, draft=True)

    def mail(self) -> None:
        ctx, rng = self.ctx, self.rng
        events: list[tuple[datetime, str, Row]] = []
        for a in self.accounts:
            for _ in range(rng.randint(2, 4)):
                events.append((ctx.moment_ago(1, 60), "internal", a))
            for _ in range(rng.randint(1, 3)):
                events.append((ctx.moment_ago(1, 60), "ext_in", a))
            for _ in range(rng.randint(0, 2)):
                events.append((ctx.moment_ago(1, 60), "ext_out", a))
            for _ in range(rng.randint(0, 2)):
                events.append((ctx.moment_ago(1, 40), "spam", a))
            events.append((ctx.moment_ago(1, 20), "draft", a))
        events.sort(key=lambda e: (e[0], e[2]["id"], e[1]))
        for when, kind, a in events:
            if kind == "internal":
                first = self.internal_mail(a, when)
                if ctx.chance(0.35):
                    by_mail = {x["email"]: x for x in self.accounts}
                    replier = by_mail.get(first["_cc"][0]["email"]) if first["_cc"] else None
                    later = when + timedelta(hours=rng.randint(1, 30))
                    if replier is not None and later < ctx.clock - timedelta(hours=2):
                        self.internal_mail(replier, later, thread=first["_thread"], reply_to=first)
            elif kind == "ext_in":
                self.external_in(a, when)
            elif kind == "ext_out":
                self.external_out(a, when)
            elif kind == "spam":
                self.spam_in(a, when)
            else:
                self.draft(a, when)
        # planted: one outside sender with several unread inbox messages per mailbox, newest days
        for a in self.accounts:
            e = ctx.pick(self.externals)
            for k in range(rng.randint(2, 3)):
                self.external_in_planted(a, e, ctx.moment_ago(1 + k, 3 + k))

    def external_in_planted(self, rcpt: Row, e: dict, when: datetime) -> None:
        sp = {"email": e["email"], "name": e["name"]}
        subject = self.subject()
        thread = self.thread(subject, when)
        body = self.body(rcpt["display_name"], e["name"].split(" ")[0])
        folder = self.folders[rcpt["id"]]["spam" if e["email"] in self.blocked[rcpt["id"]] else "inbox"]
        self.store(rcpt, folder, thread, self.ref(0), None, sp, subject, body, [self.person(rcpt)], [], [], when,
                   received=True, is_read=int(self.ctx.chance(0.3)), atts=self.make_attachments(subject))

    def name_counts(self) -> dict[str, int]:
        """How many accounts bear each display name (more than one: namesakes)."""
        names: dict[str, int] = {}
        for a in self.accounts:
            names[a["display_name"]] = names.get(a["display_name"], 0) + 1
        return names

    def _reply_candidate_exists(self) -> bool:
        """Mirrors reply_and_archive's slots query: an unread inbox message from an active colleague, where
        neither the mailbox owner nor the colleague has a namesake and the subject is unique in the mailbox."""
        names = self.name_counts()
        by_mail = {a["email"]: a for a in self.accounts}
        kind = {f["id"]: f["kind"] for f in self.t["folders"]}
        per_box: dict[tuple[int, str], int] = {}
        for m in self.t["messages"]:
            k = (m["account_id"], m["subject"])
            per_box[k] = per_box.get(k, 0) + 1
        owner = {a["id"]: a for a in self.accounts}
        for m in self.t["messages"]:
            s = by_mail.get(m["from_address"])
            a = owner[m["account_id"]]
            if (s is not None and kind[m["folder_id"]] == "inbox" and not m["is_read"] and s["status"] == "active"
                    and names[a["display_name"]] == 1 and names[s["display_name"]] == 1
                    and per_box[(m["account_id"], m["subject"])] == 1):
                return True
        return False

    def ensure_reply_candidate(self) -> None:
        """Planted only when chance (or namesakes) left no unread inbox mail between two unambiguous colleagues:
        one fresh internal message, sender's copy in Sent, the recipient's unread in the inbox."""
        if self._reply_candidate_exists():
            return
        ctx = self.ctx
        names = self.name_counts()
        unique = [a for a in self.accounts if names[a["display_name"]] == 1 and a["status"] == "active"]
        if len(unique) < 2:
            return
        rcpt = ctx.pick(unique)
        sender = ctx.pick([a for a in unique if a["id"] != rcpt["id"]])
        when = ctx.moment_ago(1, 2)
        subject = self.subject()
        thread = self.thread(subject, when)
        sp, to = self.person(sender), [self.person(rcpt)]
        body = self.body(rcpt["display_name"], sender["display_name"].split(" ")[0])
        ref = self.ref(sender["id"])
        self.store(sender, self.folders[sender["id"]]["sent"], thread, ref, None, sp, subject, body, to, [], [], when,
                   received=False, is_read=1)
        labels = [f["label_id"] for f in self.filters[rcpt["id"]]
                  if f["is_active"] and f["action"] == "label" and f["match_field"] == "subject"
                  and f["match_value"].lower() in subject.lower()]
        self.store(rcpt, self.folders[rcpt["id"]]["inbox"], thread, ref, None, sp, subject, body, to, [], [], when,
                   received=True, is_read=0, labels=list(dict.fromkeys(labels)))

    def rows(self) -> dict[str, list[Row]]:
        out = {}
        for k, rows in self.t.items():
            out[k] = [{c: v for c, v in r.items() if not c.startswith("_")} for r in rows]
        return out


def build(ctx: WorldContext) -> dict[str, list[dict]]:
    w = _World(ctx)
    w.people()
    w.settings()
    w.mail()
    w.ensure_reply_candidate()
    return w.rows()
