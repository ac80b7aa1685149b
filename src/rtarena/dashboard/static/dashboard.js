"use strict";
const TOKEN = document.querySelector("meta[name=rtarena-token]").content;  // this session's, from the page
const view = document.getElementById("view");
// Every value from a run folder reaches the page as text: `html` templates escape each interpolated value
// (strings, numbers, arrays of templates) unless it is itself an `html` template, or `raw` for the charts'
// SVG that the report code builds (and escapes) on the server.
class Safe { constructor(text) { this.text = text; } toString() { return this.text; } }
const text = s => String(s ?? "").replace(/[&<>"'`]/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;","`":"&#96;"}[c]));
const esc = s => new Safe(text(s));
const render = v => v instanceof Safe ? v.text : Array.isArray(v) ? v.map(render).join("") : text(v);
const html = (strings, ...values) => new Safe(strings.reduce((out, s, i) => out + render(values[i - 1]) + s));
const raw = text => new Safe(String(text ?? ""));
const joined = (items, sep) => new Safe(items.map(render).join(text(sep)));
const num = v => v === null || v === undefined ? "—" : (Math.abs(v) >= 1000 || Number.isInteger(v) ? String(v) : Number(v).toPrecision(4));

async function api(path, params = {}, as = "json") {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== "" && v !== undefined));
  const response = await fetch(`/api/${path}?${query}`, {headers: {"X-Rtarena-Token": TOKEN}});
  if (!response.ok) {
    let message = response.statusText;
    try { message = (await response.json()).error; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  return as === "json" ? response.json() : as === "blob" ? response.blob() : response.text();
}

function route() {
  const [path, query] = (location.hash.slice(1) || "/runs").split("?");
  const params = Object.fromEntries(new URLSearchParams(query || ""));
  document.querySelectorAll("header a").forEach(a => a.classList.toggle("on", a.getAttribute("href") === "#" + path));
  const pages = {"/runs": runsPage, "/run": runPage, "/compare": comparePage, "/episode": replayPage, "/improve": improvePage};
  stopTimers();
  (pages[path] || runsPage)(params).catch(error => {
    view.innerHTML = html`<p class="error" id="page-error">${esc(error.message)}</p>`;
  });
}
let timers = [];
function stopTimers() { timers.forEach(clearInterval); timers = []; document.onkeydown = null; }
window.addEventListener("hashchange", route);

// ---- Runs ------------------------------------------------------------------------------------
async function runsPage(params) {
  view.innerHTML = html`<h2>Runs</h2><div class="bar">
    <input id="runs-search" placeholder="search runs, envs, agents" value="${esc(params.q || "")}">
    <select id="runs-status"><option value="">any status</option><option>complete</option>
      <option>stopped early</option><option>failed episodes</option><option>running</option></select>
    <button id="compare-selected">Compare selected</button><span class="muted" id="runs-count"></span></div>
    <table id="runs-table"><thead><tr><th></th><th>run</th><th>kind</th><th>envs</th><th>agents</th><th>clocks</th>
    <th>episodes</th><th>status</th></tr></thead><tbody></tbody></table>`;
  const search = document.getElementById("runs-search"), status = document.getElementById("runs-status");
  status.value = params.status || "";
  async function load() {
    const rows = await api("runs", {q: search.value, status: status.value});
    const body = view.querySelector("#runs-table tbody");
    const checked = new Set([...body.querySelectorAll("input:checked")].map(i => i.value));
    body.innerHTML = rows.map(r => html`<tr data-run="${esc(r.run_id)}">
      <td><input type="checkbox" value="${esc(r.run_id)}" ${checked.has(r.run_id) ? "checked" : ""}></td>
      <td><a href="#/${r.kind === "improve" ? "improve" : "run"}?run=${encodeURIComponent(r.run_id)}">${esc(r.run_id)}</a></td>
      <td>${esc(r.kind)}</td><td>${esc(r.envs.join(", "))}</td><td>${esc(r.agents.join("; "))}</td>
      <td>${esc(r.clocks.join("; "))}</td>
      <td class="num progress">${r.done}${r.expected ? " / " + r.expected : ""}${r.failed ? ` (${r.failed} failed)` : ""}</td>
      <td class="status-${esc(r.status.split(" ")[0])}">${esc(r.status)}</td></tr>`).join("");
    document.getElementById("runs-count").textContent = `${rows.length} runs`;
  }
  search.oninput = load; status.onchange = load;
  document.getElementById("compare-selected").onclick = () => {
    const runs = [...view.querySelectorAll("#runs-table tbody input:checked")].map(i => i.value);
    location.hash = "#/compare?runs=" + encodeURIComponent(runs.join(","));
  };
  await load();
  timers.push(setInterval(() => load().catch(() => {}), 2000));  // live progress of runs being written
}

// ---- One run: its episodes ---------------------------------------------------------------------
async function runPage(params) {
  const rows = await api("episodes", {run: params.run});
  view.innerHTML = html`<h2>Run ${esc(params.run)}</h2>
    <p><a href="#/compare?runs=${encodeURIComponent(params.run)}">compare agents in this run</a></p>
    <table id="episodes-table"><thead><tr><th>episode</th><th>status</th><th>env</th><th>seed</th><th>clock</th>
    <th>steps</th><th>sim s</th><th>decisions</th><th>scores</th></tr></thead><tbody>${rows.map(e => html`
    <tr data-episode="${esc(e.episode)}"><td><a href="#/episode?run=${encodeURIComponent(params.run)}&episode=${encodeURIComponent(e.episode)}">${esc(e.episode)}</a></td>
    <td>${esc(e.status)}${e.error ? html`<div class="error">${esc(e.error)}</div>` : ""}</td><td>${esc(e.env_id)}</td>
    <td class="num">${num(e.seed)}</td><td>${esc(e.clock)}</td><td class="num">${num(e.steps)}</td>
    <td class="num">${num(e.sim_seconds)}</td><td class="num">${num(e.decisions)}</td>
    <td>${esc(Object.entries(e.scores || {}).map(([a, s]) => `${a}=${num(s)}`).join(" "))}</td></tr>`)}</tbody></table>`;
}

// ---- Compare -----------------------------------------------------------------------------------
async function comparePage(params) {
  const filters = ["env", "clock", "delay", "agent"];
  const state = Object.fromEntries(filters.map(f => [f, params[f] || ""]));
  const runs = params.runs || "";
  view.innerHTML = html`<h2>Compare</h2><p class="muted">runs: <span id="compare-runs">${esc(runs || "all")}</span></p>
    <div class="bar">${filters.map(f => html`<label>${f} <select id="f-${f}"><option value="">all</option></select></label>`)}
    <button id="export-csv">Export CSV</button></div>
    <div id="compare-table"></div><div class="charts" id="charts"></div><div id="panels"></div>`;
  async function load() {
    const data = await api("compare", {runs, ...state});
    for (const f of filters) {
      const select = document.getElementById("f-" + f);
      select.innerHTML = html`<option value="">all</option>` + data.options[f].map(v => html`<option>${esc(v)}</option>`).join("");
      select.value = state[f];
    }
    // One table per game (level), with the metrics that game has: the demo's games in one table were about
    // 50 columns and 4,300 px wide, most cells empty (issue 47).
    const groups = new Map();
    for (const row of data.rows) {
      const level = row.level ?? "";
      if (!groups.has(level)) groups.set(level, []);
      groups.get(level).push(row);
    }
    const columns = data.columns.filter(c => c !== "level");
    document.getElementById("compare-table").innerHTML = joined([...groups].map(([level, rows]) => {
      const metrics = data.metrics.filter(m => rows.some(row => row[m].n > 0));
      return html`<section class="compare-group" data-level="${esc(level)}"><h3>${esc(level || "(no level)")}</h3>
        <table><thead><tr>${columns.map(c => html`<th>${esc(c)}</th>`)}
        ${metrics.map(m => html`<th>${esc(m)}</th>`)}</tr></thead><tbody>${rows.map(row => html`<tr>
        ${columns.map(c => html`<td>${esc(row[c])}</td>`)}
        ${metrics.map(m => html`<td class="num" data-metric="${esc(m)}" data-mean="${row[m].mean ?? ""}" data-n="${row[m].n}">
          ${num(row[m].mean)}${row[m].se !== null ? " ± " + Number(row[m].se).toPrecision(2) : ""}</td>`)}</tr>`)}</tbody></table></section>`;
    }), "");
    document.getElementById("charts").innerHTML = data.charts.map(c => html`<figure data-chart="${esc(c.name)}">${raw(c.svg)}</figure>`).join("");
    // Panels are HTML built by the report code from the store's numbers (no page input reaches them).
    document.getElementById("panels").innerHTML = data.panels.map(p => html`<section class="panel" data-title="${esc(p.title)}">
      <h3>${esc(p.title)}</h3>${raw(p.html)}</section>`).join("");
  }
  for (const f of filters) {
    document.getElementById("f-" + f).onchange = event => { state[f] = event.target.value; load(); };
  }
  document.getElementById("export-csv").onclick = async () => {
    const blob = await api("compare.csv", {runs, ...state}, "blob");
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob); link.download = "compare.csv"; link.click();
  };
  await load();
}

// ---- Episode replay ----------------------------------------------------------------------------
async function replayPage(params) {
  const data = await api("episode", {run: params.run, episode: params.episode});
  const line = data.line, decisions = data.decisions, events = data.events;
  const dt = line.steps ? line.sim_seconds / line.steps : 0.1;
  const end = Math.max(line.sim_seconds || 0, ...decisions.map(d => d.applied_sim_s ?? d.committed_sim_s ?? 0), dt);
  const controllers = [...new Set(decisions.map(d => d.controller))];
  const width = 760, left = 90, row = 26, top = 20;
  const x = t => left + (width - left - 10) * (t / end);
  const height = top + row * (controllers.length + 1) + 10;
  view.innerHTML = html`<h2>Episode ${esc(params.episode)}</h2>
    <p class="muted"><a href="#/run?run=${encodeURIComponent(params.run)}">run ${esc(params.run)}</a> ·
    ${esc(line.env_id)} · seed ${num(line.seed)} · ${num(line.steps)} steps · ${decisions.length} decisions ·
    space plays/pauses, arrows step</p>
    <div id="replay"><div><img id="frame" alt="frame"${data.frames ? "" : " hidden"}><div class="bar">
      <button id="play">▶</button><input type="range" id="scrubber" min="0" max="${Math.max(0, data.frames - 1)}" value="0" style="flex:1">
      <span id="frame-time" class="muted"></span></div>
      <p class="muted" id="frame-note">${data.frames ? html`${data.frames} frames (${data.frame_kind})` : "no frames recorded for this episode (run with --video)"}</p></div>
    <div><svg id="timeline" viewBox="0 0 ${width} ${height}" data-end="${end}">
      <line x1="${left}" x2="${width - 10}" y1="${top - 4}" y2="${top - 4}" stroke="#98a2b3"/>
      ${[0, .25, .5, .75, 1].map(f => html`<text x="${x(end * f)}" y="${top - 8}" font-size="9" text-anchor="middle">${num(end * f)} s</text>`)}
      ${controllers.map((c, i) => html`<text x="4" y="${top + row * i + 15}" font-size="11">${esc(c)}</text>`)}
      <text x="4" y="${top + row * controllers.length + 15}" font-size="11">events</text>
      ${decisions.map(d => {
        const y = top + row * controllers.indexOf(d.controller) + 4;
        const obs = d.obs_sim_s, commit = d.committed_sim_s, applied = d.applied_sim_s;
        const color = d.error ? "#d92d20" : d.valid === false ? "#f79009" : "#2e90fa";
        return html`<g class="decision" data-index="${d.index}" data-controller="${esc(d.controller)}" data-obs="${obs}" data-commit="${commit}" data-applied="${applied ?? ""}">
          <rect x="${x(obs)}" y="${y}" width="${Math.max(1, x(commit) - x(obs))}" height="12" fill="${color}" opacity=".75"/>
          ${applied !== null && applied !== undefined ? html`<rect x="${x(commit)}" y="${y + 4}" width="${Math.max(1, x(applied) - x(commit))}" height="4" fill="#12b76a"/>` : ""}
          <rect x="${x(obs)}" y="${y - 2}" width="${Math.max(6, x(applied ?? commit) - x(obs))}" height="16" fill="transparent"/></g>`;
      })}
      ${events.map(e => html`<line class="event" data-type="${esc(e.type)}" data-sim="${e.sim_s}" x1="${x(e.sim_s || 0)}" x2="${x(e.sim_s || 0)}"
        y1="${top + row * controllers.length + 4}" y2="${top + row * controllers.length + 18}" stroke="#7a5af8"><title>${esc(e.type)} ${num(e.sim_s)} s</title></line>`)}
      <line id="playhead" x1="${left}" x2="${left}" y1="${top - 4}" y2="${height}" stroke="#101828" stroke-width="1.5"/>
    </svg><div id="decision-detail" class="muted">click a decision bar: the observation it used, when it committed and when it applied</div></div></div>`;
  const scrubber = document.getElementById("scrubber"), img = document.getElementById("frame");
  const playhead = document.getElementById("playhead"), label = document.getElementById("frame-time");
  let current = null, loading = 0;
  async function show(i) {
    i = Math.max(0, Math.min(Number(scrubber.max), i));
    scrubber.value = i;
    const t = i * dt;
    playhead.setAttribute("x1", x(t)); playhead.setAttribute("x2", x(t));
    label.textContent = `frame ${i} · sim ${t.toFixed(2)} s`;
    img.dataset.index = i;
    if (!data.frames) return;
    const ticket = ++loading;
    const blob = await api("frame", {run: params.run, episode: params.episode, i}, "blob");
    if (ticket !== loading) return;
    if (current) URL.revokeObjectURL(current);
    current = URL.createObjectURL(blob);
    img.src = current; img.dataset.loaded = i;
  }
  scrubber.oninput = () => show(Number(scrubber.value));
  let playing = null;
  const toggle = () => {
    if (playing) { clearInterval(playing); playing = null; document.getElementById("play").textContent = "▶"; return; }
    document.getElementById("play").textContent = "⏸";
    playing = setInterval(() => {
      if (Number(scrubber.value) >= Number(scrubber.max)) { toggle(); return; }
      show(Number(scrubber.value) + 1);
    }, Math.max(40, dt * 1000));
    timers.push(playing);
  };
  document.getElementById("play").onclick = toggle;
  document.onkeydown = event => {
    if (event.target.tagName === "INPUT" && event.target.type !== "range") return;
    const step = event.shiftKey ? 10 : 1;
    if (event.key === " ") { event.preventDefault(); toggle(); }
    else if (event.key === "ArrowRight") { event.preventDefault(); show(Number(scrubber.value) + step); }
    else if (event.key === "ArrowLeft") { event.preventDefault(); show(Number(scrubber.value) - step); }
  };
  view.querySelectorAll("g.decision").forEach(g => g.onclick = () => {
    const d = decisions.find(item => String(item.index) === g.dataset.index && item.controller === g.dataset.controller);
    document.getElementById("decision-detail").textContent =
      `decision ${d.index} of ${d.controller}\nobservation at sim ${num(d.obs_sim_s)} s (version ${d.obs_version})\n` +
      `committed at sim ${num(d.committed_sim_s)} s, applied ${d.applied_sim_s === null ? "never" : "at sim " + num(d.applied_sim_s) + " s (step " + d.applied_step + ")"}\n` +
      `wall latency ${num(d.wall_latency_s)} s · tokens in ${d.tokens_in} out ${d.tokens_out} (${d.tokens_source})\n` +
      `parsed: ${d.valid ? "yes" : "no"}${d.error ? "\nerror: " + d.error : ""}\naction: ${typeof d.action === "string" ? d.action : JSON.stringify(d.action)}\n` +
      `model text:\n${d.text ?? "(none)"}`;
    const frame = Math.round(d.obs_sim_s / dt);
    show(frame);
  });
  await show(0);
}

// ---- Improvement run ---------------------------------------------------------------------------
// An improvement run's metrics (`metrics.json`, `transfer.json`) as tables and a chart, not raw JSON: plain
// values in one table, intervals (mean, lo, hi, n) in another with a bar chart of their means and bounds,
// lists of records (each round's interval, each transfer variant) as tables, long texts as text.
const isInterval = v => v !== null && typeof v === "object" && !Array.isArray(v) && "mean" in v;
const shown = v => isInterval(v) ? `${num(v.mean)} [${num(v.lo)}, ${num(v.hi)}]` :
  Array.isArray(v) ? v.map(num).join(", ") : typeof v === "number" ? num(v) : String(v ?? "—");

function intervalChart(intervals) {
  const values = intervals.flatMap(([, v]) => [v.lo ?? v.mean, v.hi ?? v.mean, v.mean]).filter(v => v !== null);
  const lo = Math.min(0, ...values), hi = Math.max(1e-9, ...values);
  const w = 460, row = 22, pad = 150, h = intervals.length * row + 20;
  const x = v => pad + (w - pad - 20) * ((v - lo) / (hi - lo || 1));
  return html`<svg class="interval-chart" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}">
    <line x1="${x(0)}" x2="${x(0)}" y1="0" y2="${h - 14}" stroke="#98a2b3"/>
    ${intervals.map(([name, v], i) => html`<g data-metric="${esc(name)}"><text x="${pad - 6}" y="${i * row + 15}" font-size="11" text-anchor="end">${esc(name)}</text>
      <rect x="${Math.min(x(0), x(v.mean ?? 0))}" y="${i * row + 5}" width="${Math.abs(x(v.mean ?? 0) - x(0))}" height="12" fill="#2e90fa" opacity=".7"/>
      <line x1="${x(v.lo ?? v.mean ?? 0)}" x2="${x(v.hi ?? v.mean ?? 0)}" y1="${i * row + 11}" y2="${i * row + 11}" stroke="#1849a9" stroke-width="2"/></g>`)}
    <text x="${pad}" y="${h - 2}" font-size="10">${esc(num(lo))}</text><text x="${w - 20}" y="${h - 2}" font-size="10" text-anchor="end">${esc(num(hi))}</text></svg>`;
}

function recordsTable(name, items) {
  const columns = [...new Set(items.flatMap(item => isInterval(item) || typeof item !== "object" ? [] : Object.keys(item)))];
  const intervals = items.every(isInterval);
  return html`<table class="metric-list" data-name="${esc(name)}"><caption>${esc(name)}</caption><thead><tr><th>#</th>
    ${intervals ? html`<th>mean</th><th>lo</th><th>hi</th><th>n</th>` : columns.map(c => html`<th>${esc(c)}</th>`)}</tr></thead>
    <tbody>${items.map((item, i) => html`<tr><td>${i}</td>${intervals
      ? ["mean", "lo", "hi", "n"].map(k => html`<td class="num">${num(item[k])}</td>`)
      : columns.map(c => html`<td class="num">${esc(shown(item[c]))}</td>`)}</tr>`)}</tbody></table>`;
}

function metricsView(data) {
  const entries = Object.entries(data);
  const intervals = entries.filter(([, v]) => isInterval(v));
  const lists = entries.filter(([, v]) => Array.isArray(v) && v.length && typeof v[0] === "object");
  const texts = entries.filter(([, v]) => typeof v === "string" && v.includes("\n"));
  const plain = entries.filter(e => !intervals.includes(e) && !lists.includes(e) && !texts.includes(e));
  return html`<div class="metrics-view">
    ${plain.length ? html`<table class="metric-values"><tbody>${plain.map(([k, v]) => html`<tr data-metric="${esc(k)}"><th>${esc(k)}</th><td class="num">${esc(shown(v))}</td></tr>`)}</tbody></table>` : ""}
    ${intervals.length ? html`<table class="metric-intervals"><thead><tr><th>metric</th><th>mean</th><th>lo</th><th>hi</th><th>n</th></tr></thead><tbody>
      ${intervals.map(([k, v]) => html`<tr data-metric="${esc(k)}"><th>${esc(k)}</th>${["mean", "lo", "hi", "n"].map(p => html`<td class="num">${num(v[p])}</td>`)}</tr>`)}</tbody></table>
      <div class="charts">${intervalChart(intervals)}</div>` : ""}
    ${lists.map(([k, v]) => recordsTable(k, v))}
    ${texts.map(([k, v]) => html`<details><summary>${esc(k)}</summary><pre>${esc(v)}</pre></details>`)}</div>`;
}

async function improvePage(params) {
  const data = await api("improve", {run: params.run});
  const rounds = data.rounds.filter(r => r.mean !== null);
  const values = rounds.flatMap(r => [r.lo ?? r.mean, r.hi ?? r.mean]);
  const lo = Math.min(0, ...values), hi = Math.max(1e-9, ...values);
  const w = 560, h = 240, pad = 40;
  const x = i => pad + (w - 2 * pad) * (rounds.length > 1 ? i / (rounds.length - 1) : 0.5);
  const y = v => h - pad - (h - 2 * pad) * ((v - lo) / (hi - lo || 1));
  const band = rounds.length ? `M ${rounds.map((r, i) => `${x(i)} ${y(r.hi ?? r.mean)}`).join(" L ")} L ${rounds.map((r, i) => `${x(i)} ${y(r.lo ?? r.mean)}`).reverse().join(" L ")} Z` : "";
  view.innerHTML = html`<h2>Improvement run ${esc(params.run)}</h2>
    <svg id="curve" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" style="background:#fff;border:1px solid #e3e6ea">
      <path d="${band}" fill="#2e90fa" opacity=".18"/>
      <polyline points="${rounds.map((r, i) => `${x(i)},${y(r.mean)}`).join(" ")}" fill="none" stroke="#2e90fa" stroke-width="2"/>
      ${rounds.map((r, i) => html`<circle class="round-point" data-round="${esc(r.round)}" data-mean="${r.mean}" cx="${x(i)}" cy="${y(r.mean)}" r="4" fill="#1849a9"/>
        ${r.rollback ? html`<text class="rollback-mark" x="${x(i)}" y="${y(r.mean) - 9}" font-size="11" text-anchor="middle" fill="#d92d20">rollback</text>` : ""}
        <text x="${x(i)}" y="${h - pad + 14}" font-size="10" text-anchor="middle">${i}</text>`)}
      <text x="${pad}" y="14" font-size="11">round mean score with its confidence band</text></svg>
    <h3>Metrics</h3><div id="improve-metrics">${metricsView(data.metrics || {})}</div>
    ${data.transfer ? html`<h3>Transfer</h3><div id="improve-transfer">${metricsView(data.transfer)}</div>` : ""}
    ${data.rounds.map(r => html`<section class="round" data-round="${esc(r.round)}"><h3>${esc(r.round)}
      ${r.rollback ? html`<span class="error">rollback</span>` : ""} <span class="muted">${esc(r.skill_source || "")}</span>
      <a href="#/run?run=${encodeURIComponent(params.run + "/" + r.round)}">episodes</a></h3>
      <details open><summary>skill played (diff against the previous round)</summary><pre class="skill-diff">${joined(r.skill_diff.map(d =>
        html`<span class="${d.op === "+" ? "diff-add" : d.op === "-" ? "diff-del" : ""}">${esc(d.op + " " + d.line)}</span>`), "\n")}</pre></details>
      ${r.texts["diagnosis.md"] ? html`<details><summary>diagnosis</summary><pre>${esc(r.texts["diagnosis.md"])}</pre></details>` : ""}
      ${r.verdicts.length ? html`<details><summary>judge verdicts (${r.verdicts.length})</summary><pre class="verdicts">${esc(r.verdicts.map(v => JSON.stringify(v)).join("\n"))}</pre></details>` : ""}
      ${r.texts["lints.md"] ? html`<details><summary>lints</summary><pre>${esc(r.texts["lints.md"])}</pre></details>` : ""}
    </section>`)}`;
}

route();
