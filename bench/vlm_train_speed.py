"""How fast `rtarena train vlm` updates on this machine: a few minutes of PPO on arena/basic-v0's
screenshots, printing updates and env decisions per second. For a machine with a GPU (`--device cuda`),
where a real VLM fits; on a CPU, the tiny LLaVA the tests build (no download) shows the path works.

    .venv/bin/python bench/vlm_train_speed.py --model PATH [--device cuda] [--minutes 3] [--steps-per-update 16]
    .venv/bin/python bench/vlm_train_speed.py --tiny            # a random 2-layer LLaVA built from a config
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from rtarena.agents.llm.local import load_local_model
from rtarena.envs.registry import make
from rtarena.train.vlm import DEFAULT_RESOLUTION, PPOSettings, VLMTrainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="a local VLM folder")
    parser.add_argument("--tiny", action="store_true", help="build the tests' tiny LLaVA instead")
    parser.add_argument("--device", default=None, help="cpu | cuda (default: cuda when present)")
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--steps-per-update", type=int, default=16)
    args = parser.parse_args()
    if args.tiny:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "train"))
        from tiny_models import tiny_vlm

        args.model = str(tiny_vlm(Path(tempfile.mkdtemp(prefix="rtarena-tiny-vlm-"))))
    if not args.model:
        parser.error("give --model PATH or --tiny")
    model, processor, vision = load_local_model(args.model, device=args.device, where="--model")
    env = make("arena/basic-v0", obs=("rgb",), resolution=DEFAULT_RESOLUTION)
    trainer = VLMTrainer(env, model, processor, PPOSettings(steps_per_update=args.steps_per_update), seed=0,
                         vision=vision, env_id="arena/basic-v0")
    out = Path(tempfile.mkdtemp(prefix="rtarena-vlm-speed-"))
    start, updates = time.monotonic(), 0
    while time.monotonic() - start < args.minutes * 60:
        trainer.train(1, out, log=print)
        updates += 1
    spent = time.monotonic() - start
    print(f"{args.model} on {model.device}: {updates} updates in {spent:.0f} s = {updates / spent:.3f} updates/s, "
          f"{updates * args.steps_per_update / spent:.2f} env decisions/s")


if __name__ == "__main__":
    main()
