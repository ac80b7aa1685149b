"""`sb3:PATH`: a Stable-Baselines3 policy trained on the arena's `state` observation (`rtarena train sb3`).

It plays under any clock like any other agent: each decision is one forward pass of the saved policy on
the observation's `state` vector (deterministic: the most likely action). A policy over the first k
fields of the action (its saved action space is shorter) leaves the other fields 0. Needs the `rl` extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rtarena.contract import Agent, AgentContext, Decision
from rtarena.errors import UserError


class SB3Agent(Agent):
    """A saved SB3 policy (`.zip`) acting on `observation["state"]`."""

    def __init__(self, path: str | None = None) -> None:
        if not path:
            raise UserError("sb3 needs the saved policy: sb3:PATH (from `rtarena train sb3`)", field="--agent")
        if not Path(path).is_file():
            raise UserError(f"sb3: no such policy file: {path}", field="--agent")
        try:
            from stable_baselines3.common.base_class import BaseAlgorithm
        except ImportError as error:
            raise UserError(f"sb3 needs a missing package: {error.name} (pip install 'rtarena[rl]')") from None
        import zipfile

        if not zipfile.is_zipfile(path):
            raise UserError(f"sb3: not a saved Stable-Baselines3 policy: {path}", field="--agent")
        import torch
        from stable_baselines3 import PPO

        torch.set_num_threads(1)  # one small forward pass per decision: threads would only contend

        self.path = path
        self.model: BaseAlgorithm = PPO.load(path, device="cpu")

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        space = context.observation_spaces[context.agent]
        if "state" not in getattr(space, "spaces", {}):
            raise UserError(f"sb3 acts on the `state` observation; {context.env_id} gives "
                            f"{', '.join(getattr(space, 'spaces', {})) or type(space).__name__}", field="--agent")
        self.width = int(np.prod(context.action_spaces[context.agent].shape))
        want = self.model.observation_space.shape
        if space["state"].shape != want:
            raise UserError(f"sb3: the policy expects a state of shape {want}, {context.env_id} gives "
                            f"{space['state'].shape}", field="--agent")

    def act(self, observation: Any) -> Decision:
        chosen, _ = self.model.predict(np.asarray(observation["state"], dtype=np.float32), deterministic=True)
        action = np.zeros(self.width, dtype=np.int64)
        action[:len(chosen)] = chosen
        return Decision(action=action)
