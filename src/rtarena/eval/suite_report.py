"""The game suite's part of a report: scores per game, the solo mean, a PvP win-rate matrix per game,
co-op team scores, and a capability profile per agent drawn as a radar chart.

A game's mode (solo, PvP, co-op) and ratings come from its level file (`envs/games/ratings.py`); a
variant (`games/duel-var1-v0`) is its own game in the tables and carries its base game's ratings. The
capability profile of an agent weights its mean score in each game by that game's 0-3 rating of each
capability: `sum(rating x score) / sum(rating)` over the games it played (PvP scores are 1 win,
0.5 draw, 0 loss; co-op scores are the team's).

Every table is one clock setting's (its title says which): the paper reports the paused-decision protocol
(PDQ) and the latency-charged one (LCRT) side by side, never averaged together. With two or more settings a
last section puts them side by side with the decisions per episode, the action budget the paper's budget
effect is about.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from rtarena.envs.games.ratings import suite_ratings
from rtarena.envs.games.rules import CAPABILITY_ABBREV
from rtarena.eval import svg
from rtarena.eval.tables import (
    Stat,
    capability_profile,
    decisions_per_episode,
    game_scores,
    mean_of,
    suite_clock_settings,
    win_rates,
)

VARIANT = re.compile(r"-var\d+-v0$")


def base_id(env_id: str) -> str:
    return VARIANT.sub("-v0", env_id)


def suite_sections(con: Any, section_type: type) -> list[Any]:
    """The suite's report sections (`section_type(title, markdown, html)`), one set per clock setting, none
    when no game was played."""
    settings = suite_clock_settings(con)
    out = [s for setting in settings for s in _setting_sections(con, section_type, setting)]
    if len(settings) > 1:
        out.append(_side_by_side(con, section_type, settings))
    return out


def _setting_sections(con: Any, section_type: type, setting: str) -> list[Any]:
    """The tables of one clock setting, each title ending with the setting's name."""
    scores = game_scores(con, setting)
    if not scores:
        return []
    return [section_type(f"{s.title} [clock setting: {setting}]", s.markdown, s.html)
            for s in _tables(con, section_type, setting, scores)]


def _tables(con: Any, section_type: type, setting: str, scores: list) -> list[Any]:
    info = {r.env_id: r for r in suite_ratings()}
    mode = {env_id: info[base_id(env_id)].mode for env_id, _, _ in scores if base_id(env_id) in info}
    agents = list(dict.fromkeys(agent for _, agent, _ in scores))
    games = list(dict.fromkeys(env_id for env_id, _, _ in scores))
    table = {(g, a): s for g, a, s in scores}
    out = [_matrix_section(section_type, "game suite: score per game", "suite-scores", games, agents, table,
                           lambda g: mode.get(g, "?"))]
    solo = [g for g in games if mode.get(g) == "solo"]
    if solo:
        means = {a: mean_of([table[(g, a)] for g in solo if (g, a) in table]) for a in agents}
        out.append(_matrix_section(section_type, f"game suite: solo mean ({len(solo)} games, each counts the same)",
                                   "solo-mean", ["solo mean"], agents, {("solo mean", a): s for a, s in means.items()},
                                   lambda g: "solo"))
    for game in [g for g in games if mode.get(g) == "pvp"]:
        out.append(_win_matrix(section_type, game, win_rates(con, [game], setting)))
    coop = [g for g in games if mode.get(g) == "coop"]
    if coop:
        out.append(_matrix_section(section_type, "game suite: co-op team scores", "coop-scores", coop, agents,
                                   table, lambda g: "coop"))
    out.append(_profiles(section_type, agents, table, {g: info[base_id(g)].ratings for g in games
                                                         if base_id(g) in info}))
    return out


def _side_by_side(con: Any, section_type: type, settings: list[str]) -> Any:
    """Per game and agent, each clock setting's score and decisions per episode, side by side."""
    scores = {s: {(g, a): st for g, a, st in game_scores(con, s)} for s in settings}
    budget = {s: decisions_per_episode(con, s) for s in settings}
    keys = list(dict.fromkeys(k for s in settings for k in scores[s]))
    head = ["game", "agent"] + [f"{s}: {what}" for s in settings for what in ("score", "decisions / episode")]
    md = ["Each clock setting's mean score and decisions per episode and seat, side by side: a lower score "
          "with fewer decisions is the action-budget effect, not worse actions.", "",
          "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    html = ['<table class="suite protocols"><thead><tr>' + "".join(f"<th>{escape(h)}</th>" for h in head)
            + "</tr></thead><tbody>"]
    empty = Stat(0, None, None)
    for game, agent in keys:
        cells = [v for s in settings for v in (scores[s].get((game, agent), empty), budget[s].get((game, agent),
                                                                                                   empty))]
        md.append(f"| {game} | {agent} | " + " | ".join(c.text() for c in cells) + " |")
        html.append(f'<tr data-game="{escape(game)}" data-agent="{escape(agent)}"><td class="key">{escape(game)}</td>'
                    f'<td class="key">{escape(agent)}</td>' + "".join(f"<td>{escape(c.text())}</td>" for c in cells)
                    + "</tr>")
    html.append("</tbody></table>")
    return section_type("game suite: clock settings side by side (PDQ vs LCRT, decisions per episode)", md, html)


def _matrix_section(section_type: type, title: str, kind: str, games: list[str], agents: list[str],
                    table: dict[tuple[str, str], Stat], mode) -> Any:
    md = ["| game | mode | " + " | ".join(agents) + " |", "|" + "---|" * (len(agents) + 2)]
    html = [f'<table class="suite {kind}"><thead><tr><th class="key">game</th><th class="key">mode</th>'
            + "".join(f"<th>{escape(a)}</th>" for a in agents) + "</tr></thead><tbody>"]
    for g in games:
        stats = [table.get((g, a), Stat(0, None, None)) for a in agents]
        md.append(f"| {g} | {mode(g)} | " + " | ".join(s.text() for s in stats) + " |")
        cells = "".join(f'<td data-agent="{escape(a)}" data-n="{s.n}" data-mean="{"" if s.mean is None else s.mean!r}"'
                        f">{escape(s.text())}</td>" for a, s in zip(agents, stats, strict=True))
        html.append(f'<tr data-game="{escape(g)}"><td class="key">{escape(g)}</td><td class="key">{mode(g)}</td>'
                    + cells + "</tr>")
    html.append("</tbody></table>")
    return section_type(title, md, html)


def _win_matrix(section_type: type, game: str, rows: list[tuple]) -> Any:
    names = list(dict.fromkeys([r[1] for r in rows] + [r[2] for r in rows]))
    cell = {(r[1], r[2]): r for r in rows}
    md = [f"Row agent against column agent on {game}: win % / draw % (n episodes), both seats pooled.", "",
          "| row vs column | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 1)]
    html = [f'<p class="muted">Row agent against column agent: win % / draw % (n episodes), both seats pooled.</p>'
            f'<table class="suite winrate" data-game="{escape(game)}"><thead><tr><th class="key">row vs column</th>'
            + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr></thead><tbody>"]
    for row in names:
        texts, tds = [], []
        for col in names:
            r = cell.get((row, col))
            text = "—" if r is None else f"{100 * r[4]:.0f}% / {100 * r[5]:.0f}% (n={r[3]})"
            texts.append(text)
            attrs = "" if r is None else f' data-win="{r[4]!r}" data-draw="{r[5]!r}" data-n="{r[3]}"'
            tds.append(f'<td data-row="{escape(row)}" data-col="{escape(col)}"{attrs}>{escape(text)}</td>')
        md.append(f"| {row} | " + " | ".join(texts) + " |")
        html.append(f'<tr><td class="key">{escape(row)}</td>' + "".join(tds) + "</tr>")
    html.append("</tbody></table>")
    return section_type(f"PvP win rates: {game}", md, html)


def _profiles(section_type: type, agents: list[str], table: dict[tuple[str, str], Stat],
              ratings: dict[str, dict[str, int]]) -> Any:
    axes = [CAPABILITY_ABBREV[c] for c in next(iter(ratings.values()), {})]
    profiles = {}
    for agent in agents:
        scores = {g: s.mean for (g, a), s in table.items() if a == agent and s.mean is not None and g in ratings}
        if scores:
            profiles[agent] = capability_profile(scores, ratings)
    md = ["Each game's mean score weighted by its 0-3 rating of each capability, "
          "sum(rating x score) / sum(rating) over the games the agent played.", "",
          "| agent | " + " | ".join(axes) + " |", "|" + "---|" * (len(axes) + 1)]
    html = ['<table class="suite profile"><thead><tr><th class="key">agent</th>'
            + "".join(f"<th>{a}</th>" for a in axes) + "</tr></thead><tbody>"]
    for agent, profile in profiles.items():
        md.append(f"| {agent} | " + " | ".join(f"{v:.2f}" for v in profile.values()) + " |")
        html.append(f'<tr data-agent="{escape(agent)}"><td class="key">{escape(agent)}</td>'
                    + "".join(f"<td>{v:.2f}</td>" for v in profile.values()) + "</tr>")
    html.append("</tbody></table>")
    chart = svg.radar_chart("capability profile (ratings-weighted scores, 0-1)", axes,
                            {a: list(p.values()) for a, p in profiles.items()}, 1.0)
    html.append(f'<div class="plots radar">{chart}</div>')
    return section_type("game suite: capability profiles", md, html)
