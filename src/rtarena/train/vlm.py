"""Online PPO with LoRA adapters for a language model playing the arena: `rtarena train vlm`.

The method of the research system this follows (ROAR): the model reads the observation as text, writes
its action as text (`ACTION: [0, 2, 0, 0, 1, 0, 0]` or a JSON object, parsed by the same parser as the
`llm:` agent), the env applies it and its reward (points) is the training signal. PPO (Schulman et al.
2017) updates LoRA adapters (Hu et al. 2021, via PEFT) and a value head on the prompt's last hidden state;
the base weights stay frozen. One decision = one PPO step: its log-probability is the sum over the
generated tokens, advantages are GAE over the episode's decisions.

    rtarena train vlm arena/basic-v0 --model Qwen/Qwen2.5-0.5B-Instruct --updates 50 --out runs/lora

Why not TRL's trainer: TRL 1.x (1.16 installed) has no PPO trainer any more (only GRPO/RLOO-style
trainers fed by prompt datasets or rollout functions), and its older `PPOTrainer` scored finished texts
with a reward model rather than stepping an environment. So the PPO update is written here with PEFT and
torch; TRL is not needed for it. Image observations (a VLM processor) are not wired yet: the observation
is the level's `text` modality.

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

from rtarena.agents.llm.parsing import parser_for
from rtarena.runtime.documentation import action_names


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
    max_prompt_tokens: int = 1024
    temperature: float = 1.0
    lora_r: int = 8
    lora_alpha: int = 16


class PolicyWithValue(nn.Module):
    """A causal LM with LoRA adapters and a scalar value head."""

    def __init__(self, model: Any, settings: PPOSettings) -> None:
        super().__init__()
        from peft import LoraConfig, get_peft_model

        for p in model.parameters():
            p.requires_grad_(False)
        self.lm = get_peft_model(model, LoraConfig(r=settings.lora_r, lora_alpha=settings.lora_alpha,
                                                   lora_dropout=0.0, task_type="CAUSAL_LM"))
        self.value = nn.Linear(model.config.hidden_size, 1).to(model.device)

    def adapter_state(self) -> dict[str, torch.Tensor]:
        return {k: v.detach().clone() for k, v in self.lm.named_parameters() if v.requires_grad}

    def evaluate(self, prompt: torch.Tensor, action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probability of the generated `action` tokens after `prompt`, and the prompt's value."""
        ids = torch.cat([prompt, action]).unsqueeze(0)
        out = self.lm(input_ids=ids, output_hidden_states=True)
        logits = out.logits[0, len(prompt) - 1:-1].float()
        logp = torch.log_softmax(logits, dim=-1).gather(1, action.unsqueeze(1)).sum()
        value = self.value(out.hidden_states[-1][0, len(prompt) - 1].float()).squeeze()
        return logp, value


@dataclass
class Sample:
    prompt: torch.Tensor
    action: torch.Tensor
    logp: float
    value: float
    reward: float
    done: bool
    valid: bool


def prompt_text(observation: dict[str, Any], fields: str) -> str:
    return f"{observation['text']}\nFields: {fields}\nReply with one line: ACTION: [n, n, n, n, n, n, n]\nACTION:"


class VLMTrainer:
    """Collects decisions from a one-player arena level and runs PPO on them."""

    def __init__(self, env: Any, model: Any, tokenizer: Any, settings: PPOSettings | None = None,
                 seed: int = 0) -> None:
        self.env, self.tokenizer, self.settings = env, tokenizer, settings or PPOSettings()
        torch.manual_seed(seed)
        self.policy = PolicyWithValue(model, self.settings)
        self.device = model.device
        params = [p for p in self.policy.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=self.settings.learning_rate)
        self.agent = env.possible_agents[0]
        names = action_names(env, self.agent)
        self.parser = parser_for(env.action_space(self.agent), names)
        self.fields = ", ".join(names) if names else ""
        self.seed, self.episode = seed, 0
        self.observation = self._reset()
        self.returns: list[float] = []
        self._return = 0.0

    def _reset(self) -> dict[str, Any]:
        observations, _ = self.env.reset(seed=self.seed + self.episode)
        self.episode += 1
        return observations[self.agent]

    def _encode(self, text: str) -> torch.Tensor:
        ids = self.tokenizer(text, return_tensors="pt").input_ids[0]
        return ids[-self.settings.max_prompt_tokens:].to(self.device)

    @torch.no_grad()
    def collect(self) -> list[Sample]:
        s, out = self.settings, []
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        self.policy.eval()
        for _ in range(s.steps_per_update):
            prompt = self._encode(prompt_text(self.observation, self.fields))
            generated = self.policy.lm.generate(input_ids=prompt.unsqueeze(0), attention_mask=torch.ones_like(
                prompt).unsqueeze(0), do_sample=True, temperature=s.temperature, max_new_tokens=s.max_new_tokens,
                pad_token_id=pad)[0, len(prompt):]
            if len(generated) == 0:
                generated = torch.tensor([pad], device=self.device)
            logp, value = self.policy.evaluate(prompt, generated)
            parsed = self.parser.parse("ACTION:" + self.tokenizer.decode(generated, skip_special_tokens=True))
            action = parsed.action if parsed.valid else self.env.default_action(self.agent)
            observations, rewards, terms, truncs, _ = self.env.step({self.agent: action})
            reward, done = float(rewards[self.agent]), bool(terms[self.agent] or truncs[self.agent])
            out.append(Sample(prompt, generated, float(logp), float(value), reward, done, parsed.valid))
            self._return += reward
            if done:
                self.returns.append(self._return)
                self._return = 0.0
                self.observation = self._reset()
            else:
                self.observation = observations[self.agent]
        return out

    def advantages(self, batch: list[Sample]) -> tuple[np.ndarray, np.ndarray]:
        """GAE over the batch (an episode boundary cuts the sums; the last state is bootstrapped)."""
        s = self.settings
        with torch.no_grad():
            _, last = self.policy.evaluate(self._encode(prompt_text(self.observation, self.fields)),
                                           torch.tensor([0], device=self.device))
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
        (out / "settings.json").write_text(json.dumps(asdict(self.settings), indent=2))
        return out


def train_vlm(env_id: str, model_name: str, updates: int, out: str | Path, seed: int = 0,
              settings: PPOSettings | None = None, log: Any = print) -> Path:
    """`rtarena train vlm`: load `model_name` (a local folder or a hub id) on the GPU when there is one."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rtarena.envs.registry import make

    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    tokenizer = AutoTokenizer.from_pretrained(model_name)
    model = AutoModelForCausalLM.from_pretrained(model_name, dtype=dtype).to(device)
    env = make(env_id, obs=("text",))
    log(f"training LoRA adapters of {model_name} on {env_id} ({device})")
    return VLMTrainer(env, model, tokenizer, settings, seed).train(updates, out, log)
