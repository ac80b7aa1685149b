"""Heuristic bots: they collect coins, beat random players, play deterministically, and see only
what their observation shows."""

from __future__ import annotations

import numpy as np
import pytest
from tests.arena.helpers import arena

import rtarena
from rtarena.agents.base import RandomAgent
from rtarena.agents.scripted.arena import HeuristicBot
from rtarena.agents.specs import build_agent
from rtarena.contract import PrivilegedFeed
from rtarena.errors import UserError


def _match(env_id, controllers, seed, **kwargs):
    """A paused match over the level's length; the bots read the `state` vector only, so no text view is built."""
    env = rtarena.make(env_id, obs=("state",), **kwargs)
    steps = round(env.rules.arena.time_limit_s / env.dt)
    return rtarena.run_match(env, controllers, clock="paused", seed=seed, max_steps=steps)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bot_collects_most_coins_of_basic(seed):
    result = _match("arena/basic-v0", [HeuristicBot("medium")], seed)
    assert result.agents["p0"]["score"] >= 0.8


def test_bots_collect_every_coin_in_coop():
    result = _match("arena/coop-v0", [HeuristicBot() for _ in range(4)], seed=0)
    assert all(m["score"] == 1.0 and m["outcome"] == "win" for m in result.agents.values())
    coins = [m["coins"] for m in result.agents.values()]
    assert min(coins) > 0  # everyone contributed: the sectors split the work


def test_bots_beat_random_players_in_competitive_over_8_seeds():
    """Every seat twice (measured over 20 seeds: 20 wins, the bot's mean points about 90x random's)."""
    wins, bot_points, random_points = 0, [], []
    for seed in range(8):
        seat = seed % 4  # the bot plays every seat in turn
        controllers = [HeuristicBot("medium") if i == seat else RandomAgent() for i in range(4)]
        result = _match("arena/competitive-v0", controllers, seed, overrides={"arena.time_limit_s": 45.0})
        bot = result.agents[f"p{seat}"]
        wins += bot["outcome"] == "win"
        bot_points.append(bot["points"])
        random_points += [m["points"] for a, m in result.agents.items() if a != f"p{seat}"]
    assert wins >= 7
    assert np.mean(bot_points) > 5 * np.mean(random_points)


def test_bots_are_deterministic_under_the_paused_clock():
    a = _match("arena/mixed-v0", [HeuristicBot() for _ in range(4)], seed=3, overrides={"arena.time_limit_s": 20.0})
    b = _match("arena/mixed-v0", [HeuristicBot() for _ in range(4)], seed=3, overrides={"arena.time_limit_s": 20.0})
    assert a.records_json() == b.records_json()


def test_bots_do_not_see_hidden_opponents():
    """Two worlds that differ only in where a hidden opponent stands give the bot the same decisions."""
    wall = (30, 55, 70, 56, 3.0, "wall")
    actions = []
    for hidden in ((40, 80), (60, 90)):
        env, obs = arena("competitive", spawns=[(50, 40), hidden], obstacles=[wall], coins=[(20, 20)])
        bot = HeuristicBot("hard")
        bot.reset(rtarena.AgentContext(env_id="arena/competitive-v0", agents=("p0",), observation_spaces={},
                                       action_spaces={}, default_actions={}, dt=env.dt, seed=1, clock={},
                                       privileged=PrivilegedFeed({"p0": env.privileged_state("p0")})))
        seq = []
        for _ in range(6):
            act = bot.act(obs["p0"]).action
            seq.append(act.tolist())
            obs, *_ = env.step({"p0": act, "p1": np.zeros(7, dtype=int)})
        actions.append(seq)
    assert actions[0] == actions[1]


def test_difficulties_and_the_agent_spec():
    assert build_agent("heuristic:hard", family="arena").difficulty == "hard"
    assert build_agent("heuristic", family="arena").difficulty == "medium"
    with pytest.raises(UserError, match="difficulty"):
        HeuristicBot("nightmare")


def test_a_hard_bot_outscores_easy_ones():
    hard, easy = [], []
    for seed in range(8):
        seat = seed % 4
        controllers = [HeuristicBot("hard" if i == seat else "easy") for i in range(4)]
        result = _match("arena/competitive-v0", controllers, seed, overrides={"arena.time_limit_s": 60.0})
        hard.append(result.agents[f"p{seat}"]["points"])
        easy += [m["points"] for a, m in result.agents.items() if a != f"p{seat}"]
    assert np.mean(hard) > 1.5 * np.mean(easy)
