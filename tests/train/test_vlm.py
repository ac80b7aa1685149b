"""The VLM training path on CPU: a tiny randomly initialised GPT-2 and a character tokenizer, both built
here from a config (nothing downloaded), play arena/basic-v0 through text; one PPO update changes the
LoRA adapter weights, and the logged reward is the env's reward for the decisions taken."""

from __future__ import annotations

import json
import string

import pytest
import torch

pytest.importorskip("peft")
transformers = pytest.importorskip("transformers")

import rtarena  # noqa: E402
from rtarena.train.vlm import PPOSettings, VLMTrainer  # noqa: E402


def char_tokenizer():
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    symbols = ["[PAD]", "[EOS]", "[UNK]", *dict.fromkeys(string.printable)]
    tok = Tokenizer(models.WordLevel({s: i for i, s in enumerate(symbols)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tok.decoder = decoders.Fuse()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", eos_token="[EOS]",
                                                unk_token="[UNK]")


def tiny_model(vocab: int):
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=vocab, n_positions=512, n_embd=32, n_layer=2, n_head=2,
                                     bos_token_id=1, eos_token_id=1, pad_token_id=0)
    return transformers.GPT2LMHeadModel(config)


def test_one_ppo_update_changes_the_adapter_and_logs_the_env_reward(tmp_path):
    tokenizer = char_tokenizer()
    assert tokenizer.decode(tokenizer("ACTION: [0, 2]").input_ids) == "ACTION: [0, 2]"
    env = rtarena.make("arena/basic-v0", obs=("text",), overrides={"arena.time_limit_s": 2.0})
    settings = PPOSettings(steps_per_update=10, epochs=2, max_new_tokens=6, max_prompt_tokens=96,
                           learning_rate=1e-2)
    trainer = VLMTrainer(env, tiny_model(len(tokenizer)), tokenizer, settings, seed=0)
    before = trainer.policy.adapter_state()
    assert before and all("lora" in name for name in before)
    rewards = []
    original_step = env.step

    def recording_step(actions):  # the env's own rewards, to compare with the log
        out = original_step(actions)
        rewards.append(out[1]["p0"])
        return out

    env.step = recording_step
    out = trainer.train(1, tmp_path / "lora", log=lambda line: None)
    after = trainer.policy.adapter_state()
    changed = [name for name in before if not torch.equal(before[name], after[name])]
    assert changed  # the update moved LoRA weights
    frozen = {n: p for n, p in trainer.policy.lm.named_parameters() if "lora" not in n}
    assert all(not p.requires_grad for p in frozen.values())
    (line,) = [json.loads(x) for x in (out / "log.jsonl").read_text().splitlines()]
    assert line["env_steps"] == 10 == len(rewards) and line["reward"] == pytest.approx(sum(rewards))
    assert line["episodes_done"] >= 1  # 2 s episodes of 0.25 s steps: an episode ended inside the update
    assert (out / "adapter" / "adapter_config.json").is_file() and (out / "value_head.pt").is_file()
