"""The registered arena levels. Each class is a level file plus its scoring; the docstrings are the docs.

Shared by all levels:

- Action space `MultiDiscrete([3, 3, 3, 3, 2, 2, 2])`: move_x (0 none, 1 left, 2 right), move_y (0 none,
  1 backward, 2 forward), yaw (0 none, 1 left, 2 right), pitch (0 none, 1 down, 2 up), fire, jump,
  minimap. `[1, 0, 0, 0, 1, 0, 0]` moves left and fires. The default action is all zeros. An action is held
  for the whole step (`dt`, default 0.25 s; any positive value, 0.04 s included) while physics runs in
  equal sub-steps of at most {arena.substep_s:g} s (`arena.substep_s`).
- Observation: a dict of the modalities chosen with `obs=` (default `("text", "state")`); see
  `observations/text.py` and `observations/state.py` for the formats, `docs/metrics.md` for the metrics.
- Reward: the points made in the step (coin, kill, turret, chicken; `[points]` in the level file).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rtarena.envs.arena.env import ArenaEnv
from rtarena.envs.arena.rules import load_rules
from rtarena.envs.level_files import fill_doc

__doc__ = fill_doc(__doc__, load_rules(ArenaEnv.level_file))  # the family's notes render the level file's numbers


class BasicLevel(ArenaEnv):
    """One player collects the coins of a {arena.size_m:g} m arena while {turret.count} turrets guard it.

    ## Description
    A {arena.size_m:g} m x {arena.size_m:g} m arena with {layout.walls} walls, {layout.crates} low crates (jump over
    them), {coins.count} coins, {ammo.count} ammo boxes, {chickens.count} chickens and {turret.count} turrets; toxic
    zone: {toxic_zone.enabled}. The player starts facing the centre with {players.ammo_start} rounds.
    ## Observation
    `text` and `state` by default (`obs=`); `rgb`, `depth`, `audio` when the renderer is installed.
    ## Action Space
    `MultiDiscrete([3, 3, 3, 3, 2, 2, 2])` (move_x, move_y, yaw, pitch, fire, jump, minimap).
    ## Rewards and Score
    Reward: the points of the step (coin {points.coin:g}, turret {points.turret:g}, chicken {points.chicken:g}).
    Score = coins collected / coins placed, in [0, 1]. Outcome: win when every coin is collected, otherwise loss.
    ## Termination
    Terminated when every coin is collected or the player dies; truncated at the time limit
    ({arena.time_limit_s:g} s).
    ## Registered Configurations
    - `arena/basic-v0` (one agent; also a Gymnasium env through `gymnasium.make("arena/basic-v0")`)
    """

    level_file = "basic.toml"
    # its end rule (every coin taken) is the one the fused one-player step compiles (fused.py)
    capabilities = replace(ArenaEnv.capabilities, fused_step=True)

    def score(self, i: int) -> float:
        total = len(self.world.coins.active)
        return float(self.coins_taken[i] / total) if total else 0.0

    def scores(self) -> np.ndarray:
        total = len(self.world.coins.active)
        return self.coins_taken / total if total else np.zeros(len(self.possible_agents))

    def outcome(self, i: int) -> str:
        return "win" if len(self.world.coins.active) and not self.world.coins.active.any() else "loss"

    def level_over(self) -> bool:
        return len(self.world.coins.active) > 0 and not self.world.coins.active.any()


class CoopLevel(BasicLevel):
    """{players.count} players on one team collect every coin of a {arena.size_m:g} m arena together.

    ## Description
    A {arena.size_m:g} m x {arena.size_m:g} m arena with {layout.walls} walls, {layout.crates} crates,
    {coins.count} coins, {ammo.count} ammo boxes, {chickens.count} chickens, {turret.count} turrets and a
    toxic zone ({toxic_zone.enabled}) that shrinks from a {toxic_zone.start_radius_m:g} m to a
    {toxic_zone.end_radius_m:g} m radius in {toxic_zone.stages} stages from {toxic_zone.first_shrink_s:g} s.
    Every player is on team 0; friendly fire: {weapon.friendly_fire}.
    ## Observation
    `text` and `state` by default (`obs=`).
    ## Action Space
    `MultiDiscrete([3, 3, 3, 3, 2, 2, 2])`.
    ## Rewards and Score
    Reward: the player's own points of the step. Score (the same for every player) = coins collected by
    the team / coins placed, in [0, 1]. Outcome: win when the team collects every coin, otherwise loss.
    ## Termination
    Terminated when every coin is collected (everyone) or the player dies; truncated at
    {arena.time_limit_s:g} s.
    ## Registered Configurations
    - `arena/coop-v0` (`num_agents=` sets the team size, {players.count} by default)
    """

    level_file = "coop.toml"

    def score(self, i: int) -> float:
        total = len(self.world.coins.active)
        return float(self.coins_taken[self.team_members(i)].sum() / total) if total else 0.0

    def scores(self) -> np.ndarray:
        total = len(self.world.coins.active)
        teams = self.world.players.team
        by_team = np.bincount(teams, weights=self.coins_taken, minlength=int(teams.max()) + 1)
        return by_team[teams] / total if total else np.zeros(len(teams))


class CompetitiveLevel(ArenaEnv):
    """{players.count} players, each for itself, score with coins, kills, turrets and chickens.

    ## Description
    The coop arena ({arena.size_m:g} m, {coins.count} coins, {turret.count} turrets, toxic zone
    {toxic_zone.enabled}), but every player is its own team: opponents shoot back.
    ## Observation
    `text` and `state` by default (`obs=`).
    ## Action Space
    `MultiDiscrete([3, 3, 3, 3, 2, 2, 2])`.
    ## Rewards and Score
    Points: coin {points.coin:g}, kill {points.kill:g}, turret destroyed {points.turret:g}, chicken
    {points.chicken:g} (the reward of the step). Score = points / (coins x {points.coin:g} + opponents x
    {points.kill:g} + turrets x {points.turret:g}), clipped to [0, 1]. Outcome: win with strictly the most
    points, draw when tied for the most, loss otherwise. Dead players keep their points.
    ## Termination
    Terminated when the player dies, or for everyone when no coin is left and at most one player lives;
    truncated at {arena.time_limit_s:g} s.
    ## Registered Configurations
    - `arena/competitive-v0` (`num_agents=`, {players.count} by default)
    """

    level_file = "competitive.toml"
    capabilities = ArenaEnv.capabilities  # its own end rule: no fused step

    def side_points(self) -> np.ndarray:
        """Points per team, indexed by team number."""
        teams = self.world.players.team
        return np.bincount(teams, weights=self.points, minlength=int(teams.max()) + 1)

    def score(self, i: int) -> float:
        members = self.team_members(i)
        return float(min(1.0, self.points[members].sum() / self.max_points(len(members))))

    def scores(self) -> np.ndarray:
        teams = self.world.players.team
        sizes = np.bincount(teams)
        best = np.array([self.max_points(int(k)) for k in sizes[teams]])
        return np.minimum(1.0, self.side_points()[teams] / best)

    def outcome(self, i: int) -> str:
        sides = self.side_points()
        mine = sides[self.world.players.team[i]]
        best = sides.max()
        if mine < best:
            return "loss"
        return "win" if np.sum(sides == best) == 1 else "draw"

    def level_over(self) -> bool:
        p = self.world.players
        return not self.world.coins.active.any() and len(np.unique(p.team[p.alive])) <= 1


class MixedLevel(CompetitiveLevel):
    """Two teams of two: a team scores with its members' coins, kills, turrets and chickens.

    ## Description
    The competitive arena with players 0-1 on team 0 and 2-3 on team 1 (with `num_agents=n`, the first
    half and the second half). Shots pass through teammates.
    ## Observation
    `text` and `state` by default (`obs=`).
    ## Action Space
    `MultiDiscrete([3, 3, 3, 3, 2, 2, 2])`.
    ## Rewards and Score
    Reward: the player's own points (coin {points.coin:g}, kill {points.kill:g}, turret {points.turret:g},
    chicken {points.chicken:g}). Score (the same for both members) = team points / (coins x {points.coin:g} +
    opponents x {points.kill:g} + turrets x {points.turret:g}), clipped to [0, 1]. Outcome: the
    team with more points wins, equal points draw.
    ## Termination
    Terminated when the player dies, or for everyone when no coin is left and at most one team lives;
    truncated at {arena.time_limit_s:g} s.
    ## Registered Configurations
    - `arena/mixed-v0` (`num_agents=`, {players.count} by default)
    """

    level_file = "mixed.toml"
