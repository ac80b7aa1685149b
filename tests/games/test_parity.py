"""Information parity of the suite's two views: every fact the text view states is on the screenshot view
(the frame, or the HUD line sent beside it), so text-vs-pixels compares perception, not privileged state.

A fact is a piece of world state the text view reads. The test finds them itself, so none can go
undeclared: it takes a game's world at two moments of seeded play (A earlier, B later), and for every
world attribute (per key, for per-agent and per-body tables) builds A with only that piece taken from B,
scores recomputed as the base class does after a step. Where that changes the text view, it must change the
frame or the HUD line too; a failure names the game and the fact (`workshop: bench_left_s`).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from rtarena.agents.specs import build_agent
from rtarena.envs.registry import ENV_TABLE, make
from rtarena.runtime.match import run_match

GAMES = [spec.id for spec in ENV_TABLE if spec.family == "games" and "-var" not in spec.id]
# set at construction (view settings, spaces, the level's rules): not world state
NOT_WORLD = {"np_random", "rules", "keyspace", "_observation_space", "metadata", "possible_agents", "agents",
             "previous", "render_mode", "obs_modalities", "size", "variant", "dt", "time_limit_s", "max_steps",
             "view", "spec_id", "scores", "finished", "step_count"}
MOMENTS = ((("heuristic", 20, 60), ("heuristic", 60, 160), ("random", 30, 70), ("random", 150, 400)))


def worlds_at(env_id: str, spec: str, moments: set[int]) -> dict[int, Any]:
    """The world after each of `moments` steps of one seeded match (copies taken on the way, so each spec plays
    once); a moment after the game's own end gets the world as it ended."""
    env = make(env_id, obs=("state",))
    step, worlds = env.step, {}

    def stepping(actions):
        out = step(actions)
        if env.step_count in moments:
            worlds[env.step_count] = copy.deepcopy(env)
            del vars(worlds[env.step_count])["step"]  # the copy is a plain env again
        return out

    env.step = stepping
    run_match(env, [build_agent(spec, "games") for _ in env.possible_agents], clock="paused", seed=0,
              max_steps=max(moments))
    del vars(env)["step"]
    return {moment: worlds.get(moment, env) for moment in moments}


def facts(env: Any) -> list[tuple]:
    """Paths to every piece of world state: attributes, and the keys of small tables (two levels deep)."""
    out: list[tuple] = []
    for name, value in vars(env).items():
        if name in NOT_WORLD or name.startswith("_"):
            continue
        if isinstance(value, dict) and 0 < len(value) < 40:
            for key, inner in value.items():
                deeper = isinstance(inner, dict) and 0 < len(inner) < 40
                out += [(name, key, k) for k in inner] if deeper else [(name, key)]
        else:
            out.append((name,))
    return out


def read(env: Any, path: tuple) -> Any:
    value = getattr(env, path[0])
    for key in path[1:]:
        value = value[key]
    return value


def with_fact(env: Any, path: tuple, value: Any) -> Any:
    out = copy.deepcopy(env)
    if len(path) == 1:
        setattr(out, path[0], copy.deepcopy(value))
    else:
        holder = read(out, path[:-1])
        holder[path[-1]] = copy.deepcopy(value)
    for agent in out.possible_agents:  # derived as after a step
        out.scores[agent] = float(np.clip(out._score(agent), 0.0, 1.0))
    return out


@pytest.mark.parametrize("env_id", GAMES)
def test_every_fact_of_the_text_view_is_on_the_frame_or_the_hud_line(env_id):
    game = env_id.split("/")[1].split("-")[0]
    missing: dict[str, str] = {}
    checked = 0
    worlds = {spec: worlds_at(env_id, spec, {m for s, *pair in MOMENTS if s == spec for m in pair})
              for spec, *_ in MOMENTS}
    for spec, early, late in MOMENTS:
        a, b = worlds[spec][early], worlds[spec][late]
        agent = a.possible_agents[0]
        text, hud, frame = a.text(agent), a.hud(agent), a._frame(agent)
        for path in facts(a):
            try:
                other = read(b, path)
                changed = with_fact(a, path, other)
                if changed.text(agent) == text:
                    continue
            except (KeyError, IndexError, TypeError, ValueError):
                continue  # the piece does not exist at the later moment, or mixes badly with the rest
            checked += 1
            if changed.hud(agent) == hud and np.array_equal(changed._frame(agent), frame):
                missing.setdefault(".".join(map(str, path)), f"{spec} play, steps {early} and {late}")
    assert checked > 0, f"{game}: no fact of the text view changed between the moments (the test saw nothing)"
    assert not missing, f"{game}: the text view states facts the frame and HUD do not show: " + \
        "; ".join(f"{fact} ({where})" for fact, where in missing.items())
