"""Skill adherence: did the player act on its skill at all? (`rtarena improve-analyse RUN --adherence`)

A round that did not improve may have had a bad skill, or a good one the player ignored. To tell them
apart, each round's recorded observations are replayed through the player twice, once with that round's
skill and once with the empty skill, and the two answers compared, decision by decision:

- **changed**: the share of decisions whose action differs between the two (0: the skill never changed
  what the player did);
- **cited**: the share of the round's recorded replies that cite a skill bullet, i.e. contain a run of
  `CITE_WORDS` consecutive words of one of the skill's bullets (case and punctuation ignored).

Observations are rebuilt, not stored: each episode's env is reset with its seed and stepped with the
joint actions the records hold (`steps.actions`), which gives every published observation again for
deterministic envs (every registered env is seeded). Each controller is replayed by two fresh players of
the run's spec that see the episode's decisions in order, as in the round (so a model's history of turns is
rebuilt too); at most `max_decisions` decisions per round are replayed (episode by episode, each from its
start), because each costs two model calls. Round 0 plays the empty skill and is left out.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from rtarena.errors import UserError
from rtarena.eval.manifest import read_json
from rtarena.eval.store import read_episodes
from rtarena.improve.lints import bullets

CITE_WORDS = 4  # consecutive words of a bullet that make a citation
MAX_DECISIONS = 200  # per round, by default


@dataclass(frozen=True)
class RoundAdherence:
    """One round: its skill's bullets, the decisions replayed, and the two shares (0..1)."""

    round: int
    bullets: int
    decisions: int
    changed: float
    cited: float


def improve_run(run_dir: Path) -> dict[str, Any]:
    """The run's `improve.json`, or a one-line `UserError` naming what is missing."""
    from rtarena.improve.loop import RUN_FILE

    if not (Path(run_dir) / RUN_FILE).is_file():
        raise UserError(f"{run_dir} is not an improvement run (no {RUN_FILE}; `rtarena improve` writes it)",
                        field="RUN")
    return read_json(Path(run_dir) / RUN_FILE)


def round_dirs(run_dir: Path) -> list[Path]:
    return sorted(p for p in Path(run_dir).glob("round_[0-9][0-9]") if p.is_dir())


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def cites(reply: str, skill_bullets: list[str], n: int = CITE_WORDS) -> bool:
    """Whether `reply` quotes `n` consecutive words of any bullet."""
    said = " " + " ".join(_words(reply)) + " "
    for bullet in skill_bullets:
        words = _words(bullet)
        if any(" " + " ".join(words[i:i + n]) + " " in said for i in range(len(words) - n + 1)):
            return True
    return False


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _observations(env: Any, seed: int, steps: list[dict[str, Any]]) -> dict[int, tuple[dict[str, Any], tuple]]:
    """Every published observation of an episode, by version: the env replayed with the recorded actions."""
    from rtarena.runtime.controllers import coerce_action

    observations, _ = env.reset(seed=seed)
    out = {0: (observations, tuple(env.agents))}
    for step in steps:
        actions = _json(step["actions"]) or {}
        joint = {a: coerce_action(env.action_space(a), actions[a])[0] if a in actions else env.default_action(a)
                 for a in env.agents}
        observations = env.step(joint)[0]
        if step.get("obs_version") is not None:
            out[int(step["obs_version"])] = (observations, tuple(env.agents))
        if not env.agents:
            break
    return out


def _episode_changes(player: str, line: dict[str, Any], round_dir: Path, skill_file: Path,
                     budget: int) -> list[bool]:
    """Per replayed decision of one episode (at most `budget`): whether the skill changed the action."""
    from rtarena.envs.registry import env_spec, make
    from rtarena.eval.episodes import controllers_for
    from rtarena.improve.player import with_skill
    from rtarena.runtime.clocks import clock_for_env
    from rtarena.runtime.controllers import build_slots, context_for
    from rtarena.runtime.records import jsonable

    key = line["episode"]
    decisions = pq.read_table(round_dir / "decisions" / f"{key}.parquet").to_pylist()[:budget]
    steps = pq.read_table(round_dir / "steps" / f"{key}.parquet").to_pylist()
    env = make(line["env_id"], **(line.get("env_kwargs") or {}))
    family = env_spec(line["env_id"]).family
    players = {cond: build_slots(env, controllers_for(env, [_spec(with_skill(player, f))], family))
               for cond, f in (("with", skill_file), ("without", None))}
    try:
        clock = clock_for_env(line["clock"]["clock"], env, {k: v for k, v in line["clock"].items() if k != "clock"})
        horizon = line.get("steps", 0) * float(env.dt) or None
        for slots in players.values():
            for index, slot in enumerate(slots):
                slot.agent.reset(context_for(slot, env, line["env_id"], line["seed"], clock, index, horizon))
        seen = _observations(env, int(line["seed"]), steps)
        changed = []
        for d in decisions:
            observations, alive = seen.get(int(d["obs_version"]), (None, ()))
            if observations is None:
                continue
            answers = [jsonable(next(s for s in slots if s.name == d["controller"]).agent.act(
                next(s for s in slots if s.name == d["controller"]).observation(observations, alive)).action)
                for slots in players.values()]
            changed.append(answers[0] != answers[1])
        return changed
    finally:
        for slots in players.values():
            for slot in slots:
                slot.agent.close()
        env.close()


def _spec(text: str) -> Any:
    from rtarena.agents.specs import parse_spec

    return parse_spec(text)


def adherence(run_dir: str | Path, max_decisions: int = MAX_DECISIONS, player: str | None = None
              ) -> list[RoundAdherence]:
    """Per round with a skill: the share of replayed decisions whose action the skill changed, and the share
    of the round's replies that cite a skill bullet (see the module docstring). The player is the run's own
    (`improve.json`), so its endpoint must answer again; `player` replays another model agent instead (would
    a cheaper model follow the same skills?)."""
    from rtarena.improve.player import check_player

    run_dir = Path(run_dir)
    run = improve_run(run_dir)
    player = check_player(player) if player else run["player"]
    out = []
    for rd in round_dirs(run_dir):
        skill_file = rd / "skill_in.md"
        skill = skill_file.read_text(encoding="utf-8") if skill_file.exists() else ""
        if not skill.strip():
            continue
        items = bullets(skill) or [line for line in skill.splitlines() if line.strip()]
        changed, replies = [], []
        for line in sorted(read_episodes(rd), key=lambda ln: ln["episode"]):
            if line.get("status") != "ok" or len(changed) >= max_decisions:
                continue
            changed += _episode_changes(player, line, rd, skill_file, max_decisions - len(changed))
            replies += [t or "" for t in pq.read_table(rd / "decisions" / f"{line['episode']}.parquet",
                                                       columns=["text"])["text"].to_pylist()]
        if changed:
            cited = sum(cites(r, items) for r in replies) / len(replies)
            out.append(RoundAdherence(int(rd.name.split("_")[1]), len(items), len(changed),
                                      sum(changed) / len(changed), cited))
    if not out:
        raise UserError(f"{run_dir}: no round played a non-empty skill with recorded decisions (round 0 plays the "
                        "empty skill)", field="RUN")
    return out


def adherence_markdown(rows: list[RoundAdherence]) -> list[str]:
    lines = ["| round | bullets | decisions replayed | action changed by the skill | replies citing a bullet |",
             "|---|---|---|---|---|"]
    lines += [f"| {r.round} | {r.bullets} | {r.decisions} | {r.changed:.1%} | {r.cited:.1%} |" for r in rows]
    return lines


def adherence_chart(rows: list[RoundAdherence], title: str = "skill adherence per round") -> str:
    from rtarena.eval import svg

    values = {(f"round {r.round}", name): (share * 100, None) for r in rows
              for name, share in (("action changed", r.changed), ("reply cites a bullet", r.cited))}
    return svg.bar_chart(title, "% of decisions", [f"round {r.round}" for r in rows],
                         ["action changed", "reply cites a bullet"], values)


def rows_json(rows: list[RoundAdherence]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]
