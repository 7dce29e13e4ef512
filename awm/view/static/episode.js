// One episode: why it failed (the judge's reasons from a replay) on top, progress Φ as a chart, then
// every step with its arguments, result or error, row-level diff and reward channels.

import { api, badge, cell, diffTable, enc, episodeHref, h, json, mount, section, table } from "./dom.js";
import { phiChart } from "./svg.js";

const FLAGS = ["malformed", "unknown_tool", "invalid_arguments", "tool_error", "timeout", "crashed", "noop", "redundant"];

function verdict(data) {
  const ep = data.episode, rp = data.replay;
  const failed = ep.status !== "passed";
  const box = h("section", { id: "verdict", class: `card verdict ${failed ? "fail" : "pass"}` });
  if (!failed) {
    box.append(h("h2", {}, "Passed"), h("p", {}, `outcome ${ep.outcome} · every check holds, the answer and the writes are as expected`));
  } else {
    box.append(h("h2", {}, ep.status === "infra_error" ? "Not scored: an infrastructure error" : "Why it failed"));
    if (ep.error) box.append(h("p", { class: "infra" }, h("strong", {}, ep.error.kind), ": ", ep.error.message));
    if (ep.truncation) box.append(h("p", {}, h("strong", {}, "truncated"), `: ${ep.truncation.replaceAll("_", " ")}`));
    if (rp.replayed && rp.reasons.length) {
      box.append(h("ul", { class: "reasons" }, rp.reasons.map((r) => h("li", {}, r))));
    } else if (rp.replayed && rp.passed) {
      box.append(h("p", {}, "The replay passes: the recorded outcome came from elsewhere (see the differences below)."));
    }
  }
  if (!rp.replayed) {
    box.append(h("div", { class: "warn-box", id: "replay-error" }, h("strong", {}, "No replay"), h("p", {}, rp.error)));
  } else if (rp.divergences.length) {
    box.append(
      h(
        "div",
        { class: "warn-box", id: "divergence" },
        h("strong", {}, "The replay differs from the recording: the reasons describe the replay."),
        h("ul", {}, rp.divergences.map((d) => h("li", {}, `step ${d.step}: ${d.what}`))),
      ),
    );
  }
  for (const n of rp.notes || []) box.append(h("p", { class: "muted" }, n));
  if (failed && rp.replayed) box.append(judgeDetail(rp));
  return box;
}

function judgeDetail(rp) {
  const parts = [];
  if (rp.failed_checks.length) {
    parts.push(
      h("h3", {}, "Checks that do not hold"),
      table(
        ["check", "what it requires", ""],
        rp.failed_checks.map((c) => [h("code", {}, c.name), c.description || h("span", { class: "muted" }, "–"), c.guard ? "guard" : ""]),
        "checks",
      ),
    );
  }
  if (rp.answer && rp.answer.correct === false) {
    parts.push(
      h("h3", {}, "Answer"),
      h("p", {}, rp.answer.submitted ? ["submitted ", h("code", {}, JSON.stringify(rp.answer.value))] : "none submitted", " — ", rp.answer.reason),
    );
  }
  if (rp.collateral.length) parts.push(h("h3", {}, "Collateral rows (changed outside the task's write frame)"), diffTable(rp.collateral));
  if (rp.missing.length) parts.push(h("h3", {}, "Missing writes"), h("ul", {}, rp.missing.map((m) => h("li", {}, m))));
  if (rp.wrong.length) parts.push(h("h3", {}, "Wrong values"), h("ul", {}, rp.wrong.map((m) => h("li", {}, m))));
  const size = rp.failed_checks.length + rp.collateral.length + rp.missing.length + rp.wrong.length;
  return parts.length ? h("details", { class: "judge", open: size <= 6 }, h("summary", {}, "The judge's detail"), parts) : null;
}

function rewardTable(r) {
  const rows = [];
  for (const k of ["outcome", "progress", "progress_delta", "answer_correct", "writes_ok", "collateral"]) {
    if (k in r) rows.push([k, cell(r[k])]);
  }
  const flags = FLAGS.filter((k) => k in r);
  const on = flags.filter((k) => r[k]);
  rows.push(["flags", on.length ? h("span", {}, on.map((k) => h("span", { class: "flag-on" }, k))) : h("span", { class: "muted" }, "none")]);
  const checks = Object.entries(r.checks || {});
  rows.push([
    "checks",
    checks.length
      ? h("span", {}, checks.map(([k, v]) => h("span", { class: `check ${v ? "holds" : "fails"}`, title: v ? "holds" : "does not hold" }, `${v ? "✓" : "✗"} ${k}`)))
      : h("span", { class: "muted" }, "none"),
  ]);
  return table(["channel", "value"], rows, "rewards");
}

function stepDetail(step, n) {
  const head = step.submit
    ? h("h3", {}, `Step ${step.index} of ${n}: submit_answer`)
    : h("h3", {}, `Step ${step.index} of ${n}: `, h("code", {}, step.tool ?? "(unparsed action)"));
  const parts = [head];
  parts.push(h("h4", {}, step.submit ? "Answer" : "Arguments"), json(step.arguments ?? step.action));
  if (step.ok) {
    if (!step.submit) parts.push(h("h4", {}, "Result"), json(step.result));
  } else if (step.error) {
    parts.push(h("h4", {}, "Error"), h("p", { class: "step-error" }, h("code", {}, step.error.code), " ", step.error.message));
  }
  parts.push(h("h4", {}, `Diff (${step.diff.length} row change${step.diff.length === 1 ? "" : "s"})`));
  parts.push(step.diff.length ? diffTable(step.diff) : h("p", { class: "muted" }, "no change"));
  parts.push(h("h4", {}, `Reward channels (reward ${step.reward})`), rewardTable(step.rewards));
  return parts;
}

function neighbours(data) {
  const run = data.run.id, nb = data.neighbours;
  const link = (k, text, id) => (k ? h("a", { href: episodeHref(run, k.env, k.task_id, k.trial), id }, text) : null);
  return h(
    "p",
    { class: "neighbours" },
    link(nb.prev, "← previous episode", "prev-episode"),
    link(nb.next_failure, "next failure →", "next-failure"),
    link(nb.next, "next episode →", "next-episode"),
  );
}

export async function episodePage(main, run, env, task, trial, keys) {
  const data = await api(`runs/${enc(run)}/episodes/${enc(env)}/${enc(task)}/${enc(trial)}`);
  const ep = data.episode, steps = data.steps;
  let current = steps.length ? 1 : 0;
  const detail = h("div", { id: "step-detail", class: "step-detail" });
  const list = h("ol", { id: "step-list", class: "step-list" });
  const buttons = steps.map((s) =>
    h(
      "li",
      {},
      h(
        "button",
        { type: "button", class: `step-btn ${s.ok ? "ok" : "bad"}${s.diff.length ? " wrote" : ""}`, onclick: () => show(s.index) },
        h("span", { class: "idx" }, s.index),
        " ",
        s.submit ? "submit_answer" : s.tool ?? "(unparsed)",
        s.ok ? "" : h("span", { class: "err-tag" }, s.error ? s.error.code : "error"),
        s.diff.length ? h("span", { class: "diff-tag" }, `Δ${s.diff.length}`) : "",
      ),
    ),
  );
  list.append(...buttons);
  const prev = h("button", { type: "button", id: "prev-step", onclick: () => show(current - 1) }, "← previous step");
  const next = h("button", { type: "button", id: "next-step", onclick: () => show(current + 1) }, "next step →");
  function show(i) {
    if (i < 1 || i > steps.length) return;
    current = i;
    buttons.forEach((b, j) => b.firstChild.classList.toggle("current", j + 1 === i));
    mount(detail, stepDetail(steps[i - 1], steps.length));
    prev.disabled = i === 1;
    next.disabled = i === steps.length;
    chart.querySelectorAll("circle.pt").forEach((c) => c.classList.toggle("current", Number(c.dataset.step) === i));
  }
  keys.handler = (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowLeft") show(current - 1);
    if (e.key === "ArrowRight") show(current + 1);
  };
  const start = data.replay.initial_progress ?? 0;
  const phis = [start, ...steps.map((s) => (typeof s.rewards.progress === "number" ? s.rewards.progress : null))];
  const chart = phiChart(phis, { onPick: show, failed: steps.filter((s) => !s.ok).map((s) => s.index) });
  const t = data.task;
  const meta = [
    `env ${ep.env}`,
    `kind ${t.kind}`,
    `trial ${ep.trial}`,
    `seed ${ep.seed}`,
    `${ep.steps} steps`,
    t.template && `template ${t.template}`,
    t.world && `world ${t.world}`,
    ep.usage && ep.usage.requests ? `${ep.usage.requests} requests, ${ep.usage.prompt_tokens + ep.usage.completion_tokens} tokens` : null,
  ].filter(Boolean);
  mount(main, 
    h(
      "nav",
      { class: "crumbs" },
      h("a", { href: "#/" }, "Runs"),
      " / ",
      h("a", { href: `#/runs/${enc(run)}` }, run),
      " / ",
      `${ep.task_id} · trial ${ep.trial}`,
    ),
    h("div", { class: "title-row" }, h("h1", {}, ep.task_id), badge(ep.status)),
    h("p", { class: "muted" }, meta.join(" · ")),
    h("blockquote", { class: "instruction" }, t.instruction),
    neighbours(data),
    verdict(data),
    t.judge ? h("details", { class: "card" }, h("summary", {}, "Gold solution and checks (--show-answers)"), json(t.judge, 20000)) : null,
    section("Progress Φ", "progress", h("p", { class: "muted small" }, "Φ after each step (0: the initial state); red points are steps that failed. Click a point to open its step."), chart),
    section(
      "Steps",
      "steps",
      steps.length
        ? h("div", { class: "steps" }, list, h("div", {}, h("div", { class: "step-nav" }, prev, next, h("span", { class: "muted small" }, "or ← / → keys")), detail))
        : h("p", { class: "muted" }, "The episode has no steps."),
    ),
  );
  if (steps.length) show(current);
}
