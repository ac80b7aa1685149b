"""`sb3:PATH`: a Stable-Baselines3 policy trained on the arena's `state` vector or its 84 x 84 `rgb` frames
(`rtarena train sb3 [--obs pixels]`).

It plays under any clock like any other agent: each decision is one forward pass of the saved policy on
the observation's `state` vector, or on its `rgb` frame for a pixel policy (deterministic: the most likely
action). The env must make that modality at the policy's size (a pixel policy: `rgb` at resolution 84).
A policy over the first k fields of the action (its saved action space is shorter) leaves the other fields
0. Needs the `rl` extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rtarena.contract import Agent, AgentContext, Decision, Observes
from rtarena.errors import UserError


class SB3Agent(Agent):
    """A saved SB3 policy (`.zip`) acting on `observation["state"]` or, for a pixel policy, `["rgb"]`."""

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
        # SB3 stores a pixel policy's space channel-first (its image transpose); ours are channel-last
        shape = self.model.observation_space.shape
        self.modality = "rgb" if len(shape) == 3 else "state"
        self.want = (shape[1], shape[2], shape[0]) if self.modality == "rgb" and shape[0] == 3 else shape
        # the runner makes the env produce it (`rtarena run arena/basic-v0 --agent sb3:PIXELS.zip`: rgb at 84)
        self.observes = Observes((self.modality,), int(self.want[0]) if self.modality == "rgb" else None)

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        space = context.observation_spaces[context.agent]
        given = getattr(space, "spaces", {})
        if self.modality not in given:
            raise UserError(f"sb3: this policy acts on the `{self.modality}` observation; {context.env_id} gives "
                            f"{', '.join(given) or type(space).__name__}", field="--agent")
        self.width = int(np.prod(context.action_spaces[context.agent].shape))
        if given[self.modality].shape != self.want:
            raise UserError(f"sb3: the policy expects {self.modality} of shape {self.want}, {context.env_id} gives "
                            f"{given[self.modality].shape}", field="--agent")

    def act(self, observation: Any) -> Decision:
        frame = observation[self.modality]
        if self.modality == "rgb":
            frame = np.ascontiguousarray(np.asarray(frame, dtype=np.uint8).transpose(2, 0, 1))
        chosen, _ = self.model.predict(np.asarray(frame, dtype=np.float32) if self.modality == "state" else frame,
                                       deterministic=True)
        action = np.zeros(self.width, dtype=np.int64)
        action[:len(chosen)] = chosen
        return Decision(action=action)
