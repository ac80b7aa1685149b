"""The suite as the paper measures it: every game declares its time limit in its level file, and an episode
runs to the env's own end when no step cap is given (no rendering here: `state` observations only)."""

from __future__ import annotations

import pytest

from rtarena.agents.specs import build_agent
from rtarena.envs.games.rules import LEVELS
from rtarena.envs.registry import ENV_TABLE, make
from rtarena.eval.flags import RunFlags
from rtarena.improve.settings import ImproveSettings
from rtarena.runtime.match import run_match
from rtarena.schema import read_toml

GAMES = [spec.id for spec in ENV_TABLE if spec.family == "games" and "-var" not in spec.id]
SHORT_S = 6.0


def test_the_suite_has_twelve_games_and_each_level_file_declares_its_time_limit():
    assert len(GAMES) == 12
    for env_id in GAMES:
        name = env_id.split("/")[1].split("-")[0]
        data = read_toml(LEVELS / f"{name}.toml", "level file")
        limit = data.get("game", {}).get("time_limit_s")
        assert isinstance(limit, (int, float)) and limit > 0, f"{name}.toml: [game] time_limit_s missing"
        assert len(data.get("probe", {}).get("mechanics", [])) >= 2, f"{name}.toml: [probe] mechanics missing"


def test_no_step_cap_by_default_in_run_and_improve():
    assert RunFlags.model_fields["max_steps"].default is None
    assert ImproveSettings().max_steps is None


@pytest.mark.parametrize("env_id", GAMES)
def test_random_under_paused_plays_to_the_time_limit_or_the_games_own_end(env_id):
    """The env takes its level file's limit; a match with no step cap runs to the env's end, played here on a
    shortened limit (the same code path; the full games cost seconds each)."""
    name = env_id.split("/")[1].split("-")[0]
    assert make(env_id).time_limit_s == read_toml(LEVELS / f"{name}.toml", "level file")["game"]["time_limit_s"]
    env = make(env_id, obs="state", overrides={"game.time_limit_s": SHORT_S})
    agents = [build_agent("random", "games") for _ in env.possible_agents]
    result = run_match(env, agents, clock="paused", seed=0)
    assert not env.agents  # the env ended the episode, not a step cap
    sim_s = len(result.steps) * env.dt
    assert sim_s == pytest.approx(env.time_limit_s) or (sim_s < env.time_limit_s and any(env.finished.values())), \
        f"{env_id}: stopped at {sim_s:g} s of {env.time_limit_s:g}"
