"""The VLM training path on CPU, on screenshots: a tiny randomly initialised LLaVA (CLIP tower + Llama),
built here from a config and saved as a local model folder (nothing downloaded), plays arena/basic-v0
through the `vlm:` agent's prompt; a PPO update changes the LoRA adapter and moves the log-probabilities
along the advantages (replies with positive advantage up relative to the others); `--agent
vlm:PATH,adapter=DIR` then plays under `paused` and `wall`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.helpers import run_main

import rtarena
from rtarena.agents.llm.local import load_local_model
from rtarena.agents.specs import build_agent
from rtarena.runtime.match import run_match

# torch, transformers and peft are imported by the tests that use them, not at collection: every pytest
# worker collects every file, and importing peft alone takes 6 s.
sys.path.insert(0, str(Path(__file__).parent))

pytestmark = pytest.mark.timeout(900)
LEVEL = {"overrides": {"arena.time_limit_s": 1.5}}  # 6 steps of 0.25 s: an episode ends inside an update


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from tiny_models import tiny_vlm

    from rtarena.train.vlm import PPOSettings, VLMTrainer

    root = tmp_path_factory.mktemp("vlm")
    folder = tiny_vlm(root / "model")
    model, processor, vision = load_local_model(folder)
    assert vision
    env = rtarena.make("arena/basic-v0", obs=("rgb",), resolution=84, **LEVEL)
    settings = PPOSettings(steps_per_update=8, epochs=2, max_new_tokens=6, learning_rate=4e-3)
    trainer = VLMTrainer(env, model, processor, settings, seed=0, vision=True, env_id="arena/basic-v0")
    before = trainer.policy.adapter_state()
    out = trainer.train(1, root / "lora", log=lambda line: None)
    return folder, out, trainer, before


def test_ppo_on_screenshots_changes_the_adapter_and_favours_replies_with_positive_advantage(trained):
    import torch

    _, out, trainer, before = trained
    after = trainer.policy.adapter_state()
    assert before and all("lora" in name for name in before)
    assert [n for n in before if not torch.equal(before[n], after[n])]  # the update moved LoRA weights
    assert all(not p.requires_grad for n, p in trainer.policy.lm.named_parameters() if "lora" not in n)
    batch, advantages = trainer.last_batch, trainer.last_advantages
    assert all("pixel_values" in b.prompt for b in batch)  # the model saw the screenshot every decision
    with torch.no_grad():
        moved = [float(trainer.policy.evaluate(b.prompt, b.action)[0]) - b.logp for b in batch]
    up = [m for m, a in zip(moved, advantages, strict=True) if a > 0]
    down = [m for m, a in zip(moved, advantages, strict=True) if a < 0]
    # the PPO step's direction: log-probabilities moved along the advantages (replies with positive
    # advantage gained on average, those with negative advantage lost more)
    assert up and down and sum(up) / len(up) > sum(down) / len(down)
    assert sum(m * float(a) for m, a in zip(moved, advantages, strict=True)) > 0
    (line,) = [json.loads(x) for x in (out / "log.jsonl").read_text().splitlines()]
    assert line["env_steps"] == 8 and line["episodes_done"] >= 1
    settings = json.loads((out / "settings.json").read_text())
    assert settings["agent_options"].startswith("history=0")
    assert (out / "adapter" / "adapter_config.json").is_file()


@pytest.mark.parametrize("clock", ["paused", "wall"])
def test_the_trained_adapter_plays_as_an_agent(trained, clock):
    folder, out, _, _ = trained
    agent = build_agent(f"vlm:{folder},adapter={out / 'adapter'},history=0,max_tokens=6", "arena")
    env = rtarena.make("arena/basic-v0", obs=("rgb",), resolution=84, **LEVEL)
    result = run_match(env, [agent], clock=clock, seed=3, max_steps=4)
    decisions = [d for d in result.decisions if d.tokens_source == "server"]
    assert decisions and all(d.tokens_out > 0 and d.tokens_in > 16 for d in decisions)
    assert result.agents["p0"]["decisions"] >= 1


def test_a_bare_run_makes_the_screen_the_vlm_declares_it_observes(trained, tmp_path):
    """`rtarena run arena/basic-v0 --agent vlm:DIR` (issue 42): the VLM declares `rgb`, so the run asks the
    level for it (the arena's default is text and state), which the VLM then reads (`VLMAgent.reset`)."""
    folder, _, _, _ = trained
    code, output = run_main(["run", "arena/basic-v0", "--agent", f"vlm:{folder},history=0,max_tokens=6",
                             "--clock", "paused", "--max-steps", "2", "--set", "arena.time_limit_s=1.5",
                             "--out", str(tmp_path / "o")])
    assert code in (0, 4), output  # 4: the untrained tiny model's replies need not parse; it played
    episode = json.loads((tmp_path / "o" / "episodes.jsonl").read_text())
    assert episode["status"] == "ok" and "rgb" in episode["env_kwargs"]["obs"]
    assert episode["agents"]["p0"]["decisions"] == 2


def test_bad_model_folders_and_adapters_are_one_line_before_training(trained, tmp_path):
    from tiny_models import char_tokenizer, tiny_gpt2

    _, out, _, _ = trained
    text_model = tmp_path / "gpt2"
    tokenizer = char_tokenizer()
    tiny_gpt2(len(tokenizer)).save_pretrained(text_model)
    tokenizer.save_pretrained(text_model)
    cases = [(tmp_path / "missing", "no config.json"), (text_model, "needs a vision-language model")]
    for model, expected in cases:  # the CLI in this process (a real one imports torch for 5 s of CPU)
        code, said = run_main(["train", "vlm", "arena/basic-v0", "--model", str(model), "--out", str(tmp_path / "o")])
        said = said.strip()
        assert code == 2 and expected in said and len(said.splitlines()) == 1, said
    assert not (tmp_path / "o").exists()
    with pytest.raises(rtarena.errors.UserError, match="does not fit the model"):
        load_local_model(text_model, adapter=out / "adapter")
