"use strict";
const TOKEN = document.querySelector("meta[name=rtarena-token]").content;  // this session's, from the page
const canvas = document.getElementById("map"), ctx = canvas.getContext("2d");
const $ = (id) => document.getElementById(id);
const POINTS = ["spawns", "coins", "turrets", "ammo", "chickens"];
const AREAS = ["ammo_areas", "chicken_areas"];
// The arena's one top-down palette (render/palette.py, as `rtarena map render` and the minimap draw),
// from the server's /api/state.
let PALETTE = null, COLOURS = null, TEAMS = null, RADII = null;
const editor = {map: null, tool: "wall", drag: null, problems: [], heights: {wall: 3.0, crate: 0.9}, busy: 0};
window.editor = editor;

const size = () => editor.map.size_m;
const scale = () => canvas.width / size();
const snap = (v) => Math.round(v * 2) / 2;
editor.toPx = (x, y) => { const r = canvas.getBoundingClientRect();
  return [r.left + x * scale() * r.width / canvas.width, r.top + (size() - y) * scale() * r.height / canvas.height]; };
function toM(ev) { const r = canvas.getBoundingClientRect();
  const x = (ev.clientX - r.left) * canvas.width / r.width / scale();
  const y = size() - (ev.clientY - r.top) * canvas.height / r.height / scale();
  return [Math.max(0, Math.min(size(), x)), Math.max(0, Math.min(size(), y))]; }
const round3 = (v) => Math.round(v * 1000) / 1000;

function draw() {
  const k = scale(), s = size();
  ctx.fillStyle = COLOURS.floor; ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.strokeStyle = COLOURS.grid; ctx.lineWidth = 1;
  for (let m = 0; m <= s; m += 5) { ctx.beginPath(); ctx.moveTo(m * k, 0); ctx.lineTo(m * k, canvas.height); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(0, m * k); ctx.lineTo(canvas.width, m * k); ctx.stroke(); }
  const rect = (x0, y0, x1, y1) => [Math.min(x0, x1) * k, (s - Math.max(y0, y1)) * k, Math.abs(x1 - x0) * k, Math.abs(y1 - y0) * k];
  for (const key of AREAS) for (const a of editor.map[key] || []) {
    ctx.strokeStyle = COLOURS[key]; ctx.lineWidth = 2; ctx.setLineDash([6, 4]); ctx.strokeRect(...rect(...a)); ctx.setLineDash([]); }
  for (const o of editor.map.obstacles || []) {
    ctx.fillStyle = (o[5] || "wall") === "crate" ? COLOURS.crate : COLOURS.wall; ctx.fillRect(...rect(o[0], o[1], o[2], o[3]));
    ctx.fillStyle = "#000"; ctx.font = "10px sans-serif";
    ctx.fillText(o[4].toFixed(1), Math.min(o[0], o[2]) * k + 2, (s - Math.max(o[1], o[3])) * k + 10); }
  for (const key of POINTS) (editor.map[key] || []).forEach((p, i) => {
    ctx.beginPath(); ctx.arc(p[0] * k, (s - p[1]) * k, Math.max(4, RADII[key] * k), 0, 7);
    ctx.fillStyle = key === "spawns" ? TEAMS[(p.length > 2 ? p[2] : i) % TEAMS.length] : COLOURS[key];
    ctx.fill(); ctx.strokeStyle = "#000"; ctx.lineWidth = 1; ctx.stroke(); });
  const bad = new Set(editor.problems.map((p) => p.field));
  for (const key of [...POINTS, "obstacles", ...AREAS]) (editor.map[key] || []).forEach((p, i) => {
    if (!bad.has(`${key}[${i}]`)) return;
    ctx.strokeStyle = "#f0f"; ctx.lineWidth = 3;
    if (p.length >= 4 && key !== "spawns") ctx.strokeRect(...rect(p[0], p[1], p[2], p[3]));
    else { ctx.beginPath(); ctx.arc(p[0] * k, (s - p[1]) * k, 1.4 * k + 4, 0, 7); ctx.stroke(); } });
  if (editor.drag && editor.drag.rect) { ctx.strokeStyle = "#000"; ctx.lineWidth = 1;
    ctx.strokeRect(...rect(...editor.drag.start, ...editor.drag.now)); }
  if (editor.drag && editor.drag.view) { ctx.strokeStyle = "#00f"; ctx.lineWidth = 2; ctx.beginPath();
    ctx.moveTo(editor.drag.start[0] * k, (s - editor.drag.start[1]) * k); ctx.lineTo(editor.drag.now[0] * k, (s - editor.drag.now[1]) * k); ctx.stroke(); }
}

async function api(route, body) {
  editor.busy++;
  try {
    const headers = {"X-Rtarena-Token": TOKEN};
    const r = await fetch(route, body === undefined ? {headers: headers} : {method: "POST", headers: {...headers, "Content-Type": "application/json"}, body: JSON.stringify(body)});
    const data = await r.json();
    if (data.error) { $("status").textContent = data.error; }
    return data;
  } finally { editor.busy--; }
}
function showProblems(problems) {
  editor.problems = problems || [];
  const ul = $("problems"); ul.innerHTML = "";
  ul.className = editor.problems.length ? "" : "ok";
  if (!editor.problems.length) { const li = document.createElement("li"); li.textContent = "no problems"; ul.appendChild(li); }
  for (const p of editor.problems) { const li = document.createElement("li"); li.textContent = p.line; li.dataset.field = p.field; ul.appendChild(li); }
  draw();
}
let timer = null;
function changed() { draw(); clearTimeout(timer); timer = setTimeout(validate, 120); }
async function validate() { const d = await api("/api/validate", {map: editor.map}); if (d.problems) showProblems(d.problems); }

function hit(x, y) {  // the topmost thing at (x, y): [key, index]
  for (const key of [...POINTS].reverse()) { const list = editor.map[key] || [];
    for (let i = list.length - 1; i >= 0; i--) if (Math.hypot(list[i][0] - x, list[i][1] - y) < 1.0) return [key, i]; }
  for (const key of ["obstacles", ...AREAS]) { const list = editor.map[key] || [];
    for (let i = list.length - 1; i >= 0; i--) { const o = list[i];
      if (x >= Math.min(o[0], o[2]) && x <= Math.max(o[0], o[2]) && y >= Math.min(o[1], o[3]) && y <= Math.max(o[1], o[3])) return [key, i]; } }
  return null;
}

canvas.addEventListener("mousedown", (ev) => {
  const [x, y] = toM(ev), t = editor.tool;
  if (t === "wall" || t === "crate" || AREAS.includes(t)) editor.drag = {rect: true, start: [snap(x), snap(y)], now: [snap(x), snap(y)]};
  else if (t === "view") editor.drag = {view: true, start: [x, y], now: [x, y]};
  else if (t === "move") { const h = hit(x, y); if (h) editor.drag = {move: h, last: [x, y]}; }
  else if (t === "erase") { const h = hit(x, y); if (h) { editor.map[h[0]].splice(h[1], 1); changed(); } }
  else if (POINTS.includes(t)) { const p = [round3(snap(x)), round3(snap(y))];
    if (t === "spawns" && $("team").value !== "") p.push(parseInt($("team").value, 10));
    (editor.map[t] = editor.map[t] || []).push(p); changed(); }
});
canvas.addEventListener("mousemove", (ev) => {
  if (!editor.drag) return;
  const [x, y] = toM(ev);
  if (editor.drag.rect) editor.drag.now = [snap(x), snap(y)];
  else if (editor.drag.view) editor.drag.now = [x, y];
  else if (editor.drag.move) { const [key, i] = editor.drag.move, item = editor.map[key][i];
    const dx = snap(x) - snap(editor.drag.last[0]), dy = snap(y) - snap(editor.drag.last[1]);
    if (dx || dy) { item[0] = round3(item[0] + dx); item[1] = round3(item[1] + dy);
      if (key === "obstacles" || AREAS.includes(key)) { item[2] = round3(item[2] + dx); item[3] = round3(item[3] + dy); }
      editor.drag.last = [x, y]; } }
  draw();
});
canvas.addEventListener("mouseup", async (ev) => {
  const d = editor.drag; editor.drag = null;
  if (!d) return;
  if (d.rect) { const [x0, y0] = d.start, [x1, y1] = d.now;
    if (x0 !== x1 && y0 !== y1) { const r = [Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)];
      if (AREAS.includes(editor.tool)) (editor.map[editor.tool] = editor.map[editor.tool] || []).push(r);
      else (editor.map.obstacles = editor.map.obstacles || []).push([...r, parseFloat($("height").value), editor.tool]); }
    changed(); }
  else if (d.view) { const yaw = Math.atan2(d.now[1] - d.start[1], d.now[0] - d.start[0]) * 180 / Math.PI;
    await preview(d.start[0], d.start[1], (d.now[0] === d.start[0] && d.now[1] === d.start[1]) ? 0 : yaw); draw(); }
  else if (d.move) changed();
});
async function preview(x, y, yaw) {
  const r = await api("/api/preview", {map: editor.map, x: x, y: y, yaw_deg: yaw});
  if (r.png) { $("preview").src = "data:image/png;base64," + r.png; $("preview").dataset.shown = "1"; }
}
editor.preview = preview;

for (const b of document.querySelectorAll("button.tool")) b.addEventListener("click", () => setTool(b.dataset.tool));
function setTool(t) { editor.tool = t;
  for (const b of document.querySelectorAll("button.tool")) b.classList.toggle("active", b.dataset.tool === t);
  if (t === "wall" || t === "crate") $("height").value = editor.heights[t]; }
$("size").addEventListener("change", () => { editor.map.size_m = parseFloat($("size").value); changed(); });
$("generate").addEventListener("click", async () => {
  const r = await api("/api/generate", {seed: parseInt($("seed").value, 10), style: $("style").value});
  if (r.map) { editor.map = r.map; $("size").value = r.map.size_m; showProblems(r.problems); $("status").textContent = "generated"; } });
$("save").addEventListener("click", async () => {
  const r = await api("/api/save", {map: editor.map, path: $("path").value});
  if (r.saved) { $("path").value = r.saved; showProblems(r.problems);
    $("status").textContent = "saved " + r.saved + (r.problems.length ? ` (${r.problems.length} problems)` : ""); } });
$("level").addEventListener("change", async () => { const s = await api("/api/level", {level: $("level").value});
  editor.heights = {wall: s.wall_height_m, crate: s.crate_height_m}; validate(); });

(async () => {
  const s = await api("/api/state");
  PALETTE = s.palette; COLOURS = PALETTE.colours; TEAMS = PALETTE.teams; RADII = PALETTE.radii_m;
  editor.map = s.map; editor.heights = {wall: s.wall_height_m, crate: s.crate_height_m};
  for (const l of s.levels) { const o = document.createElement("option"); o.value = o.textContent = l; $("level").appendChild(o); }
  for (const st of s.styles) { const o = document.createElement("option"); o.value = o.textContent = st; $("style").appendChild(o); }
  $("level").value = s.level; $("size").value = s.map.size_m || 100; $("path").value = s.path;
  setTool("wall"); draw(); await validate();
  document.body.dataset.ready = "1";
})();
