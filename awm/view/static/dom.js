// Small DOM helpers: elements from data (text only, never HTML), the JSON API, shared widgets.

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

// Replace an element's children (null, undefined and false are skipped, as in h()).
export function mount(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// GET a JSON route of the viewer (relative: the app may be mounted under a prefix)
export async function api(path) {
  const r = await fetch("api/" + path, { headers: { accept: "application/json" } });
  let body = null;
  try {
    body = await r.json();
  } catch {
    throw new ApiError(r.status, "bad_response", `the server answered ${r.status} without JSON`);
  }
  if (!r.ok) {
    const e = (body && body.error) || {};
    throw new ApiError(r.status, e.code || "http_error", e.message || `HTTP ${r.status}`);
  }
  return body;
}

export const enc = encodeURIComponent;

export function episodeHref(run, env, task, trial) {
  return `#/runs/${enc(run)}/${enc(env)}/${enc(task)}/${trial}`;
}

export function json(value, limit = 4000) {
  let text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  if (text === undefined) text = String(value);
  const cut = text.length > limit;
  const pre = h("pre", { class: "json" }, cut ? text.slice(0, limit) + "\n…" : text);
  if (!cut) return pre;
  const more = h("button", { class: "link", type: "button" }, `show all ${text.length.toLocaleString()} characters`);
  more.addEventListener("click", () => {
    pre.textContent = text;
    more.remove();
  });
  return h("div", {}, pre, more);
}

export function cell(value) {
  if (value === null || value === undefined) return h("span", { class: "null" }, "null");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export function table(headers, rows, cls = "") {
  return h(
    "table",
    { class: cls },
    h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.map((r) => (r instanceof Node ? r : h("tr", {}, r.map((c) => h("td", {}, c)))))),
  );
}

const STATUS_TEXT = { passed: "passed", failed: "failed", truncated: "truncated", infra_error: "infra error" };
const STATUS_MARK = { passed: "✓", failed: "✗", truncated: "⧗", infra_error: "!" };

export function badge(status) {
  return h("span", { class: `badge st-${status}` }, STATUS_TEXT[status] || status);
}

export function mark(status) {
  return STATUS_MARK[status] || "?";
}

export function pct(x) {
  return x === null || x === undefined ? "–" : `${Math.round(x * 1000) / 10}%`;
}

export function section(title, id, ...children) {
  return h("section", { id, class: "card" }, h("h2", {}, title), children);
}

export function errorBox(e) {
  const code = e instanceof ApiError ? e.code : "error";
  return h(
    "div",
    { class: "error-box", role: "alert" },
    h("strong", {}, code === "error" ? "Something went wrong" : code.replaceAll("_", " ")),
    h("p", {}, e.message || String(e)),
    h("p", {}, h("a", { href: "#/" }, "Back to the runs")),
  );
}

// A row-level diff (awm.sql.diff.RowChange.to_dict entries) as a table: one line per changed row, its
// changed values (updates: before → after) or its whole row (inserts, deletes).
export function diffTable(changes) {
  const rows = changes.map((c) => {
    const key = Object.entries(c.key || {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ");
    let values;
    if (c.op === "update") {
      values = Object.entries(c.changes || {}).map(([col, [before, after]]) =>
        h("div", {}, h("span", { class: "col-name" }, col), ": ", h("span", { class: "before" }, cell(before)), " → ", h("span", { class: "after" }, cell(after))),
      );
    } else {
      values = Object.entries(c.row || {}).map(([col, v]) => h("div", {}, h("span", { class: "col-name" }, col), " = ", cell(v)));
    }
    return [h("span", { class: `op op-${c.op}` }, c.op), c.table, key, h("div", { class: "values" }, values)];
  });
  return table(["op", "table", "key", "values"], rows, "diff");
}
