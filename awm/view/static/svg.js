// Charts drawn as inline SVG: progress Φ over an episode's steps, and an environment's relations.

const NS = "http://www.w3.org/2000/svg";

function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) if (c) el.append(c);
  return el;
}

// Φ after each step (values[0] is the initial state); onPick(i) when a step's point is clicked.
export function phiChart(values, { onPick, failed = [] } = {}) {
  const W = 640, H = 180, L = 40, R = 48, T = 12, B = 28;
  const n = Math.max(values.length - 1, 1);
  const x = (i) => L + (i * (W - L - R)) / n;
  const y = (v) => T + (1 - v) * (H - T - B);
  const svg = s("svg", { id: "phi-chart", class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img" });
  svg.append(s("title", { text: "progress Φ after each step" }));
  for (const v of [0, 0.5, 1]) {
    svg.append(s("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    svg.append(s("text", { class: "tick", x: L - 6, y: y(v) + 4, "text-anchor": "end", text: v.toFixed(1) }));
  }
  const every = Math.ceil(n / 20);
  for (let i = 0; i <= n; i += every) {
    svg.append(s("text", { class: "tick", x: x(i), y: H - 8, "text-anchor": "middle", text: String(i) }));
  }
  svg.append(s("text", { class: "axis", x: W - 4, y: H - 8, "text-anchor": "end", text: "step" }));
  const pts = values.map((v, i) => `${x(i)},${y(v ?? 0)}`).join(" ");
  svg.append(s("polyline", { class: "line", points: pts }));
  values.forEach((v, i) => {
    const bad = failed.includes(i);
    const dot = s(
      "circle",
      { class: `pt${bad ? " bad" : ""}${i === 0 ? " start" : ""}`, cx: x(i), cy: y(v ?? 0), r: 5, "data-step": i },
      s("title", { text: i === 0 ? `start: Φ = ${fmt(v)}` : `step ${i}: Φ = ${fmt(v)}` }),
    );
    if (onPick && i > 0) dot.addEventListener("click", () => onPick(i));
    svg.append(dot);
  });
  return svg;
}

function fmt(v) {
  return v === null || v === undefined ? "?" : (Math.round(v * 1000) / 1000).toString();
}

// Tables as boxes in layers (a table to the right of every table it references), foreign keys as curves.
export function relationsDiagram(tables) {
  const byName = Object.fromEntries(tables.map((t) => [t.name, t]));
  const parents = Object.fromEntries(
    tables.map((t) => [t.name, [...new Set(t.columns.filter((c) => c.fk && byName[c.fk.table]).map((c) => c.fk.table))]]),
  );
  const level = Object.fromEntries(tables.map((t) => [t.name, 0]));
  for (let pass = 0; pass < tables.length; pass++) {
    let changed = false;
    for (const t of tables) {
      for (const p of parents[t.name]) {
        if (p !== t.name && level[t.name] < level[p] + 1 && level[p] + 1 < tables.length) {
          level[t.name] = level[p] + 1;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  const layers = [];
  for (const t of tables) (layers[level[t.name]] ||= []).push(t);
  const pos = {};
  const BW = 190, HEAD = 24, ROW = 17, GAPX = 90, GAPY = 22, PAD = 16;
  const shown = (t) => {
    const cols = t.columns.filter((c) => c.pk || c.fk);
    return { cols, more: t.columns.length - cols.length };
  };
  const boxHeight = (t) => {
    const { cols, more } = shown(t);
    return HEAD + ROW * (cols.length + (more ? 1 : 0)) + 6;
  };
  let height = 0;
  layers.forEach((layer, li) => {
    if (li > 0) {
      // order by the mean position of the tables referenced: fewer crossings
      const rank = (t) => {
        const ps = parents[t.name].filter((p) => pos[p]);
        return ps.length ? ps.reduce((a, p) => a + pos[p].y, 0) / ps.length : Infinity;
      };
      layer.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
    }
    let yy = PAD;
    for (const t of layer) {
      pos[t.name] = { x: PAD + li * (BW + GAPX), y: yy, h: boxHeight(t) };
      yy += pos[t.name].h + GAPY;
    }
    height = Math.max(height, yy);
  });
  const width = PAD * 2 + layers.length * BW + (layers.length - 1) * GAPX;
  const svg = s("svg", {
    id: "relations",
    class: "diagram",
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
  });
  svg.append(s("title", { text: "tables and their foreign keys" }));
  svg.append(
    s(
      "defs",
      {},
      s(
        "marker",
        { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" },
        s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }),
      ),
    ),
  );
  const rowY = (t, col) => {
    const { cols } = shown(t);
    const i = cols.findIndex((c) => c.name === col);
    return pos[t.name].y + HEAD + ROW * Math.max(i, 0) + ROW / 2 + 2;
  };
  const edges = s("g", { class: "edges" });
  for (const t of tables) {
    for (const c of t.columns) {
      if (!c.fk || !byName[c.fk.table]) continue;
      const a = pos[t.name], b = pos[c.fk.table];
      const y1 = rowY(t, c.name), y2 = rowY(byName[c.fk.table], c.fk.column);
      let d;
      if (t.name === c.fk.table) {
        const xr = a.x + BW;
        d = `M${xr},${y1} C${xr + 40},${y1} ${xr + 40},${y2} ${xr},${y2}`;
      } else if (b.x < a.x) {
        const x1 = a.x, x2 = b.x + BW, mid = (x1 + x2) / 2;
        d = `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
      } else {
        const x1 = a.x + BW, x2 = b.x + BW, out = Math.max(x1, x2) + 30;
        d = `M${x1},${y1} C${out},${y1} ${out},${y2} ${x2},${y2}`;
      }
      edges.append(
        s("path", { d, class: "edge", "marker-end": "url(#arrow)" },
          s("title", { text: `${t.name}.${c.name} → ${c.fk.table}.${c.fk.column}` })),
      );
    }
  }
  svg.append(edges);
  for (const t of tables) {
    const p = pos[t.name];
    const { cols, more } = shown(t);
    const g = s("g", { class: "table-box", "data-table": t.name });
    g.append(s("rect", { x: p.x, y: p.y, width: BW, height: p.h, rx: 5, class: "box" }));
    g.append(s("rect", { x: p.x, y: p.y, width: BW, height: HEAD, rx: 5, class: "head" }));
    g.append(s("text", { x: p.x + 8, y: p.y + 16, class: "name", text: `${t.name} (${t.rows})` }));
    cols.forEach((c, i) => {
      const tag = c.pk && c.fk ? "PK FK" : c.pk ? "PK" : "FK";
      g.append(s("text", { x: p.x + 8, y: p.y + HEAD + ROW * (i + 1) - 3, class: "col", text: c.name }));
      g.append(s("text", { x: p.x + BW - 8, y: p.y + HEAD + ROW * (i + 1) - 3, class: "key", "text-anchor": "end", text: tag }));
    });
    if (more) {
      g.append(s("text", { x: p.x + 8, y: p.y + HEAD + ROW * (cols.length + 1) - 3, class: "more", text: `+ ${more} more column${more > 1 ? "s" : ""}` }));
    }
    svg.append(g);
  }
  return svg;
}
