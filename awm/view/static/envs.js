// One environment: schema (tables, keys, a relations diagram), seed rows, tools, tasks and templates.
// The judge's side (gold solutions, checks) appears only when the viewer runs with --show-answers.

import { api, cell, enc, h, json, mount, section, table } from "./dom.js";
import { relationsDiagram } from "./svg.js";

function columnsTable(t) {
  return table(
    ["column", "type", "key", "not null"],
    t.columns.map((c) => [
      h("code", {}, c.name),
      c.type,
      [
        c.pk ? h("span", { class: "key-tag pk" }, "PK") : null,
        c.fk ? [h("span", { class: "key-tag fk" }, "FK"), h("code", { class: "ref" }, `→ ${c.fk.table}.${c.fk.column}`)] : null,
      ],
      c.notnull ? "✓" : "",
    ]),
    "columns",
  );
}

function rowsBrowser(env, tables) {
  const PAGE = 25;
  let name = tables.length ? tables[0].name : null;
  let offset = 0;
  const out = h("div", { id: "rows-table" });
  const status = h("span", { class: "muted" });
  const prev = h("button", { type: "button", id: "rows-prev", onclick: () => load(offset - PAGE) }, "← previous");
  const next = h("button", { type: "button", id: "rows-next", onclick: () => load(offset + PAGE) }, "next →");
  const select = h(
    "select",
    { id: "rows-select", onchange: (e) => { name = e.target.value; load(0); } },
    tables.map((t) => h("option", { value: t.name }, `${t.name} (${t.rows})`)),
  );
  let latest = 0;
  async function load(at) {
    if (!name) return;
    const ticket = ++latest;
    try {
      const page = await api(`envs/${enc(env)}/tables/${enc(name)}/rows?offset=${Math.max(0, at)}&limit=${PAGE}`);
      if (ticket !== latest) return; // an answer to an older request: the newer one shows
      offset = page.offset;
      status.textContent = page.total
        ? `rows ${page.offset + 1}–${page.offset + page.rows.length} of ${page.total}`
        : "no rows";
      prev.disabled = page.offset === 0;
      next.disabled = page.offset + page.rows.length >= page.total;
      out.replaceChildren(table(page.columns, page.rows.map((r) => r.map(cell)), "rows"));
    } catch (e) {
      if (ticket === latest) out.replaceChildren(h("p", { class: "error-text" }, e.message));
    }
  }
  load(0);
  return h("div", {}, h("div", { class: "filters" }, select, prev, next, status), out);
}

function params(schema) {
  const props = Object.entries((schema && schema.properties) || {});
  if (!props.length) return h("span", { class: "muted" }, "no arguments");
  const req = new Set(schema.required || []);
  return h(
    "span",
    { class: "params" },
    props.map(([k, p]) => h("code", { class: req.has(k) ? "req" : "" }, `${k}${req.has(k) ? "" : "?"}: ${p.type ?? (p.anyOf ? p.anyOf.map((x) => x.type).join("|") : "any")}`)),
  );
}

function tool(t) {
  return h(
    "div",
    { class: "tool", "data-tool": t.name },
    h("div", {}, h("code", { class: "tool-name" }, t.name), " ", h("span", { class: `rw ${t.write ? "write" : "read"}` }, t.write ? "write" : "read"), " ", params(t.parameters)),
    h("p", {}, t.description),
    h("details", {}, h("summary", {}, "JSON Schema"), json(t.parameters, 20000)),
  );
}

function answerType(a) {
  if (!a) return h("span", { class: "muted" }, "–");
  const t = a.type === "list" ? `list of ${a.items || "string"}` : a.type;
  return h("span", { title: a.description || "" }, t);
}

function judge(x) {
  return x.judge ? h("details", { class: "judge-detail" }, h("summary", {}, "gold solution and checks"), json(x.judge, 20000)) : null;
}

export async function envPage(main, name) {
  const [env, info] = await Promise.all([api(`envs/${enc(name)}`), api("info")]);
  const m = env.manifest;
  const nav = h(
    "nav",
    { class: "sections" },
    ["schema", "rows", "tools", "tasks", "templates"].map((id) =>
      h("button", { type: "button", class: "link", onclick: () => document.getElementById(id).scrollIntoView() }, id),
    ),
  );
  mount(main, 
    h("nav", { class: "crumbs" }, h("a", { href: "#/envs" }, "Environments"), " / ", env.env),
    h("div", { class: "title-row" }, h("h1", {}, m.title), h("code", {}, env.env_id)),
    h("p", {}, m.description),
    h("p", { class: "muted" }, `clock ${env.clock} · ${env.tables.length} tables · ${env.tools.length} tools · ${env.tasks.length} tasks · ${env.templates.length} templates${env.world_builder ? " · random worlds" : ""}`),
    info.show_answers ? null : h("p", { class: "muted small", id: "answers-hidden" }, "Gold solutions and checks are hidden (start awm view with --show-answers to see them)."),
    nav,
    section(
      "Schema",
      "schema",
      h("div", { class: "diagram-wrap" }, relationsDiagram(env.tables)),
      h(
        "div",
        { class: "table-cards" },
        env.tables.map((t) => h("div", { class: "table-card", "data-table": t.name }, h("h3", {}, t.name, h("span", { class: "muted small" }, ` ${t.rows} rows · key ${t.key.join(", ")}`)), columnsTable(t))),
      ),
    ),
    section("Seed rows", "rows", rowsBrowser(env.env, env.tables)),
    section("Tools", "tools", h("div", { class: "tools" }, env.tools.map(tool))),
    section(
      "Tasks",
      "tasks",
      table(
        ["task", "kind", "instruction", "answer"],
        env.tasks.map((t) =>
          h(
            "tr",
            { "data-task": t.id },
            h("td", {}, h("code", {}, t.id)),
            h("td", {}, h("span", { class: `kind kind-${t.kind}` }, t.kind)),
            h("td", {}, t.instruction, judge(t)),
            h("td", {}, answerType(t.answer)),
          ),
        ),
        "env-tasks",
      ),
    ),
    section(
      "Templates",
      "templates",
      env.templates.length
        ? [
            h("p", { class: "muted small" }, "Instances are named <template>.<world>.<row>, e.g. cancel_order.s17.3; runs may hold them."),
            table(
              ["template", "kind", "instruction", "answer"],
              env.templates.map((t) =>
                h(
                  "tr",
                  { "data-template": t.id },
                  h("td", {}, h("code", {}, t.id), t.tags.length ? h("div", { class: "muted small" }, t.tags.join(", ")) : null),
                  h("td", {}, h("span", { class: `kind kind-${t.kind}` }, t.kind)),
                  h(
                    "td",
                    {},
                    t.instruction,
                    t.underspecified_instruction ? h("div", { class: "muted small" }, "underspecified: ", t.underspecified_instruction) : null,
                    judge(t),
                  ),
                  h("td", {}, answerType(t.answer)),
                ),
              ),
              "env-templates",
            ),
          ]
        : h("p", { class: "muted" }, "No templates."),
    ),
  );
}
