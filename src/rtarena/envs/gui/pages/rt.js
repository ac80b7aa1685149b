// rtarena page runtime: the task contract (BrowserGym's setup / validate / cheat), a seeded RNG, the task
// state the scorer reads, and the marks (Set-of-Marks) of interactable elements.
// All dynamics must come from JS timers / requestAnimationFrame: Playwright's clock drives those.
//
// A task page defines its task once: RT.define({ setup(cfg) { ...; return { cheat } } }). The env then calls
//   RT.setup(cfg)        once per page load: seeds the RNG and runs the task's setup (cfg: seed, dt, params);
//   RT.validate()        after every step: {done, success, progress, why}, as the page's logic recorded it;
//   RT.cheat(lead, per.) the task's own solution for the page as it is now, in the agents' action strings.
// A page opened with ?cfg=... (a person's browser) sets itself up from the URL.
"use strict";
const RT = (() => {
  const query = new URLSearchParams(location.search);
  let cfg = {}, params = {}, T0 = Date.now();
  // mulberry32: small, fast, and the same on every browser for the same seed
  let s = 0;
  function random() {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1)); // inclusive
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const shuffle = (xs) => { const a = xs.slice(); for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(random() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; } return a; };

  const task = { done: false, success: false, progress: 0, why: "", vars: {} };
  const events = [];
  window.__task = task;

  function now() { return (Date.now() - T0) / 1000; }
  function event(e) { events.push(Object.assign({ t: Math.round(now() * 1000) / 1000 }, e)); }
  function progress(p) { if (!task.done) task.progress = Math.max(task.progress, Math.min(1, Math.max(0, p))); }
  function finish(success, why) {
    if (task.done) return;
    task.done = true; task.success = !!success; task.why = why;
    if (success) task.progress = 1;
    event({ type: success ? "task_success" : "task_failure", why });
  }
  function vars(v) { Object.assign(task.vars, v); }

  // -- DOM helpers ------------------------------------------------------------------------------
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "class") el.className = v;
      else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return el;
  }
  const fmt = (x) => x.toFixed(1);
  // multi-page sites in one document: <section class="view" data-view="cart">; show(name) hides the others
  let current = null;
  function show(name) { for (const v of $$("section.view")) v.hidden = v.dataset.view !== name; current = name; event({ type: "page", view: name }); }
  const view = () => current;
  const money = (x) => "$" + x.toFixed(2);
  function countdown(el, endS, label) {
    const draw = () => { el.textContent = `${label} ${fmt(Math.max(0, endS - now()))} s`; };
    draw(); setInterval(draw, 100);
  }

  // -- Set-of-Marks --------------------------------------------------------------------------------
  let nextMark = 1;
  const SELECTOR = "a[href],button,input,select,textarea,[role=button],[data-mark],canvas";
  function roleOf(el) {
    const tag = el.tagName.toLowerCase();
    if (el.getAttribute("role")) return el.getAttribute("role");
    if (tag === "input") {
      const type = (el.getAttribute("type") || "text").toLowerCase();
      return ["checkbox", "radio", "range"].includes(type) ? type : (type === "submit" || type === "button") ? "button" : "textbox";
    }
    return { a: "link", textarea: "textbox", select: "combobox", canvas: "canvas" }[tag] || (el.dataset.role || "button");
  }
  function textOf(el) {
    let t = el.getAttribute("aria-label") || "";
    if (!t && (el.tagName === "INPUT" || el.tagName === "TEXTAREA")) {
      const lab = el.id && document.querySelector(`label[for="${el.id}"]`);
      t = (el.type === "checkbox" || el.type === "radio") ? (lab ? lab.innerText : el.value)
        : (el.value || el.placeholder || (lab ? lab.innerText : ""));
    }
    if (!t) t = el.innerText || el.title || "";
    return t.replace(/\s+/g, " ").trim().slice(0, 80);
  }
  function marks() {
    const out = [];
    const W = window.innerWidth, H = window.innerHeight;
    for (const el of $$(SELECTOR)) {
      if (el.disabled || el.closest("[hidden],[inert]")) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 2 || r.height < 2 || r.right <= 0 || r.bottom <= 0 || r.left >= W || r.top >= H) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none" || Number(style.opacity) === 0) continue;
      const cx = Math.min(W - 1, Math.max(0, r.left + r.width / 2)), cy = Math.min(H - 1, Math.max(0, r.top + r.height / 2));
      const hit = document.elementFromPoint(cx, cy);
      if (hit && !el.contains(hit) && !(hit.tagName === "LABEL" && hit.control === el)) continue; // covered
      if (!el.dataset.rtMark) el.dataset.rtMark = String(nextMark++);
      const role = roleOf(el);
      const m = { id: Number(el.dataset.rtMark), role, text: textOf(el),
        box: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)],
        actions: role === "textbox" ? ["click", "type"] : role === "canvas" ? ["click", "key"] : ["click"] };
      if (role === "checkbox" || role === "radio") m.checked = el.checked;
      out.push(m);
    }
    return out;
  }
  // The mark id of an element, as the oracle refers to it (the element must have been marked already).
  function id(el) { return el && el.dataset.rtMark ? Number(el.dataset.rtMark) : null; }

  // -- the task contract --------------------------------------------------------------------------------
  const api = {};
  let definition = null, episode = null;
  // The page's task: setup(cfg) builds this episode's page from cfg (the seed, dt and the TOML params, also
  // RT.cfg and RT.params) and returns {cheat, inspect?}: cheat() reads the state setup built, so it is made there.
  function define(def) {
    if (definition) throw new Error("RT.define: a page defines one task");
    definition = def;
    if (query.has("cfg")) setup(JSON.parse(query.get("cfg")));
  }
  function setup(c) {
    if (!definition) throw new Error("RT.setup: the page defined no task (RT.define)");
    if (episode) throw new Error("RT.setup: one episode per page load (navigate anew for the next)");
    api.cfg = cfg = c || {}; api.params = params = cfg.params || {};
    s = (cfg.seed >>> 0) ^ 0x9e3779b9; T0 = Date.now();
    episode = definition.setup(cfg) || {};
    return task.vars; // the goal's values (BrowserGym's setup returns the goal)
  }
  // The task's verdict: the page's own logic decides it (RT.progress / RT.finish) as its events happen.
  function validate() { return { done: task.done, success: task.success, progress: task.progress, why: task.why }; }
  // lead: page seconds from now until the action will be applied (a costly decision lands later); period: page
  // seconds between the solver's decisions taking effect (dt when thinking is free). The solution reads both
  // as RT.lead and RT.period and plans for those moments.
  function cheat(lead, period) {
    api.lead = Math.max(0, lead || 0); api.period = period || cfg.dt || 0.25;
    if (task.done || !episode || !episode.cheat) return "wait()";
    try { return episode.cheat() || "wait()"; } catch (e) { api.cheatError = String(e); return "wait()"; } // for debugging a page
  }
  // The task's internals (tests and debugging only; no agent reads the page).
  function inspect() { return episode && episode.inspect ? episode.inspect() : null; }

  // -- what the env reads each step --------------------------------------------------------------------
  function snapshot(wantText) {
    const out = { task: validate(), vars: task.vars, events: events.splice(0), marks: marks(), elapsed_s: now() };
    if (wantText) out.text = (document.body.innerText || "").slice(0, 6000);
    return JSON.stringify(out);
  }
  const q = (s) => JSON.stringify(String(s)); // a quoted string argument for an action

  return Object.assign(api, { cfg, params, random, int, pick, shuffle, now, event, progress, finish, vars, task,
    $, $$, h, fmt, money, show, view, countdown, marks, id, snapshot, define, setup, validate, cheat, inspect, q,
    lead: 0, period: 0.25 });
})();
