"""The arena applies an action at its commit time, from a physics sub-step, when the level asks for it
(`act_inside_steps`); by default it keeps applying at the next step, so stored records stay the same."""

from __future__ import annotations

import numpy as np

import rtarena
from rtarena.contract import Decision

FORWARD = np.array([0, 1, 0, 0, 0, 0, 0])


def test_an_action_set_inside_a_step_moves_the_player_for_the_rest_of_it():
    moved = []
    for at_s in (None, 0.1):
        env = rtarena.make("arena/basic-v0", act_inside_steps=True)  # dt 0.25: five sub-steps of 0.05 s
        env.reset(seed=3)
        start = env.world.players.pos[0].copy()
        if at_s is not None:
            env.set_action_times({"p0": at_s})
        env.step({"p0": FORWARD})
        moved.append(float(np.linalg.norm(env.world.players.pos[0] - start)))
        env.close()
    full, late = moved
    assert 0.0 < late < full  # three of the five sub-steps under the action
    assert rtarena.make("arena/basic-v0").capabilities.substep_s is None  # opt-in: off by default


def test_under_token_actions_apply_at_the_sub_step_of_their_commit():
    env = rtarena.make("arena/basic-v0", act_inside_steps=True)
    agent = lambda obs: Decision(action=FORWARD, tokens_out=9, tokens_source="scripted")  # noqa: E731
    result = rtarena.run_match(env, [agent], clock="token", kappa=80.0, seed=0, max_steps=8)  # 0.1125 s each
    applied = [d for d in result.decisions if d.applied_sim_s is not None]
    assert applied and all(0 <= d.applied_sim_s - d.committed_sim_s < env.substep_s for d in applied)
    assert all(round(d.applied_sim_s / env.dt, 6) % 1 for d in applied)  # inside steps, not at their starts
