"use strict";
const TOKEN = document.querySelector("meta[name=rtarena-token]").content;  // this session's, from the page
const view = document.getElementById("view");
const ctx = view.getContext("2d");
let info = null, version = -1, scale = 1, done = false, begun = false;
let frameMs = 0, ageMs = 0, inputMs = 0, fps = 0, frameTimes = [];

async function api(path, body) {
  const options = {headers: {"X-Rtarena-Token": TOKEN}};
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  return fetch(path, options);
}

// Key names as the runtime reads them (pygame's names), from KeyboardEvent.code.
const CODES = {Space: "space", ShiftLeft: "left shift", ShiftRight: "right shift", ControlLeft: "left ctrl",
  ControlRight: "right ctrl", AltLeft: "left alt", AltRight: "right alt", Enter: "return", Tab: "tab",
  Escape: "escape", ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right",
  PageUp: "page up", PageDown: "page down", Comma: ",", Period: ".", NumpadAdd: "[+]",
  NumpadSubtract: "[-]", NumpadDecimal: "[.]", NumpadEnter: "enter"};
function keyName(e) {
  if (CODES[e.code]) return CODES[e.code];
  if (e.code.startsWith("Key")) return e.code.slice(3).toLowerCase();
  if (e.code.startsWith("Digit")) return e.code.slice(5);
  if (e.code.startsWith("Numpad")) return "[" + e.code.slice(6) + "]";
  return e.key.toLowerCase();
}
// A browser task's key, as Playwright names it ("a", "Enter", "Control+a").
function browserKey(e) {
  if (["Shift", "Control", "Alt", "Meta"].includes(e.key)) return null;
  const key = e.key === " " ? "Space" : e.key;
  return (e.ctrlKey || e.metaKey) && key.length === 1 ? "Control+" + key : key;
}

// Input: one request in flight at a time, so the server sees events in the order they happened.
let queue = [], sending = false, moveX = 0, moveY = 0, shownMarks = "[]";
function send(event) { queue.push(event); flush(); }
async function flush() {
  if (sending || done) return;
  if (moveX || moveY) { queue.push({t: "move", dx: moveX, dy: moveY}); moveX = moveY = 0; }
  if (!queue.length) return;
  const events = queue; queue = []; sending = true;
  const started = performance.now();
  try { await api("/api/input", {events}); inputMs = performance.now() - started; }
  catch (error) { /* the episode ended */ }
  sending = false;
  if (queue.length || moveX || moveY) flush();
}

// The world waits at its first frame until the person starts it: the Start button, or their first key or
// click (which then also counts as input).
function begin() {
  if (begun || version < 0) return;
  begun = true;
  document.getElementById("begin").hidden = true;
  api("/api/start", {});
}
document.getElementById("start").addEventListener("click", (e) => { e.stopPropagation(); begin(); view.focus(); });

window.addEventListener("keydown", (e) => {
  if (!info || done || e.target.tagName === "INPUT" || e.target.tagName === "BUTTON") return;
  e.preventDefault();
  begin();
  if (info.browser) { const k = browserKey(e); if (k) send({t: "key", k}); return; }
  if (!e.repeat) send({t: "down", k: keyName(e)});
});
window.addEventListener("keyup", (e) => {
  if (!info || done || info.browser || e.target.tagName === "INPUT") return;
  e.preventDefault();
  send({t: "up", k: keyName(e)});
});
window.addEventListener("blur", () => { if (info && !info.browser) send({t: "blur"}); });
function point(e) {
  const box = view.getBoundingClientRect();
  return {x: (e.clientX - box.left) / scale, y: (e.clientY - box.top) / scale};
}
view.addEventListener("mousedown", (e) => {
  if (!info || done) return;
  e.preventDefault();
  view.focus();
  begin();
  if (info.browser) { const p = point(e); send({t: "click", x: p.x, y: p.y}); return; }
  if (info.mouse && document.pointerLockElement !== view) { view.requestPointerLock(); return; }
  send({t: "down", k: "mouse " + (e.button === 2 ? 3 : 1)});
});
view.addEventListener("mouseup", (e) => {
  if (info && !info.browser && !done) send({t: "up", k: "mouse " + (e.button === 2 ? 3 : 1)});
});
view.addEventListener("contextmenu", (e) => e.preventDefault());
view.addEventListener("mousemove", (e) => {
  if (info && info.mouse && document.pointerLockElement === view) { moveX += e.movementX; moveY += e.movementY; flush(); }
});
view.addEventListener("wheel", (e) => {
  if (info && info.browser && !done) { e.preventDefault(); send({t: "scroll", dy: e.deltaY}); }
}, {passive: false});

async function drawMarks() {
  const layer = document.getElementById("marks");
  if (!info.browser) return;
  const meta = await (await api("/api/meta")).json();
  document.getElementById("goal").textContent = meta.goal || "";
  const wanted = document.getElementById("show-marks").checked ? (meta.marks || "[]") : "[]";
  if (wanted === shownMarks) return;  // redrawn only when they change, so they can be pointed at
  shownMarks = wanted;
  const marks = JSON.parse(wanted);
  layer.replaceChildren(...marks.map((m) => {
    const div = document.createElement("div");
    div.className = "mark";
    div.dataset.mark = m.id;
    div.dataset.text = m.text || "";
    const [x, y, w, h] = m.box;
    Object.assign(div.style, {left: x * scale + "px", top: y * scale + "px", width: w * scale + "px",
                              height: h * scale + "px"});
    const label = document.createElement("span");
    label.textContent = m.id;
    div.append(label);
    return div;
  }));
}

async function frames() {
  while (!done) {
    const started = performance.now();
    let reply;
    try { reply = await api("/api/frame?after=" + version); }
    catch (error) { document.getElementById("status").textContent = "disconnected"; return; }
    if (!reply.ok) { document.getElementById("status").textContent = (await reply.json()).error; return; }
    const next = Number(reply.headers.get("X-Frame-Version"));
    if (next < 0) { await new Promise((r) => setTimeout(r, 50)); continue; }  // the env is still being reset
    if (reply.headers.get("X-Started") === "1") begun = true;
    document.getElementById("begin").hidden = begun;
    ageMs = Number(reply.headers.get("X-Frame-Age-Ms"));
    const image = await createImageBitmap(await reply.blob());
    frameMs = Math.max(0, performance.now() - started - Number(reply.headers.get("X-Waited-Ms")));
    if (next !== version) {
      version = next;
      if (view.width !== image.width * scale) {
        view.width = image.width * scale; view.height = image.height * scale;
        document.getElementById("marks").style.width = view.width + "px";
      }
      ctx.imageSmoothingEnabled = info.browser;
      ctx.drawImage(image, 0, 0, image.width * scale, image.height * scale);
      view.dataset.version = version;
      const now = performance.now();
      frameTimes.push(now); frameTimes = frameTimes.filter((t) => now - t < 1000); fps = frameTimes.length;
      document.getElementById("status").textContent = reply.headers.get("X-Status");
      await drawMarks();
    }
    document.getElementById("latency").textContent =
      `latency: frame ${ageMs.toFixed(0)} ms old at the server + ${frameMs.toFixed(0)} ms on the way, ` +
      `input ${inputMs.toFixed(0)} ms round trip, ${fps} fps`;
    if (reply.headers.get("X-Done") === "1") { await finish(); return; }
  }
}

async function finish() {
  done = true;
  const answer = await (await api("/api/result")).json();
  const line = answer.line || {};
  const returns = Object.entries(line.agents || {}).map(([a, m]) => `${a} ${Number(m.return).toFixed(2)}`);
  document.getElementById("result").textContent = "episode over: " + returns.join(", ") +
    (line.interrupted ? " (interrupted)" : "");
  document.body.dataset.done = "1";
}

async function resultWatch() {  // the episode may end between two frames; a preset's next one reloads
  while (true) {
    await new Promise((r) => setTimeout(r, 500));
    let answer;
    try { answer = await (await api("/api/result")).json(); } catch (error) { return; }
    if (answer.generation !== info.generation) { location.reload(); return; }
    if (answer.done && !done) await finish();
  }
}

document.getElementById("show-marks").addEventListener("change", () => drawMarks());

async function main() {
  info = await (await api("/api/info")).json();
  document.getElementById("title").textContent = `rtarena play: ${info.env_id} (${info.family})`;
  document.getElementById("keys").replaceChildren(...info.keys.map((k) => {
    const div = document.createElement("div"); div.textContent = k; return div;
  }));
  scale = info.browser ? 1 : (info.family === "arena" ? 2 : 4);
  view.className = info.browser ? "" : "pixels";
  document.getElementById("marks-toggle").hidden = !info.browser;
  document.body.dataset.family = info.family;
  view.focus();
  resultWatch();
  frames();
}
main();
