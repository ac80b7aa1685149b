"""`classic/cartpole-v0`: Gymnasium's CartPole with its physics step tied to the runtime's `dt`."""

from __future__ import annotations

import gymnasium

from rtarena.envs.adapters import GymnasiumAdapter, check_dt


def make_cartpole(dt: float = 0.02, render_mode: str | None = None, max_episode_steps: int = 500,
                  length: float = 0.5, masspole: float = 0.1, force_mag: float = 10.0):
    """CartPole-v1 whose `tau` equals `dt`, so simulated time means what it says.

    ## Description
    Gymnasium's cart-pole: push the cart left (0) or right (1) to keep the pole upright.
    ## Observation
    Box(4): cart position, cart velocity, pole angle (rad), pole angular velocity.
    ## Action Space
    Discrete(2); the default action (when no fresh decision arrived) is 0, push left.
    ## Rewards and Score
    +1 per step the pole is up; the score is the time it stayed up, in seconds.
    ## Termination
    The pole tilts past 12 degrees or the cart leaves the track; truncated at `max_episode_steps`.
    ## Registered Configurations
    - `classic/cartpole-v0`; physics variants through `length` (half the pole, m), `masspole` (kg) and
      `force_mag` (N), e.g. the transfer variants of `rtarena improve --variant long:length=0.8`
    """
    env = gymnasium.make("CartPole-v1", render_mode=render_mode, max_episode_steps=max_episode_steps)
    env.unwrapped.tau = check_dt(dt)
    physics = env.unwrapped
    physics.length, physics.masspole, physics.force_mag = float(length), float(masspole), float(force_mag)
    physics.total_mass = physics.masspole + physics.masscart
    physics.polemass_length = physics.masspole * physics.length
    return GymnasiumAdapter(env, dt=dt)
