"""Online PPO with LoRA adapters for a (vision-)language model playing the arena: `rtarena train vlm`.

The method of the research system this follows (ROAR, after RL4VLM): the model sees the screenshot (or,
with `--obs text`, the level's text view), writes its action as text, the env applies it and its reward
(points) is the training signal. PPO (Schulman et al. 2017) updates LoRA adapters (Hu et al. 2021, via
PEFT) and a value head on the prompt's last hidden state; the base weights stay frozen. One decision = one
PPO step: its log-probability is the sum over the generated tokens, advantages are GAE over the episode's
decisions.

    rtarena train vlm arena/basic-v0 --model PATH --updates 50 --out runs/lora
    rtarena run arena/basic-v0 --agent vlm:PATH,adapter=runs/lora/adapter,history=0

The policy acts through the `vlm:` agent (`agents/llm/local.py`): the same system prompt, observation
message and reply parser as `llm:`, so an adapter is trained on exactly the prompt it is evaluated with.
Two documented choices keep a CPU-sized run feasible: the agent keeps no history (`history=0`, one frame
per prompt, as RL4VLM's single-turn prompts) and replies are capped at `max_new_tokens`; play the adapter
with the same `history=0` (`OUT/settings.json` records the agent options used). Any local model folder
works: a VLM (config with `vision_config`) sees the `rgb` frame at `--resolution` (84 by default, the
pixel baseline's size), a text model the text view.

Why not TRL's trainer: TRL 1.x (1.16 installed) has no PPO trainer any more (only GRPO/RLOO-style
trainers fed by prompt datasets or rollout functions), and its older `PPOTrainer` scored finished texts
with a reward model rather than stepping an environment. So the PPO update is written here with PEFT and
torch; TRL is not needed for it.

Each update writes one JSON line to `OUT/log.jsonl` (env reward, returns, valid action share, losses);
the adapter goes to `OUT/adapter/` (PEFT format) and the value head to `OUT/value_head.pt`.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from rtarena.agents.llm.local import VLMAgent, is_vision_model, load_local_model
from rtarena.errors import UserError
from rtarena.runtime.clocks import make_clock
from rtarena.runtime.controllers import ControllerSlot, context_for

OBS_KINDS = ("pixels", "text")
DEFAULT_RESOLUTION = 84  # the pixel baseline's frame size (train/sb3.py): trained agents compared alike
VISION_LORA_TARGETS = r".*language_model.*\.(q_proj|k_proj|v_proj|o_proj)"  # a VLM: adapters on its LM only


@dataclass(frozen=True)
class PPOSettings:
    """PPO numbers (documented choices: the paper gives none for a CPU-sized run)."""

    steps_per_update: int = 32  # env decisions collected per update
    epochs: int = 2
    learning_rate: float = 1e-4
    clip: float = 0.2
    gamma: float = 0.99
    lam: float = 0.95
    value_coef: float = 0.5
    max_new_tokens: int = 24
    temperature: float = 1.0
    lora_r: int = 8
    lora_alpha: int = 16


class PolicyWithValue(nn.Module):
    """A causal LM or VLM with LoRA adapters and a scalar value head."""

    def __init__(self, model: Any, settings: PPOSettings, vision: bool = False) -> None:
        super().__init__()
        from peft import LoraConfig, get_peft_model

        for p in model.parameters():
            p.requires_grad_(False)
        targets = {"target_modules": VISION_LORA_TARGETS} if vision else {}
        self.lm = get_peft_model(model, LoraConfig(r=settings.lora_r, lora_alpha=settings.lora_alpha,
                                                   lora_dropout=0.0, task_type="CAUSAL_LM", **targets))
        self.value = nn.Linear(model.config.get_text_config().hidden_size, 1).to(model.device)

    def adapter_state(self) -> dict[str, torch.Tensor]:
        return {k: v.detach().clone() for k, v in self.lm.named_parameters() if v.requires_grad}

    def evaluate(self, prompt: dict[str, torch.Tensor], action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probability of the generated `action` tokens after `prompt` (model inputs, a batch of one),
        and the prompt's value."""
        ids = prompt["input_ids"][0]
        extra = {k: v for k, v in prompt.items() if k not in ("input_ids", "attention_mask")}
        full = torch.cat([ids, action]).unsqueeze(0)
        out = self.lm(input_ids=full, attention_mask=torch.ones_like(full), output_hidden_states=True, **extra)
        logits = out.logits[0, len(ids) - 1:-1].float()
        logp = torch.log_softmax(logits, dim=-1).gather(1, action.unsqueeze(1)).sum()
        value = self.value(out.hidden_states[-1][0, len(ids) - 1].float()).squeeze()
        return logp, value


@dataclass
class Sample:
    prompt: dict[str, torch.Tensor]
    action: torch.Tensor
    logp: float
    value: float
    reward: float
    done: bool
    valid: bool


class VLMTrainer:
    """Collects decisions of the `vlm:` agent (its model wrapped with adapters) on a one-player level and
    runs PPO on them."""

    def __init__(self, env: Any, model: Any, processor: Any, settings: PPOSettings | None = None,
                 seed: int = 0, vision: bool = False, env_id: str = "") -> None:
        self.env, self.settings = env, settings or PPOSettings()
        s = self.settings
        torch.manual_seed(seed)
        self.policy = PolicyWithValue(model, s, vision)
        self.device = model.device
        params = [p for p in self.policy.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=s.learning_rate)
        self.agent_id = env.possible_agents[0]
        name = getattr(getattr(model, "config", None), "name_or_path", "") or "local"
        self.agent_options = f"history=0,max_tokens={s.max_new_tokens},temperature={s.temperature}"
        self.agent = VLMAgent(f"{name},{self.agent_options}", loaded=(self.policy.lm, processor, vision))
        self.slot = ControllerSlot(self.agent_id, (self.agent_id,), self.agent)
        self.clock = make_clock("paused")
        self.env_id, self.seed, self.episode = env_id, seed, 0
        self.observation = self._reset()
        self.returns: list[float] = []
        self._return = 0.0

    def _reset(self) -> Any:
        observations, _ = self.env.reset(seed=self.seed + self.episode)
        self.agent.reset(context_for(self.slot, self.env, self.env_id, self.seed + self.episode, self.clock, 0))
        self.episode += 1
        return observations[self.agent_id]

    def _prompt(self, observation: Any) -> dict[str, torch.Tensor]:
        """The agent's model inputs for an observation, without deciding (the bootstrap value's state)."""
        from rtarena.agents.llm.local import encode, render_chat

        client = self.agent.client
        messages = self.agent.history.messages(self.agent.system, self.agent.user_message(observation))
        return encode(client.processor, *render_chat(client.processor, messages, client.vision), self.device)

    def collect(self) -> list[Sample]:
        out = []
        self.policy.eval()
        for _ in range(self.settings.steps_per_update):
            decision = self.agent.act(self.observation)
            prompt, generated = self.agent.client.last
            if len(generated) == 0:
                generated = torch.tensor([self.agent.client.model.config.get_text_config().eos_token_id or 0],
                                         device=self.device)
            with torch.no_grad():
                logp, value = self.policy.evaluate(prompt, generated)
            observations, rewards, terms, truncs, _ = self.env.step({self.agent_id: decision.action})
            reward, done = float(rewards[self.agent_id]), bool(terms[self.agent_id] or truncs[self.agent_id])
            out.append(Sample(prompt, generated, float(logp), float(value), reward, done, decision.valid))
            self._return += reward
            if done:
                self.returns.append(self._return)
                self._return = 0.0
                self.observation = self._reset()
            else:
                self.observation = observations[self.agent_id]
        return out

    def advantages(self, batch: list[Sample]) -> tuple[np.ndarray, np.ndarray]:
        """GAE over the batch (an episode boundary cuts the sums; the last state is bootstrapped)."""
        s = self.settings
        with torch.no_grad():
            _, last = self.policy.evaluate(self._prompt(self.observation), torch.tensor([0], device=self.device))
        adv, running, next_value = np.zeros(len(batch)), 0.0, float(last)
        for k in reversed(range(len(batch))):
            b = batch[k]
            keep = 0.0 if b.done else 1.0
            delta = b.reward + s.gamma * next_value * keep - b.value
            running = delta + s.gamma * s.lam * keep * running
            adv[k], next_value = running, b.value
        return adv, adv + np.array([b.value for b in batch])

    def update(self) -> dict[str, Any]:
        """One PPO update on freshly collected decisions; returns the logged line."""
        s = self.settings
        batch = self.collect()
        adv, targets = self.advantages(batch)
        norm = (adv - adv.mean()) / (adv.std() + 1e-8) if len(adv) > 1 else adv
        self.last_batch, self.last_advantages = batch, norm
        self.policy.train()
        policy_losses, value_losses = [], []
        for _ in range(s.epochs):
            for k, b in enumerate(batch):
                logp, value = self.policy.evaluate(b.prompt, b.action)
                ratio = torch.exp(logp - b.logp)
                a = float(norm[k])
                policy_loss = -torch.min(ratio * a, torch.clamp(ratio, 1 - s.clip, 1 + s.clip) * a)
                value_loss = (value - float(targets[k])) ** 2
                self.optimizer.zero_grad()
                (policy_loss + s.value_coef * value_loss).backward()
                self.optimizer.step()
                policy_losses.append(float(policy_loss.detach()))
                value_losses.append(float(value_loss.detach()))
        return {"env_steps": len(batch), "reward": float(sum(b.reward for b in batch)),
                "mean_reward": float(np.mean([b.reward for b in batch])),
                "valid_actions": float(np.mean([b.valid for b in batch])),
                "episodes_done": len(self.returns), "mean_return": float(np.mean(self.returns)) if self.returns
                else None, "policy_loss": float(np.mean(policy_losses)), "value_loss": float(np.mean(value_losses))}

    def train(self, updates: int, out: str | Path, log: Any = print) -> Path:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        with (out / "log.jsonl").open("a") as handle:
            for index in range(updates):
                line = {"update": index, **self.update()}
                if not all(math.isfinite(v) for v in (line["policy_loss"], line["value_loss"])):
                    raise FloatingPointError(f"PPO loss is not finite at update {index}: {line}")
                handle.write(json.dumps(line) + "\n")
                handle.flush()
                log(f"update {index}: reward {line['reward']:.2f} over {line['env_steps']} steps, valid actions "
                    f"{line['valid_actions']:.0%}, policy loss {line['policy_loss']:.4f}")
        self.policy.lm.save_pretrained(out / "adapter")
        torch.save(self.policy.value.state_dict(), out / "value_head.pt")
        (out / "settings.json").write_text(json.dumps({**asdict(self.settings), "agent_options": self.agent_options},
                                                      indent=2))
        return out


def train_vlm(env_id: str, model_path: str, updates: int, out: str | Path, seed: int = 0,
              settings: PPOSettings | None = None, log: Any = print, obs: str = "pixels",
              resolution: int = DEFAULT_RESOLUTION, device: str | None = None) -> Path:
    """`rtarena train vlm`: load the local model in `model_path` (on the GPU when there is one, or `device`)
    and train LoRA adapters on `env_id`'s screenshots (`obs="pixels"`) or text view."""
    from rtarena.envs.registry import env_spec, make

    if obs not in OBS_KINDS:
        raise UserError(f"--obs must be one of {', '.join(OBS_KINDS)}, got {obs!r}", field="--obs")
    if env_spec(env_id).family != "arena":
        raise UserError(f"train vlm runs one-player arena levels, not {env_id}", field="ENV_ID")
    if obs == "pixels" and not is_vision_model(model_path, where="--model"):
        raise UserError(f"--obs pixels needs a vision-language model (a config with vision_config); {model_path} "
                        "is a text model: use --obs text", field="--model")
    model, processor, vision = load_local_model(model_path, device=device, where="--model")
    env = make(env_id, obs=("rgb",), resolution=resolution) if obs == "pixels" else make(env_id, obs=("text",))
    if len(env.possible_agents) != 1:
        raise UserError(f"{env_id} has {len(env.possible_agents)} players; train vlm needs a one-player level",
                        field="ENV_ID")
    log(f"training LoRA adapters of {model_path} on {env_id} ({obs}, {model.device})")
    return VLMTrainer(env, model, processor, settings, seed, vision, env_id).train(updates, out, log)
