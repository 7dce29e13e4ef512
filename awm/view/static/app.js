// The viewer's router: one page per hash route, rendered from the JSON API.
//   #/                                    runs and environments
//   #/runs/<run>                          a run's tasks and trials, failures first
//   #/runs/<run>/<env>/<task>/<trial>     an episode: why it failed, Φ, every step
//   #/envs, #/envs/<env>                  environments; one environment's schema, rows, tools, tasks
//   #/compare, #/compare/<run>,<run>...   runs side by side

import { api, errorBox, mount } from "./dom.js";
import { envPage } from "./envs.js";
import { episodePage } from "./episode.js";
import { comparePage, comparePicker, envsPage, homePage, runPage } from "./runs.js";

const main = document.getElementById("main");
const keys = { handler: null };
let rendering = 0;

const ROUTES = [
  [/^$/, "runs", (view) => homePage(view)],
  [/^runs\/([^/]+)$/, "runs", (view, m) => runPage(view, m[1])],
  [/^runs\/([^/]+)\/([^/]+)\/([^/]+)\/(\d+)$/, "runs", (view, m, k) => episodePage(view, m[1], m[2], m[3], m[4], k)],
  [/^envs$/, "envs", (view) => envsPage(view)],
  [/^envs\/([^/]+)$/, "envs", (view, m) => envPage(view, m[1])],
  [/^compare$/, "compare", (view) => comparePicker(view)],
  [/^compare\/(.+)$/, "compare", (view, m) => comparePage(view, m[1])],
];

// Each page renders into a detached element, shown only if no newer navigation happened meanwhile.
async function render() {
  const path = location.hash.replace(/^#\/?/, "").replace(/\/$/, "");
  const id = ++rendering;
  keys.handler = null;
  for (const [re, nav, page] of ROUTES) {
    const m = path.match(re);
    if (!m) continue;
    document.querySelectorAll("header nav a").forEach((a) => a.classList.toggle("active", a.dataset.nav === nav));
    const args = m.map((x, i) => (i === 0 ? x : decodeURIComponent(x)));
    const view = document.createElement("div");
    const pageKeys = { handler: null };
    main.setAttribute("aria-busy", "true");
    try {
      await page(view, args, pageKeys);
    } catch (e) {
      mount(view, errorBox(e));
    }
    if (id !== rendering) return;
    main.removeAttribute("aria-busy");
    main.dataset.page = nav;
    keys.handler = pageKeys.handler;
    mount(main, view);
    window.scrollTo(0, 0);
    return;
  }
  mount(main, errorBox(new Error(`no page #/${path}`)));
}

document.addEventListener("keydown", (e) => keys.handler && keys.handler(e));
window.addEventListener("hashchange", render);
api("info")
  .then((info) => {
    document.getElementById("answers-flag").hidden = !info.show_answers;
  })
  .catch(() => {});
render();
