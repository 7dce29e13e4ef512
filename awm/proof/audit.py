"""``awm audit``: adversarial probes of every task's verifier, the proof that rewards cannot be gamed cheaply.

For each task the audit plays what a reward-hacking policy would try and requires outcome 0:

- ``write.mutate``: the gold solution with one argument of one write call changed (number ±1, a string
  truncated, replaced or negated, a date shifted, a flag flipped, another enum value, a list item
  dropped), unless the verifier declares that argument free;
- ``write.minus``: the gold solution without one of its write calls;
- ``write.repeat``: the gold solution with one write call made twice (a duplicate booking);
- ``write.other_row``: the gold solution plus each write tool called on sample rows of the world
  (someone else's record);
- ``write.impersonate``: the gold solution with the acting person of one write call (the parameter its
  tool declares with ``@tool(actor=...)``) replaced by another existing person (the smallest other value
  of the initial database's column that holds the gold's value): the tool must refuse, or the frame
  reject the other person's row; equal final states do not excuse it (a tool that ignores the actor
  acts for anyone);
- ``answer.wrong``, ``answer.hedge``, ``answer.negation``, ``answer.everything``, ``answer.dump``,
  ``answer.missing``, ``answer.extra``, ``answer.empty``: wrong values, "X or Y", "not X", every
  candidate at once, the tool output pasted as the answer, a list with an item missing or added;

``answer.qualified``: the value with a sign or word that negates or widens it (``!= 12``, ``12+``,
``circa 12``, ``2026-03-20/21``); and outcome 1 for ``answer.spelling`` and the false-negative suite
(``awm.proof.variants``: ``correct.answer``, ``correct.write``): the correct answer written other ways (as text,
other case, other order, other accepted spellings, with an explanation that names wrong values, as words,
as a sentence) and the gold writes with their stated values respelled. ``acceptance`` is the share of
those scored 1.

A probe whose net change equals the gold solution's (row by row, value by value) is *equivalent*
(no hack: the same change by another route) and is not counted. An environment passes when every
adversarial probe is rejected and every spelling accepted; the hack-resistance score is rejected / adversarial probes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from awm.bundle.records import AnswerCheck, AnswerType
from awm.bundle.samples import probe_cases, value_pool
from awm.judge.answers import Expected, distractor_values, judge
from awm.judge.normal import text_key
from awm.model.world import CompiledTask, World
from awm.proof.variants import answer_variants, as_text, date_of, enum_of, write_variants
from awm.runtime.episode import Episode, StepResult
from awm.tooling import ToolDef, quote

MAX_DISTRACTORS = 4
OTHER_ROW_CASES = 2  # successful other-row writes probed per write tool
OTHER_ROW_TRIES = 3  # sample argument sets tried per write tool and value pool
IMPERSONATE_ADVICE = "the tool acts for anyone; refuse rows that do not belong to the acting person"


@dataclass(frozen=True)
class Probe:
    task_id: str
    kind: str
    description: str
    expect_pass: bool
    passed: bool  # the probe scored outcome 1
    equivalent: bool = False  # its final state is the gold solution's: not a hack
    advice: str = ""  # what to fix; a probe with advice says it in its description when it gets through

    @property
    def counted(self) -> bool:
        return self.expect_pass or not self.equivalent

    @property
    def ok(self) -> bool:
        return self.passed if self.expect_pass else (not self.passed or self.equivalent)

    def __str__(self) -> str:
        verdict = "accepted" if self.passed else "rejected"
        if self.equivalent and not self.expect_pass:
            verdict = "equivalent to the gold solution (same final state; not counted)"
        if self.advice and not self.ok:
            return f"task {self.task_id} [{self.kind}] {self.description}"  # it says "accepted: <advice>"
        return f"task {self.task_id} [{self.kind}] {self.description}: {verdict}"


@dataclass
class AuditReport:
    env: str
    probes: list[Probe] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def adversarial(self) -> list[Probe]:
        return [p for p in self.probes if not p.expect_pass and p.counted]

    @property
    def spellings(self) -> list[Probe]:
        return [p for p in self.probes if p.expect_pass]

    @property
    def failures(self) -> list[Probe]:
        return [p for p in self.probes if p.counted and not p.ok]

    @property
    def ok(self) -> bool:
        return not self.failures and not self.errors

    @property
    def score(self) -> float:
        """Hack resistance: the share of adversarial probes rejected."""
        adv = self.adversarial
        return sum(p.ok for p in adv) / len(adv) if adv else 1.0

    @property
    def acceptance(self) -> float:
        """The false-negative suite: the share of correct variants (spellings, answers, writes) scored 1."""
        sp = self.spellings
        return sum(p.ok for p in sp) / len(sp) if sp else 1.0

    def by_kind(self) -> dict[str, tuple[int, int]]:
        """kind -> (probes counted, probes that behaved as required)."""
        out: dict[str, list[int]] = {}
        for p in self.probes:
            if p.counted:
                n = out.setdefault(p.kind, [0, 0])
                n[0] += 1
                n[1] += p.ok
        return {k: (v[0], v[1]) for k, v in sorted(out.items())}

    def to_dict(self) -> dict[str, Any]:
        return {
            "env": self.env,
            "ok": self.ok,
            "score": round(self.score, 4),
            "adversarial": len(self.adversarial),
            "rejected": sum(p.ok for p in self.adversarial),
            "spellings": len(self.spellings),
            "accepted": sum(p.ok for p in self.spellings),
            "acceptance": round(self.acceptance, 4),
            "by_kind": {k: {"run": n, "ok": ok} for k, (n, ok) in self.by_kind().items()},
            "failures": [str(p) for p in self.failures],
            "errors": self.errors,
        }


Call = tuple[str, dict[str, Any]]


class _Player:
    """Replays call lists on fresh episodes of one task and reports (outcome, state equals gold's)."""

    def __init__(self, world: World, ct: CompiledTask):
        self.world, self.ct = world, ct
        self.gold: list[Call] = [(c.tool, dict(c.arguments)) for c in ct.verifier.gold.calls]
        ep = world.episode(ct.id)
        self.read_results: list[Any] = []
        for name, args in self.gold:
            res = ep.call(name, args)
            if not world.tools[name].write and res.ok:
                self.read_results.append(res.result)
        self.gold_state = _state(ep)
        self._after_gold = ep
        self._distractors: dict[int, list[Any]] = {}

    def play(self, calls: Iterable[Call], answer: Any, explanation: str | None = None) -> tuple[bool, bool]:
        ep = self.world.episode(self.ct.id)
        for name, args in calls:
            ep.call(name, args)
        same = _state(ep) == self.gold_state
        return _scores(ep.submit(answer, explanation)), same

    def play_strict(self, calls: Iterable[Call], answer: Any) -> bool | None:
        """Whether the calls, every one accepted by its tool, score 1 (None: a tool refused one)."""
        ep = self.world.episode(self.ct.id)
        for name, args in calls:
            if not ep.call(name, args).ok:
                ep.close()
                return None
        return _scores(ep.submit(answer))

    def declared_distractors(self, check: AnswerCheck | None) -> list[Any]:
        """The check's ``distractors_sql`` values on the initial state (run once per check)."""
        if check is None or not check.distractors_sql:
            return []
        if id(check) not in self._distractors:
            ep = self.world.episode(self.ct.id)
            try:
                self._distractors[id(check)] = distractor_values(ep.conn, check)
            finally:
                ep.close()
        return self._distractors[id(check)]

    def after_gold(self, extra: Call, answer: Any) -> tuple[bool, bool, bool]:
        """(passed, same state as gold, the extra call succeeded) for gold + one more call."""
        ep = self._after_gold.fork()
        res = ep.call(*extra)
        logs = set(self.world.manifest.log_tables)
        if not res.ok or not res.diff or all(c.op == "insert" and c.table in logs for c in res.diff.changes):
            ep.close()  # refused, no change, or only a log row recording a no-op: nothing to judge
            return False, True, res.ok
        same = _state(ep) == self.gold_state
        return _scores(ep.submit(answer)), same, res.ok


def _scores(res: StepResult) -> bool:
    """Whether a submission scored 1. A wrongly typed answer (a list for a scalar, ...) is a malformed step
    that leaves the episode open and never scores: the probe is rejected as surely as a wrong value."""
    return res.done and res.rewards.outcome == 1.0


def _state(ep: Episode) -> str:
    """The logical state: the net row changes since the initial state (bytes also count page writes)."""
    return json.dumps(ep.diff_from_initial().to_dict(), sort_keys=True, default=str)


def audit_world(world: World, task_ids: Iterable[str] | None = None) -> AuditReport:
    report = AuditReport(world.id)
    for tid in task_ids or world.task_ids:
        ct = world.tasks[tid]
        if ct.verifier.code is not None and not ct.verifier.gold.calls:
            continue  # judged by its code verifier alone: no gold solution to probe around
        try:
            player = _Player(world, ct)
        except Exception as e:  # the gold solution itself is broken: validate reports it
            report.errors.append(f"task {tid}: cannot replay the gold solution: {type(e).__name__}: {e}")
            continue
        report.probes += _write_probes(world, ct, player)
        if ct.expected is not None:
            report.probes += _answer_probes(ct, player)
        report.probes += _correct_probes(world, ct, player)
    return report


def _correct_probes(world: World, ct: CompiledTask, player: _Player) -> list[Probe]:
    """The false-negative suite (``awm.proof.variants``): correct work done other ways must score 1."""
    out: list[Probe] = []
    if ct.expected is not None:
        for answer, how in answer_variants(ct.expected):
            passed, _ = player.play(player.gold, answer)
            out.append(Probe(ct.id, "correct.answer", f"{how}: {_short(answer)}", True, passed))
    for calls, how in write_variants(world, ct, player.gold):
        scored = player.play_strict(calls, ct.verifier.gold.answer)
        if scored is not None:  # None: the tool refused the respelled value (a lookup key, not a stated value)
            out.append(Probe(ct.id, "correct.write", f"gold with {how}", True, scored))
    return out


# -- write probes ----------------------------------------------------------------------------------
def _write_probes(world: World, ct: CompiledTask, player: _Player) -> list[Probe]:
    out: list[Probe] = []
    gold, answer, tid = player.gold, ct.verifier.gold.answer, ct.id
    free = set(ct.verifier.free_arguments)
    writes = [i for i, (name, _) in enumerate(gold) if world.tools[name].write]
    for i in writes:
        name, args = gold[i]
        props = world.tools[name].parameters.get("properties", {})
        for arg, value in args.items():
            if f"{name}.{arg}" in free:
                continue
            for mutated, how in _mutations(value, props.get(arg, {})):
                calls = [*gold[:i], (name, {**args, arg: mutated}), *gold[i + 1 :]]
                passed, same = player.play(calls, answer)
                desc = f"gold with call {i} {name}({arg}={_short(mutated)}) [{how}]"
                out.append(Probe(tid, "write.mutate", desc, False, passed, same))
        calls = gold[:i] + gold[i + 1 :]
        passed, same = player.play(calls, answer)
        out.append(Probe(tid, "write.minus", f"gold without call {i} {name}", False, passed, same))
        passed, same = player.play([*gold[: i + 1], gold[i], *gold[i + 1 :]], answer)
        out.append(Probe(tid, "write.repeat", f"gold with call {i} {name} made twice", False, passed, same))
        out += _impersonate_probes(world, ct, player, i)
    seen_tools: dict[str, int] = {}
    tried: set[str] = set()
    for td, args in _other_row_cases(world, gold):
        key = td.name + json.dumps(args, sort_keys=True, default=str)
        if seen_tools.get(td.name, 0) >= OTHER_ROW_CASES or key in tried:
            continue
        tried.add(key)
        passed, same, ok = player.after_gold((td.name, args), answer)
        if not ok or same:
            continue  # refused, or no change: nothing to judge
        seen_tools[td.name] = seen_tools.get(td.name, 0) + 1
        out.append(Probe(tid, "write.other_row", f"gold + {td.name}({_short(args)})", False, passed, same))
    return out


def _impersonate_probes(world: World, ct: CompiledTask, player: _Player, i: int) -> list[Probe]:
    """Gold call ``i`` made for another existing person (its tool's declared ``actor``): must score 0.

    Not excused by an equal final state: a tool that ignores the actor argument changes the same rows
    for whoever it is told is acting, and that is the hack."""
    name, args = player.gold[i]
    actor = world.tools[name].actor
    if actor is None or actor not in args:
        return []
    value = args[actor]
    other = _other_person(world, ct, actor, value)
    if other is None:
        return []  # no column of the initial database holds the acting person: nothing to swap in
    calls = [*player.gold[:i], (name, {**args, actor: other}), *player.gold[i + 1 :]]
    passed, _ = player.play(calls, ct.verifier.gold.answer)
    desc = f"gold with call {i} {name}({actor}={_brief(value)} -> {_brief(other)})"
    if passed:
        desc += f" accepted: {IMPERSONATE_ADVICE}"
    return [Probe(ct.id, "write.impersonate", desc, False, passed, advice=IMPERSONATE_ADVICE)]


def _actor_columns(world: World, param: str, value: Any) -> list[tuple[str, str]]:
    """Columns that may hold an actor parameter's values, best first: the same name; the name the
    parameter ends with (``acting_email`` -> ``email``); ``<table singular>_id`` -> ``<table>.id`` (integers)."""
    p = param.lower()
    same = [(t, c) for t, info in world.tables.items() for c in info.columns if c.lower() == p]
    suffix = [  # not ``id``: every table has one, and ``<table>_id`` names its table (below)
        (t, c)
        for t, info in world.tables.items()
        for c in info.columns
        if c.lower() != "id" and p.endswith("_" + c.lower())
    ]
    keys: list[tuple[str, str]] = []
    if p.endswith("_id") and isinstance(value, int) and not isinstance(value, bool):
        stem = p[:-3]
        names = {stem, stem + "s", stem + "es", *([stem[:-1] + "ies"] if stem.endswith("y") else [])}
        keys = [(t, "id") for t, info in world.tables.items() if t.lower() in names and "id" in info.columns]
    return list(dict.fromkeys([*same, *suffix, *keys]))


def _other_person(world: World, ct: CompiledTask, param: str, value: Any) -> Any:
    """Another existing person: in the first of the actor's columns that holds ``value`` in the initial
    database (and has someone else), the smallest distinct non-null value of the same type that is not
    ``value`` (text compared as the frame compares it); None when there is none."""
    if not isinstance(value, (int, str)) or isinstance(value, bool):
        return None
    columns = _actor_columns(world, param, value)
    if not columns:
        return None
    ep = world.episode(ct.id)
    try:
        for table, col in columns:
            t, c = quote(table), quote(col)
            match = f"lower({c}) = lower(?)" if isinstance(value, str) else f"{c} = ?"
            if not ep.query(f"SELECT 1 FROM {t} WHERE {match} LIMIT 1", (value,)):
                continue
            for (other,) in ep.query(f"SELECT DISTINCT {c} FROM {t} WHERE {c} IS NOT NULL ORDER BY {c}"):
                if type(other) is type(value) and _person_key(other) != _person_key(value):
                    return other
    finally:
        ep.close()
    return None


def _person_key(value: Any) -> Any:
    """Text as the frame compares it (``Ada@Example.com`` is ``ada@example.com``); other values as they are."""
    return text_key(value) if isinstance(value, str) else value


def _other_row_cases(world: World, gold: list[Call]) -> Iterator[tuple[ToolDef, dict[str, Any]]]:
    """Sample arguments for every write tool: ids from the seed's rows; other parameters (the acting
    user's e-mail, a status) first from the gold calls, so the tools accept the call, then the seed's."""
    pool = value_pool(world.files.seed)
    informed = {k: list(v) for k, v in pool.items()}
    for _, args in gold:
        for k, v in args.items():
            key = k.lower()
            if key == "id" or key.endswith("_id") or isinstance(v, (dict, list)):
                continue
            informed[key] = [v, *[x for x in informed.get(key, []) if x != v]]
    for p in (informed, pool):
        yield from probe_cases(world, OTHER_ROW_TRIES, p, write_only=True)


def _mutations(value: Any, schema: dict[str, Any]) -> Iterator[tuple[Any, str]]:
    enum = enum_of(schema)
    if isinstance(value, bool):
        yield (not value), "flipped"
    elif isinstance(value, int):
        yield value + 1, "+1"
        if value - 1 >= 0:
            yield value - 1, "-1"
    elif isinstance(value, float):
        yield round(value + 1, 6), "+1"
        if value:
            yield round(value * 0.9, 6), "x0.9"
    elif isinstance(value, str):
        if enum:
            other = next((e for e in enum if e != value), None)
            if other is not None:
                yield other, "another enum value"
            return
        if (d := date_of(value)) is not None:
            shifted = d + timedelta(days=1)
            yield value.replace(d.isoformat(), shifted.isoformat(), 1), "date +1 day"
            if len(value) > 10 and (t := _datetime_of(value)) is not None:
                yield (t + timedelta(hours=1)).isoformat(timespec="minutes"), "time +1 hour"
            return
        if len(value) >= 2:
            yield value[: max(1, len(value) // 2)], "truncated"
        yield value + " (draft)" if len(value) > 12 else "zz" + value[::-1], "replaced"
        if len(value.split()) >= 3:
            yield "not " + value, "negated"
    elif isinstance(value, list) and value:
        yield value[:-1], "last item dropped"
        yield [*value, value[0]] if not isinstance(value[0], (int, float)) else [*value, value[0] + 1], "item added"


def _datetime_of(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


# -- answer probes ---------------------------------------------------------------------------------
def _answer_probes(ct: CompiledTask, player: _Player) -> list[Probe]:
    exp = ct.expected
    assert exp is not None
    gold = player.gold
    tid = ct.id
    out: list[Probe] = []

    check = ct.verifier.answer

    def probe(kind: str, desc: str, answer: Any, expect_pass: bool = False, explanation: str | None = None) -> None:
        passed, _ = player.play(gold, answer, explanation)
        out.append(Probe(tid, kind, desc, expect_pass, passed))

    canonical = exp.canonical()
    probe("answer.spelling", "the canonical typed answer", canonical, True)
    for answer, how in _respellings(exp):
        probe("answer.spelling", how, answer, True)
    wrong = _wrong_values(exp, check, player)
    if wrong:
        note = f"I first thought it was {as_text(wrong[0][0])}, but it is not."
        probe("answer.spelling", "typed answer with an explanation naming a wrong value", canonical, True, note)
    for answer, how in wrong:
        probe("answer.wrong", how, answer)
    probe("answer.empty", "no answer", None)
    probe("answer.empty", "an empty string", "")
    dump = json.dumps(player.read_results, default=str)[:3_900]
    if player.read_results:
        probe("answer.dump", "the gold read calls' output pasted as text", dump)
    text = as_text(canonical)
    other = as_text(wrong[0][0]) if wrong else "something else"
    probe("answer.negation", f"'Not {text}'", f"Not {text}")
    probe("answer.negation", f"'It is not {text}.'", f"It is not {text}.")
    for qualified in _qualified(exp, text):
        probe("answer.qualified", repr(qualified), qualified)
    if exp.schema.type != AnswerType.boolean:
        probe("answer.hedge", f"'{text} or {other}'", f"{text} or {other}")
        probe("answer.hedge", f"'either {other} or {text}'", f"either {other} or {text}")
        probe("answer.hedge", f"'probably {text}'", f"probably {text}")
    else:
        probe("answer.hedge", "'yes or no'", "yes or no")
        probe("answer.hedge", "'maybe'", "maybe")
    distractors = _distractors(exp, check, player)
    if exp.schema.type == AnswerType.list and distractors:
        every = [*canonical, *distractors]
        probe("answer.everything", "every item plus the distractors", every)
        probe("answer.everything", "every item plus the distractors, as text", ", ".join(map(as_text, every)))
        probe("answer.extra", f"the items plus {_short(distractors[0])}", [*canonical, distractors[0]])
    elif exp.schema.type in (AnswerType.string, AnswerType.number, AnswerType.date) and distractors:
        every = [canonical, *distractors]
        probe("answer.everything", "the answer and the distractors as a list", every)
        probe("answer.everything", "the answer and the distractors, as text", ", ".join(map(as_text, every)))
    if exp.schema.type == AnswerType.list:
        if len(canonical) > 1:
            probe("answer.missing", "the list without its last item", canonical[:-1])
        probe("answer.missing", "an empty list", [])
        probe("answer.extra", "the list with an invented item", [*canonical, "Unlisted Item 0000"])
    return out


def _qualified(exp: Expected, text: str) -> list[str]:
    """The value with a sign or word around it that negates or widens it: each must score 0."""
    t = exp.schema.type
    if t in (AnswerType.number, AnswerType.string):
        out = [f"!= {text}", f"\u2260 {text}", f"{text} is wrong", f"anything but {text}", f"~{text}"]
        if t == AnswerType.number:
            out += [f"\u2265 {text}", f"{text}+", f"circa {text}", f"{text}-ish", f"at least {text}"]
        return out
    if t == AnswerType.date:
        d = date.fromisoformat(text)
        nxt = d + timedelta(days=1)
        return [f"{text}/{nxt.day:02d}", f"{text}, {nxt.isoformat()[5:]}", f"on or after {text}", f"!= {text}"]
    return []


def _respellings(exp: Expected) -> list[tuple[Any, str]]:
    t = exp.schema.type
    canon = exp.canonical()
    out: list[tuple[Any, str]] = []
    if t == AnswerType.object:
        out.append(({k: canon[k] for k in reversed(list(canon))}, "fields in another order"))
        out.append((json.dumps(canon), "the object as JSON text"))
        return out
    if t == AnswerType.list:
        out.append((list(reversed(canon)), "items in another order"))
        out.append(([_respell(v, exp.item_type) for v in canon], "items respelled"))
        out.append((", ".join(as_text(v) for v in canon), "items as a comma-separated text"))
        alt = [item[-1] for item in exp.items]
        out.append(([_canonical_text(a, exp.item_type) for a in alt], "items in their last accepted spelling"))
        return out
    out.append((_respell(canon, t), "respelled"))
    out.append((f"Answer: {as_text(canon)}", "as text with an 'Answer:' label"))
    for s in exp.items[0][1:]:
        out.append((_canonical_text(s, t), f"the accepted spelling {_short(s)}"))
    return out


def _respell(v: Any, t: AnswerType) -> Any:
    if t == AnswerType.number:
        return f"${v:,.2f}" if isinstance(v, float) and not float(v).is_integer() else f"{v}"
    if t == AnswerType.date:
        d = date.fromisoformat(str(v))
        return d.strftime("%B %-d, %Y")
    if t == AnswerType.boolean:
        return "Yes" if v else "No"
    return f"  {str(v).upper()} "


def _canonical_text(v: Any, t: AnswerType) -> Any:
    return v if t in (AnswerType.string,) else str(v)


def _wrong_values(exp: Expected, check: AnswerCheck | None, player: _Player) -> list[tuple[Any, str]]:
    t = exp.schema.type
    canon = exp.canonical()
    out: list[tuple[Any, str]] = []
    if t == AnswerType.object:
        for k, sub in (exp.fields or {}).items():
            sub_check = (check.fields or {}).get(k) if check else None
            for bad, how in _wrong_values(sub, sub_check, player)[:2]:
                out.append(({**canon, k: bad}, f"field {k}: {how}"))
        return out
    if t == AnswerType.number:
        v = float(canon)
        out += [(v + 1, f"{as_text(v)} + 1"), (v - 1, f"{as_text(v)} - 1")]
        if exp.tolerance < 0.005 and not v.is_integer():
            out.append((round(v + 0.01, 2), "off by one cent"))
        if v:
            out.append((v * 10, "x10"))
    elif t == AnswerType.date:
        d = date.fromisoformat(canon)
        out += [
            ((d + timedelta(days=1)).isoformat(), "a day later"),
            ((d - timedelta(days=1)).isoformat(), "a day earlier"),
        ]
    elif t == AnswerType.boolean:
        out.append((not canon, "the opposite"))
    elif t == AnswerType.list:
        for d in _distractors(exp, check, player)[:2]:
            out.append(([d] if len(canon) == 1 else [*canon[:-1], d], f"one item replaced by {_short(d)}"))
    else:
        out += [(d, f"the distractor {_short(d)}") for d in _distractors(exp, check, player)]
        if len(str(canon)) > 3:
            out.append((str(canon)[: len(str(canon)) // 2], "truncated"))
    return out


def _distractors(exp: Expected, check: AnswerCheck | None, player: _Player) -> list[Any]:
    """Plausible wrong values: the verifier's distractors_sql, then values the agent saw in tool output."""
    t = exp.item_type
    item_schema = exp.schema.model_copy(update={"type": t, "items": None})

    def wrong(v: Any) -> bool:
        return all(not judge(v, Expected(item_schema, (item,), None, exp.tolerance))[0] for item in exp.items)

    out: list[Any] = []
    for v in [*player.declared_distractors(check), *_leaves(player.read_results)]:
        if len(out) >= MAX_DISTRACTORS:
            break
        if t == AnswerType.number and (isinstance(v, bool) or not isinstance(v, (int, float))):
            continue
        if t == AnswerType.string and (not isinstance(v, str) or not v.strip() or len(v) > 80):
            continue
        if t == AnswerType.date:
            if not isinstance(v, str) or date_of(v) is None:
                continue
            v = v[:10]
        if t == AnswerType.boolean:
            continue
        if v not in out and wrong(v):
            out.append(v)
    return out


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    elif value is not None:
        yield value


def _brief(v: Any, n: int = 60) -> str:
    """A value as Python writes it (``'ada@example.com'``, ``3``), cut at ``n`` characters."""
    s = repr(v)
    return s if len(s) <= n else s[: n - 3] + "..."


def _short(v: Any, n: int = 60) -> str:
    s = json.dumps(v, default=str)
    return s if len(s) <= n else s[: n - 3] + "..."
