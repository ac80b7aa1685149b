"""`ArenaVectorEnv`: N copies of a one-player arena level in one process, behind Gymnasium's vector API.

For reinforcement learning: `step(actions)` takes a `(N, 7)` batch of MultiDiscrete actions and returns
batched observations, rewards, terminations and truncations. Two observation kinds:

- `obs="state"`: `(N, D)` float32, the `state` modality (`observations/state.py`, every entry in [-1, 1]).
- `obs="pixels"`: `(N, 84, 84, 3)` uint8, the `rgb` modality at 84 x 84 (Atari-sized, as RL code expects).

With pixels on a one-player coin level (`arena/basic-v0`, `arena/coop-v0` with one agent) every copy is
stepped by ONE compiled call per batch (`fused.py`: world, reward, end, sprites, HUD and pixels written
into the batch arrays, autoreset included); the Python around it runs only at episode ends (final info,
the next episode's world). Otherwise (`obs="state"`, other levels, `batched=False`) copies step one after
the other through `ArenaEnv.step`: the same records (`tests/arena/test_fused.py`). No subprocesses: the
arena's compiled step makes one copy's step cost tens of microseconds, so process-per-copy vectorisation
would cost more in pickling than it saves. Copy `k` is seeded `seed + k` at `reset(seed=...)`.

Autoreset is `SAME_STEP`: a copy whose episode ended is reset inside the same `step()`, its last
observation and info are in `infos["final_obs"]` / `infos["final_info"]` (masked by `infos["_final_obs"]`),
and `infos["score"]` holds the finished episode's level score (masked by `infos["_score"]`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from rtarena.errors import UserError

OBS_KINDS = {"state": ("state", {}), "pixels": ("rgb", {"resolution": 84})}


class ArenaVectorEnv(VectorEnv):
    """`num_envs` copies of `env_id` (a one-player arena level) stepped in lockstep."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, env_id: str = "arena/basic-v0", num_envs: int = 8, obs: str = "state",
                 env_kwargs: Mapping[str, Any] | None = None, batched: bool | None = None) -> None:
        """`batched`: step the copies in one compiled call (default: wherever `fused.supports` the level and
        the observation is pixels); False steps them one by one."""
        from rtarena.envs.arena import fused
        from rtarena.envs.registry import env_spec, make

        if env_spec(env_id).family != "arena":
            raise UserError(f"the vector env runs arena levels, not {env_id}", field="env_id")
        if obs not in OBS_KINDS:
            raise UserError(f"obs must be one of {', '.join(OBS_KINDS)}, got {obs!r}", field="obs")
        if num_envs < 1:
            raise UserError(f"num_envs must be at least 1, got {num_envs!r}", field="num_envs")
        self.modality, extra = OBS_KINDS[obs]
        kwargs = {**extra, **(env_kwargs or {})}
        self.envs = [make(env_id, obs=(self.modality,), **kwargs) for _ in range(num_envs)]
        if len(self.envs[0].possible_agents) != 1:
            raise UserError(f"{env_id} has {len(self.envs[0].possible_agents)} players; the vector env needs a "
                            f"one-player level (pass env_kwargs={{'num_agents': 1}})", field="env_id")
        self.env_id, self.num_envs, self.obs_kind = env_id, num_envs, obs
        self.agent = self.envs[0].possible_agents[0]
        self.single_observation_space = self.envs[0].observation_space(self.agent)[self.modality]
        self.single_action_space = self.envs[0].action_space(self.agent)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.dt = self.envs[0].dt
        space = self.single_observation_space
        assert isinstance(space, spaces.Box)
        self._obs = np.zeros((num_envs, *space.shape), dtype=space.dtype)
        self._seed: int | None = None
        self._episodes = np.zeros(num_envs, dtype=np.int64)
        can_fuse = obs == "pixels" and fused.supports(self.envs[0])
        if batched and not can_fuse:
            raise UserError(f"the batched step plays pixels of one-player coin levels, not {env_id} with obs={obs!r}",
                            field="batched")
        self.batched = can_fuse if batched is None else bool(batched)
        self.spares: list[Any] = []
        if self.batched:  # each copy's next episode, reset ahead (`fused.Slot`)
            self.spares = [make(env_id, obs=(self.modality,), **kwargs) for _ in range(num_envs)]
            for env in [*self.envs, *self.spares]:
                env.fuse = False  # the batch steps them: no one-agent step of their own
            self._batch: Any = None

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        seeds = seed if isinstance(seed, list) else [None if seed is None else seed + k for k in range(self.num_envs)]
        self._seed = seeds[0]
        self._episodes[:] = 0
        infos: dict[str, Any] = {}
        for k, env in enumerate(self.envs):
            observations, _ = env.reset(seed=seeds[k], options=options)
            self._obs[k] = observations[self.agent][self.modality]
        if self.batched:
            self._reset_slots()
        return self._obs.copy(), infos

    def _next_seed(self, k: int, episode: int) -> int | None:
        """Copy k's seed for its `episode`-th episode, so copies never replay one another."""
        return None if self._seed is None else self._seed + k + episode * self.num_envs

    def _slot(self, env: Any, seed: int | None, options: dict[str, Any] | None = None) -> Any:
        from rtarena.envs.arena.fused import Slot

        observations, _ = env.reset(seed=seed, options=options)
        return Slot(env, observations[self.agent][self.modality])

    def _reset_slots(self) -> None:
        from rtarena.envs.arena.fused import Batch, Slot

        slots = []
        for k, (env, spare) in enumerate(zip(self.envs, self.spares, strict=True)):
            slots += [Slot(env, self._obs[k]), self._slot(spare, self._next_seed(k, 1))]
        self._batch = Batch(self.envs[0], slots, bool(self.envs[0].sense_options["hud"]))
        self._batch.obs[:] = self._obs

    def step(self, actions: np.ndarray):
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs, -1)
        if self.batched:
            return self._step_batched(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminations = np.zeros(self.num_envs, dtype=bool)
        truncations = np.zeros(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {}
        for k, env in enumerate(self.envs):
            observations, reward, term, trunc, info = env.step({self.agent: actions[k]})
            rewards[k] = reward[self.agent]
            terminations[k], truncations[k] = term[self.agent], trunc[self.agent]
            self._obs[k] = observations[self.agent][self.modality]
            if terminations[k] or truncations[k]:
                final = {"events": info[self.agent]["events"], "score": float(env.scores()[0])}
                infos = self._add_info(infos, {"final_obs": self._obs[k].copy(), "final_info": final,
                                               "score": final["score"]}, k)
                self._episodes[k] += 1
                observations, _ = env.reset(seed=self._next_seed(k, int(self._episodes[k])))
                self._obs[k] = observations[self.agent][self.modality]
        return self._obs.copy(), rewards, terminations, truncations, infos

    def _step_batched(self, actions: np.ndarray):
        """Every copy in one compiled call (`fused.step_batch`); Python only for the copies whose episode ended."""
        batch = self._batch
        batch.step(actions)
        terminations, truncations = batch.terminated.copy(), batch.truncated.copy()
        infos: dict[str, Any] = {}
        for k in np.flatnonzero(terminations | truncations).tolist():
            old = 2 * k + 1 - int(batch.active[k])
            slot, j = batch.slots[old], int(batch.step_at[old])
            plan = batch.shared.plan
            final = {"events": slot.last_events(plan[0][j], float(plan[3][j])), "score": float(slot.env.scores()[0])}
            infos = self._add_info(infos, {"final_obs": batch.final_obs[k].copy(), "final_info": final,
                                           "score": final["score"]}, k)
            self._episodes[k] += 1
            # `envs[k]` is the env playing copy k; the finished one gets the episode after the one just started
            self.envs[k], self.spares[k] = self.spares[k], slot.env
            batch.replace(old, self._slot(slot.env, self._next_seed(k, int(self._episodes[k]) + 1)))
        return batch.obs.copy(), batch.rewards.copy(), terminations, truncations, infos

    def close_extras(self, **kwargs: Any) -> None:
        for env in [*self.envs, *self.spares]:
            env.close()
