// Shared canvas-game harness: the board, ticks on the page clock, keys and clicks, the score as progress,
// a time limit, and the HUD. A game page defines its state, then calls Game({...}) with its hooks:
//   width, height, goal (score to reach), tick_ms, tick(G), draw(g, G), keys: [...], onKey(key, G),
//   onClick(x, y, G) (board pixels), won(score), timeout(score).
// Everything moves from setInterval on Playwright's clock (never requestAnimationFrame, see README).
"use strict";
function Game(o) {
  const P = RT.params, cv = RT.$("#board"), g = cv.getContext("2d");
  cv.width = o.width; cv.height = o.height;
  let score = 0, over = false;
  const G = { cv, g, P, goal: o.goal, get score() { return score; }, get over() { return over || RT.task.done; } };
  RT.vars(Object.assign({ goal: o.goal, limit_s: P.limit_s }, o.vars || {}));
  RT.$("#goal").textContent = o.goal;
  G.add = (n = 1) => {
    if (G.over) return;
    score += n; RT.event({ type: "score", score }); RT.progress(score / o.goal);
    if (score >= o.goal) { over = true; G.draw(); RT.finish(true, o.won ? o.won(score) : `scored ${score}`); }
  };
  G.lose = (why) => { if (G.over) return; over = true; G.draw(); RT.finish(false, why); };
  // a board point as viewport pixels, for the oracle's click_xy
  G.page = (x, y) => { const r = cv.getBoundingClientRect(); return [Math.round(r.left + x), Math.round(r.top + y)]; };
  G.click = (x, y) => { const [px, py] = G.page(x, y); return `click_xy(${px}, ${py})`; };
  G.keys = (...names) => names.map((k) => `key(${RT.q(k)})`).join("; ") || "wait()";
  G.draw = () => { o.draw(g, G); RT.$("#score").textContent = score; const t = RT.$("#elapsed"); if (t) t.textContent = Math.floor(RT.now()); };
  document.addEventListener("keydown", (e) => {
    if (!(o.keys || []).includes(e.key)) return;
    e.preventDefault(); if (!G.over) { o.onKey(e.key, G); G.draw(); }
  });
  cv.addEventListener("click", (e) => {
    if (!o.onClick || G.over) return;
    const r = cv.getBoundingClientRect(); o.onClick(e.clientX - r.left, e.clientY - r.top, G); G.draw();
  });
  setInterval(() => { if (!G.over) o.tick(G); G.draw(); }, o.tick_ms);
  RT.countdown(RT.$("#clock"), P.limit_s, "Time left");
  setTimeout(() => G.lose(o.timeout ? o.timeout(score) : `time up with ${score} of ${o.goal}`), P.limit_s * 1000);
  G.draw();
  return G;
}
