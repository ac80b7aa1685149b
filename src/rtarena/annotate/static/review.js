"use strict";
// this session's token, written into the page by the server; every API call carries it
const token = document.querySelector("meta[name=rtarena-token]").content;
const api = (path, options = {}) => fetch(path, {...options, headers: {...(options.headers || {}),
                                                                         "X-Rtarena-Token": token}});
let modes = [];
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}
function num(v) { return v === null || v === undefined ? "-" : (typeof v === "number" ? v.toFixed(2) : String(v)); }
function episodeCard(ep, index) {
  const card = el("div", {class: "episode", "data-episode": ep.episode, "data-controller": ep.controller});
  card.append(el("h2", {text: `${ep.episode} · ${ep.controller}`}),
              el("div", {class: "muted", text: `${ep.env_id} · condition ${ep.condition} · ${ep.agent_label} · `
                + `ended at ${num(ep.end_s)} s · success ${num(ep.success)}`}));
  const frames = el("div", {class: "frames"});
  for (const f of ep.frames) {
    const img = el("img", {alt: f});
    api(`/api/frame?path=${encodeURIComponent(f)}`).then((r) => r.blob()).then((b) => {
      img.src = URL.createObjectURL(b);
    });
    frames.append(img);
  }
  card.append(frames);
  const table = el("table", {}, el("tr", {}, ...["#", "obs s", "commit s", "applied s", "delay s", "tokens", "valid",
                                                  "action"].map((h) => el("th", {text: h}))));
  for (const d of ep.decisions) {
    table.append(el("tr", {}, ...[d.index, num(d.obs_sim_s), num(d.committed_sim_s), num(d.applied_sim_s),
      num(d.delay_sim_s), d.tokens_out, String(d.valid)].map((v) => el("td", {text: String(v)})),
      el("td", {class: "a", text: String(d.action)})));
  }
  card.append(el("details", {}, el("summary", {text: `${ep.decisions.length} decisions`}), table));
  if (!ep.codes.length) card.append(el("p", {class: "muted", text: "no failure mode proposed"}));
  ep.codes.forEach((c, j) => {
    const name = `v-${index}-${j}`;
    const box = el("div", {class: "code", "data-code": c.code});
    box.append(el("b", {text: c.code}), ` (${c.capability}) proposed by ${c.annotators.join(", ")}: `,
               el("span", {text: c.evidence.filter(Boolean).join(" | ")}), el("br"));
    for (const v of ["accept", "change", "reject"]) {
      const input = el("input", {type: "radio", name, value: v, "data-role": "verdict"});
      if (c.verdict === v) input.checked = true;
      box.append(el("label", {}, input, ` ${v} `));
    }
    const select = el("select", {"data-role": "new-code"});
    for (const m of modes.filter(m => ep.allowed.includes(m.code))) {  // the codes of the episode's condition
      select.append(el("option", {value: m.code, text: `${m.code} (${m.capability})`}));
    }
    select.value = c.verdict === "change" && c.new_code ? c.new_code : c.code;
    box.append(select);
    if (c.verdict) box.append(el("span", {class: "saved", text: ` saved: ${c.verdict}`}));
    card.append(box);
  });
  return card;
}
async function load() {
  const reply = await api("/api/episodes");
  const data = await reply.json();
  modes = data.modes;
  document.getElementById("run").textContent = data.run;
  const list = document.getElementById("episodes");
  list.textContent = "";
  data.episodes.forEach((ep, i) => list.append(episodeCard(ep, i)));
}
async function save() {
  const verdicts = [];
  for (const card of document.querySelectorAll(".episode")) {
    for (const box of card.querySelectorAll(".code")) {
      const chosen = box.querySelector("input[data-role=verdict]:checked");
      if (!chosen) continue;
      verdicts.push({episode: card.dataset.episode, controller: card.dataset.controller, code: box.dataset.code,
                     verdict: chosen.value, new_code: box.querySelector("select").value});
    }
  }
  const reply = await api("/api/verdicts", {method: "POST", body: JSON.stringify({verdicts}),
    headers: {"Content-Type": "application/json"}});
  const answer = await reply.json();
  document.getElementById("status").textContent = reply.ok ? `saved ${answer.saved} verdicts` : answer.error;
  if (reply.ok) await load();
}
document.getElementById("save").addEventListener("click", save);
load();
