// The landing page (runs), a run (tasks x trials, failures first) and the comparison of runs.

import { api, enc, episodeHref, h, mark, mount, pct, section, table } from "./dom.js";

function counts(run) {
  const c = run.counts;
  return h(
    "span",
    { class: "counts" },
    ["passed", "failed", "truncated", "infra_error"]
      .filter((k) => c[k])
      .map((k) => h("span", { class: `count st-${k}` }, `${c[k]} ${k.replace("_", " ")}`)),
  );
}

function rateBar(rate) {
  const bar = h("span", { class: "bar" }, h("span", { class: "fill" }));
  bar.firstChild.style.width = `${Math.round((rate ?? 0) * 100)}%`;
  return h("span", { class: "rate" }, bar, pct(rate));
}

export async function homePage(main) {
  const [runs, envs] = await Promise.all([api("runs"), api("envs")]);
  const parts = [];
  if (runs.length) {
    parts.push(
      section(
        "Runs",
        "runs",
        h("p", { class: "muted" }, "Open a run to see its tasks, failures first; a trial opens the episode and why it failed."),
        table(
          ["run", "agent / model", "environments", "episodes", "outcomes", "pass rate"],
          runs.map((r) =>
            h(
              "tr",
              { "data-run": r.id },
              h("td", {}, h("a", { class: "run-link", href: `#/runs/${enc(r.id)}` }, r.id)),
              h("td", {}, r.model ? `${r.agent} · ${r.model}` : r.agent || (r.kind === "trajectories" ? "trajectories" : "–")),
              h("td", {}, r.envs.join(", ")),
              h("td", { class: "num" }, r.episodes),
              h("td", {}, counts(r), r.problems ? h("span", { class: "warn-chip" }, `${r.problems} unreadable line(s)`) : null),
              h("td", {}, rateBar(r.pass_rate)),
            ),
          ),
          "runs",
        ),
        runs.length > 1
          ? h("p", {}, h("a", { href: `#/compare/${runs.map((r) => enc(r.id)).join(",")}` }, "Compare these runs side by side →"))
          : null,
      ),
    );
  } else {
    parts.push(
      section("Runs", "runs", h("p", { class: "muted" }, "No runs given. Start the viewer with run directories: awm view runs/oracle runs/random")),
    );
  }
  parts.push(envList(envs));
  mount(main, ...parts);
}

export function envList(envs) {
  return section(
    "Environments",
    "envs",
    h(
      "div",
      { class: "env-grid" },
      envs.map((e) =>
        h(
          "a",
          { class: `env-card${e.error ? " broken" : ""}`, href: `#/envs/${enc(e.env)}` },
          h("strong", {}, e.env),
          h("span", {}, e.title || ""),
          e.error
            ? h("span", { class: "error-text" }, e.error)
            : h("span", { class: "muted" }, `${e.tables} tables · ${e.tools} tools · ${e.tasks} tasks · ${e.templates} templates`),
        ),
      ),
    ),
  );
}

export async function envsPage(main) {
  mount(main, envList(await api("envs")));
}

export async function runPage(main, runId) {
  const data = await api(`runs/${enc(runId)}`);
  const run = data.run;
  const firstFailure = data.tasks.flatMap((t) => t.trials).find((t) => t.status !== "passed");
  const filters = { status: "all", env: "", text: "" };
  const body = h("tbody");
  const rows = data.tasks.map((t) => {
    const tr = h(
      "tr",
      { class: t.passed < t.n ? "has-failure" : "all-passed", "data-task": t.task_id },
      h("td", {}, h("div", { class: "task-id" }, t.task_id), h("div", { class: "muted small" }, t.env)),
      h("td", {}, h("span", { class: `kind kind-${t.kind}` }, t.kind)),
      h("td", { class: "instruction" }, t.instruction),
      h(
        "td",
        { class: "trials" },
        t.trials.map((x) =>
          h(
            "a",
            {
              class: `trial st-${x.status}`,
              href: episodeHref(run.id, x.env, x.task_id, x.trial),
              title: `trial ${x.trial}: ${x.status}, ${x.steps} steps, Φ ${x.progress ?? "?"}`,
              "data-status": x.status,
            },
            `${mark(x.status)} ${x.trial}`,
          ),
        ),
      ),
      h("td", { class: "num" }, `${t.passed}/${t.n}`),
    );
    return { t, tr };
  });
  const apply = () => {
    const text = filters.text.toLowerCase();
    const shown = rows.filter(({ t }) => {
      if (filters.status === "failing" && t.passed === t.n) return false;
      if (filters.status === "passing" && t.passed < t.n) return false;
      if (filters.env && t.env !== filters.env) return false;
      return !text || `${t.task_id} ${t.instruction}`.toLowerCase().includes(text);
    });
    body.replaceChildren(...shown.map((r) => r.tr));
    shownCount.textContent = `${shown.length} of ${rows.length} tasks`;
  };
  const shownCount = h("span", { class: "muted" });
  const envs = [...new Set(data.tasks.map((t) => t.env))];
  const controls = h(
    "div",
    { class: "filters" },
    h(
      "label",
      {},
      "show ",
      h(
        "select",
        { id: "status-filter", onchange: (e) => { filters.status = e.target.value; apply(); } },
        h("option", { value: "all" }, "all tasks"),
        h("option", { value: "failing" }, "tasks with a failure"),
        h("option", { value: "passing" }, "tasks that always pass"),
      ),
    ),
    envs.length > 1
      ? h(
          "label",
          {},
          "environment ",
          h(
            "select",
            { onchange: (e) => { filters.env = e.target.value; apply(); } },
            h("option", { value: "" }, "all"),
            envs.map((e) => h("option", { value: e }, e)),
          ),
        )
      : null,
    h("input", {
      type: "search",
      id: "task-search",
      placeholder: "search tasks",
      oninput: (e) => { filters.text = e.target.value; apply(); },
    }),
    shownCount,
  );
  const info = data.info || {};
  const problems = data.problems.length
    ? h(
        "div",
        { class: "warn-box", id: "problems" },
        h("strong", {}, `${data.problems.length} line(s) could not be read; the rest of the run is shown`),
        h("ul", {}, data.problems.map((p) => h("li", {}, h("code", {}, `${p.file}:${p.line}`), " ", p.message))),
      )
    : null;
  mount(main, 
    h("nav", { class: "crumbs" }, h("a", { href: "#/" }, "Runs"), " / ", run.id),
    h(
      "div",
      { class: "title-row" },
      h("h1", {}, run.id),
      counts(run),
      rateBar(run.pass_rate),
    ),
    h(
      "p",
      { class: "muted" },
      [
        run.agent && `agent ${run.agent}`,
        run.model && `model ${run.model}`,
        info.k && `k = ${info.k}`,
        info.max_steps && `max ${info.max_steps} steps`,
        run.started && `started ${run.started}`,
        run.path,
      ].filter(Boolean).join(" · "),
    ),
    problems,
    firstFailure
      ? h(
          "p",
          {},
          h(
            "a",
            { class: "button", id: "first-failure", href: episodeHref(run.id, firstFailure.env, firstFailure.task_id, firstFailure.trial) },
            `Open the first failed episode (${firstFailure.task_id}, trial ${firstFailure.trial}) →`,
          ),
        )
      : null,
    section(
      "Tasks",
      "tasks",
      h("p", { class: "muted small" }, "Tasks with failures come first; each mark is one trial: click it to replay the episode."),
      controls,
      h(
        "table",
        { class: "tasks" },
        h("thead", {}, h("tr", {}, ["task", "kind", "instruction", "trials", "passed"].map((x) => h("th", {}, x)))),
        body,
      ),
    ),
  );
  apply();
}

export async function comparePicker(main) {
  const runs = await api("runs");
  const boxes = runs.map((r) => h("input", { type: "checkbox", value: r.id, checked: runs.length <= 4 }));
  const go = h("button", {
    type: "button",
    id: "compare-go",
    onclick: () => {
      const ids = boxes.filter((b) => b.checked).map((b) => enc(b.value));
      if (ids.length) location.hash = `#/compare/${ids.join(",")}`;
    },
  }, "Compare");
  mount(main, 
    section(
      "Compare runs",
      "compare-pick",
      runs.length < 2 ? h("p", { class: "muted" }, "Give awm view two or more runs to compare them.") : null,
      h("ul", { class: "plain" }, runs.map((r, i) => h("li", {}, h("label", {}, boxes[i], ` ${r.id} `, h("span", { class: "muted" }, r.model || r.agent || ""))))),
      go,
    ),
  );
}

export async function comparePage(main, ids) {
  const data = await api(`compare?runs=${ids.split(",").map(enc).join(",")}`);
  let onlyDiffer = false;
  const body = h("tbody");
  const rows = data.rows.map((row) =>
    h(
      "tr",
      { class: row.differ ? "differ" : "" },
      h("td", {}, h("div", { class: "task-id" }, row.task_id), h("div", { class: "muted small" }, `${row.env} · ${row.kind}`)),
      row.cells.map((c, i) =>
        h(
          "td",
          { class: "grid-cell" },
          c === null
            ? h("span", { class: "muted" }, "–")
            : [
                c.trials.map((x) =>
                  h(
                    "a",
                    {
                      class: `trial st-${x.status}`,
                      href: episodeHref(data.runs[i].id, row.env, row.task_id, x.trial),
                      title: `${data.runs[i].id} trial ${x.trial}: ${x.status}`,
                    },
                    mark(x.status),
                  ),
                ),
                h("span", { class: `pass-count${c.passed === c.n ? " all" : c.passed ? "" : " none"}` }, `${c.passed}/${c.n}`),
              ],
        ),
      ),
    ),
  );
  const apply = () => body.replaceChildren(...rows.filter((r) => !onlyDiffer || r.classList.contains("differ")));
  apply();
  mount(main, 
    h("nav", { class: "crumbs" }, h("a", { href: "#/" }, "Runs"), " / ", h("a", { href: "#/compare" }, "Compare"), " / ", data.runs.map((r) => r.id).join(" vs ")),
    section(
      "Pass/fail per task",
      "compare",
      h(
        "label",
        { class: "filters" },
        h("input", { type: "checkbox", id: "only-differ", onchange: (e) => { onlyDiffer = e.target.checked; apply(); } }),
        " only tasks where the runs differ",
      ),
      h(
        "table",
        { class: "compare-grid" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", {}, "task"),
            data.runs.map((r) => h("th", {}, h("a", { href: `#/runs/${enc(r.id)}` }, r.id), h("div", { class: "muted small" }, `${r.model || r.agent || ""} · ${pct(r.pass_rate)}`))),
          ),
        ),
        body,
        h(
          "tfoot",
          {},
          h(
            "tr",
            {},
            h("td", {}, "passed episodes"),
            data.runs.map((r) => h("td", { class: "pass-total" }, `${r.counts.passed}/${r.episodes} · ${pct(r.pass_rate)}`)),
          ),
        ),
      ),
    ),
  );
}
