"""Kitchen: workshop's floor for two cooks who share the order board, the bins and the bench."""

from __future__ import annotations

import numpy as np

from rtarena.envs.games.workshop import Workshop


class Kitchen(Workshop):
    """Two cooks fill one order board together: the workshop's mechanics, shared by a team.

    ## Description
    The workshop's rules (see `games/workshop-v0`) on a larger floor with four part kinds, played by
    two cooks at once: one order board, one set of bins, one bench, one counter and trash, all shared.
    The cooks start at opposite ends of the floor (seeded stations along the walls); each carries one
    item; either may take what the other put on the bench or dropped on the floor. Orders come faster
    than one cook could serve (`orders.interval_s` {orders.interval_s:g} s), so the team must split the work.

    ## Observation
    As the workshop's, from each cook's side: `rgb` the floor from above (you blue and labelled YOU, the
    other cook orange and labelled MATE; the legend below), `text` the HUD (shared orders and points, your
    hands, prompt) and the stations' bearings, `state` your x, y, carried item, the bench and the order
    slots.

    ## Action Space
    Keys `W A S D E Space`; no mouse. Text form: `0 0 ; W*4 ; E ; - ; D*3`.

    ## Rewards and Score
    Team score, the same for both cooks: min(1, points of delivered orders / `orders.target_points`)
    (plain {orders.points_plain:g}, upgraded {orders.points_upgraded:g}; the documented maximum is
    {orders.target_points:g} points); reward = the score's change.

    ## Termination
    The time limit ({game.time_limit_s:g} s) truncates.

    ## Capabilities
    Rated 0-3 in the level file's `[capabilities]` table (`rtarena list --capabilities`).

    ## Variants
    {variants}

    ## Registered Configurations
    - `games/kitchen-v0`, `games/kitchen-var1-v0`, `games/kitchen-var2-v0`, `games/kitchen-var3-v0`
    """

    level_file = "kitchen.toml"

    def _new_world(self, rng: np.random.Generator) -> None:
        super()._new_world(rng)
        room = self.rules.room
        span = room.width_m / 2 if room.layout == "two-rooms" else room.width_m
        for i, agent in enumerate(self.possible_agents):  # spread along the floor's middle line
            self.pos[agent] = np.array([span * (i + 1) / (len(self.possible_agents) + 1), room.height_m / 2])

    def privileged_state(self, agent: str) -> dict:
        return {**super().privileged_state(agent), "seat": self.possible_agents.index(agent),
                "seats": len(self.possible_agents),
                "others_held": [self.hands[a].item for a in self.possible_agents if a != agent]}
