"""Bad input, every command and file format: one line naming field and value, exit 2, nothing written.

Each row is a malformed input as a user would type or write it. CLI rows run `rtarena.cli.main` in this
process (fast); a few run as a real subprocess. Every row asserts: exit status 2, exactly one line of
output, no traceback, the field and the value named, and nothing written under the working folder (the
default `--out` included). File formats without a command of their own (task files, level files) go
through their Python entry point and must raise the same one-line `UserError` the CLI prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import run_main

from rtarena.errors import UserError

CART = "classic/cartpole-v0"
ARENA = "arena/basic-v0"
LLM = "llm:m@http://127.0.0.1:9/v1"

EXPERIMENT = """name = "bad"
envs = ["classic/cartpole-v0"]
agents = ["random"]
clocks = ["paused"]
seeds = 1
max_steps = 5
out = "exp-out"
"""

MAP = """size_m = 50.0
spawns = [[10.0, 10.0]]
coins = [[30.0, 30.0]]
obstacles = []
"""

# Files the rows refer to, written into the test's working folder first (name -> text or bytes).
FILES: dict[str, str | bytes] = {
    "afile": "not a folder\n",
    "junk.toml": b"\x00\xff\xfe\x89PNG binary junk\x00",
    "broken.toml": "name = [unclosed\n",
    "map_nan.toml": MAP.replace("size_m = 50.0", "size_m = nan"),
    "map_nan_coin.toml": MAP.replace("[[30.0, 30.0]]", "[[nan, 30.0]]"),
    "map_full_wall.toml": "size_m = 50.0\nobstacles = [[0.0, 0.0, 50.0, 50.0, 3.0, \"wall\"]]\n",
    "map_neg.toml": MAP.replace("size_m = 50.0", "size_m = -50.0"),
    "map_ok.toml": MAP,
    "prices_bad.toml": '"m" = { input = -1.0, output = 2.0 }\n',
    "deep.toml": "a = " + "[" * 2000 + "]" * 2000 + "\n",
    "deep.json": '{"size_m": ' + "[" * 100000 + "]" * 100000 + "}",
    "junk_codebook.toml": b"\x00\xff\xfe binary codebook",
    "html.json": "<!doctype html><html><body>not an experiment</body></html>",
    "map_many.json": '{"size_m": 100.0, "obstacles": [' + ", ".join(["[1, 1, 2, 2, 3]"] * 10001) + "]}",
    # issue 47: YAML bounded like TOML and JSON, 64-bit integers, existing outputs
    "bomb.yaml": "".join(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}" if i else '"x"'] * 10) + "]\n" for i in range(9)),
    "deep.yaml": "a: " + "[" * 5000 + "]" * 5000 + "\n",
    "map_bigint.toml": MAP.replace("size_m = 50.0", "size_m = " + "9" * 4001),
    "old.png": b"\x89PNG not to be replaced",
    "board.md": "not to be replaced\n",
}


def experiment(old: str | None = None, new: str = "") -> str:
    """The valid experiment above with one line replaced (or `new` appended when `old` is None)."""
    if old is None:
        return EXPERIMENT + new + "\n"
    assert old in EXPERIMENT, old
    if "[[" in new:  # a table goes last, or it would take in the top-level keys after it
        return EXPERIMENT.replace(old + "\n", "") + new + "\n"
    return EXPERIMENT.replace(old, new)


# Experiment files: (file text, words the line must hold). Each is run as `rtarena run FILE`.
EXPERIMENTS = [
    (experiment("seeds = 1", "seeds = 0"), ["seeds", "0"]),
    (experiment(None, '[endpoints."http://127.0.0.1:9/v1"]\nmax_connections = 0'), ["max_connections", "0"]),
    (experiment("seeds = 1", "seeds = -3"), ["seeds", "-3"]),
    (experiment("seeds = 1", "seeds = [1, 1]"), ["seeds", "[1, 1]"]),
    (experiment("seeds = 1", "seeds = [-1]"), ["seeds", "-1"]),
    (experiment("seeds = 1", 'seeds = "many"'), ["seeds", "many"]),
    (experiment("seeds = 1", "seeds = 1\nseed_start = -1"), ["seed_start", "-1"]),
    (experiment("max_steps = 5", "max_steps = 0"), ["max_steps", "0"]),
    (experiment("max_steps = 5", "max_steps = -1"), ["max_steps", "-1"]),
    (experiment("max_steps = 5", "max_steps = 2.5"), ["max_steps", "2.5"]),
    (experiment("max_steps = 5", "max_steps = true"), ["max_steps", "true"]),
    (experiment('clocks = ["paused"]', 'clocks = ["sundial"]'), ["clock", "sundial"]),
    (experiment('clocks = ["paused"]', '[[clocks]]\nclock = "paused"\ndt = -1.0'), ["dt", "-1"]),
    (experiment('clocks = ["paused"]', '[[clocks]]\nclock = "paused"\ndt = nan'), ["dt", "nan"]),
    (experiment('clocks = ["paused"]', '[[clocks]]\nclock = "paused"\ndt = inf'), ["dt", "inf"]),
    (experiment('clocks = ["paused"]', '[[clocks]]\nclock = "paused"\ndelay_ms = -5.0'), ["delay_ms", "-5"]),
    (experiment('clocks = ["paused"]', '[[clocks]]\nclock = "paused"\nobs_every = 0'), ["obs_every", "0"]),
    (experiment('clocks = ["paused"]', '[[clocks]]\nclock = "token"\nkappa = -1.0'), ["kappa", "-1"]),
    (experiment('clocks = ["paused"]', '[[clocks]]\nclock = "paused"\nkappa = 50.0'), ["kappa", "paused"]),
    (experiment('clocks = ["paused"]', '[[clocks]]\nclock = "paused"\ntick = 1'), ["tick"]),
    (experiment('agents = ["random"]', 'agents = ["dragon"]'), ["agents[0]", "dragon"]),
    (experiment('agents = ["random"]', 'agents = ["human"]'), ["agents[0]", "human"]),
    (experiment('agents = ["random"]', f'agents = ["{LLM},temperature=-1"]'), ["temperature", "-1"]),
    (experiment('agents = ["random"]', f'agents = ["{LLM},stream=yes"]'), ["stream", "yes"]),
    (experiment('agents = ["random"]', 'agents = [""]'), ["agents[0]", "''"]),
    (experiment('envs = ["classic/cartpole-v0"]', 'envs = ["no/such-v0"]'), ["envs[0]", "no/such-v0"]),
    (experiment('envs = ["classic/cartpole-v0"]', '[[envs]]\nid = "arena/basic-v0"\n'
                'overrides = { "turret.range_m" = -30 }'), ["turret.range_m", "-30"]),
    (experiment('envs = ["classic/cartpole-v0"]', '[[envs]]\nid = "arena/basic-v0"\n'
                'overrides = { "coins.enabled" = "yes" }'), ["coins.enabled", "yes"]),
    (experiment('envs = ["classic/cartpole-v0"]', '[[envs]]\nid = "classic/cartpole-v0"\n'
                'kwargs = { dt = 0.1 }'), ["kwargs.dt"]),
    (experiment('envs = ["classic/cartpole-v0"]', '[[envs]]\nid = "classic/cartpole-v0"\ncolour = 1'), ["colour"]),
    (experiment(None, 'observations = [["smell"]]'), ["observations", "smell"]),
    (experiment(None, 'observations = [["text", "rgbb"]]'), ["observations", "rgbb"]),
    (experiment('out = "exp-out"', 'out = "afile"'), ["out", "afile"]),
    (experiment('out = "exp-out"', 'out = "afile/sub"'), ["out", "afile/sub"]),
    (experiment('out = "exp-out"', 'out = 3'), ["out", "3"]),
    (experiment('name = "bad"', 'name = "bad name"'), ["name", "bad name"]),
    (experiment(None, "workers = 0"), ["workers", "0"]),
    (experiment(None, "workers = -1"), ["workers", "-1"]),
    (experiment(None, "video = -1"), ["video", "-1"]),
    (experiment(None, 'concurrency = { "x" = 0 }'), ["concurrency", "0"]),
    (experiment(None, "colour = 3"), ["colour"]),
    (experiment('agents = ["random"]', 'agents = ["llm:{model}@http://h/v1"]'), ["model"]),
    # limits (docs/limits.md): counts and times past the table's values
    (experiment("seeds = 1", "seeds = 1e9"), ["seeds", "run.seeds"]),
    (experiment("seeds = 1", "seeds = 1000000000"), ["seeds", "run.seeds", "1000000000"]),
    (experiment("max_steps = 5", "max_steps = 100000000"), ["max_steps", "episode.steps", "100000000"]),
    (experiment('clocks = ["paused"]', '[[clocks]]\nclock = "wall"\ndt = 3600.0'), ["dt", "step.dt_s", "3600"]),
    (experiment('envs = ["classic/cartpole-v0"]', '[[envs]]\nid = "arena/basic-v0"\n'
                'overrides = { "turret.count" = 1000000000 }'), ["turret.count", "level.count"]),
    (experiment('envs = ["classic/cartpole-v0"]', '[[envs]]\nid = "arena/basic-v0"\n'
                'overrides = { "players.count" = 100000000 }'), ["players.count", "env.agents"]),
    (experiment(None, "deep = " + "[" * 2000 + "]" * 2000), ["nesting.depth"]),
]

# Command lines: (argv, words the line must hold). `OUT` stands for the row's own output folder.
CLI = [
    # run ENV_ID: flags
    (["run", CART, "--agent", "random", "--dt", "inf"], ["--dt", "inf"]),
    (["run", CART, "--agent", "random", "--dt", "nan"], ["--dt", "nan"]),
    (["run", CART, "--agent", "random", "--dt", "-0.25"], ["--dt", "-0.25"]),
    (["run", CART, "--agent", "random", "--dt", "0"], ["--dt", "0"]),
    (["run", CART, "--agent", "random", "--dt", "fast"], ["--dt", "fast"]),
    (["run", CART, "--agent", "random", "--max-steps", "0"], ["--max-steps", "0"]),
    (["run", CART, "--agent", "random", "--max-steps", "-1"], ["--max-steps", "-1"]),
    (["run", CART, "--agent", "random", "--max-steps", "many"], ["--max-steps", "many"]),
    (["run", CART, "--agent", "random", "--seeds", "0"], ["--seeds", "0"]),
    (["run", CART, "--agent", "random", "--seeds", "-3"], ["--seeds", "-3"]),
    (["run", CART, "--agent", "random", "--seed-start", "-1"], ["--seed-start", "-1"]),
    (["run", CART, "--agent", "random", "--workers", "-1"], ["--workers", "-1"]),
    (["run", CART, "--agent", "random", "--delay-ms", "-5"], ["--delay-ms", "-5"]),
    (["run", CART, "--agent", "random", "--delay-ms", "nan"], ["--delay-ms", "nan"]),
    (["run", CART, "--agent", "random", "--delay-ms", "inf"], ["--delay-ms", "inf"]),
    (["run", CART, "--agent", "random", "--obs-every", "0"], ["obs_every", "0"]),
    (["run", CART, "--agent", "random", "--obs-every", "-2"], ["obs_every", "-2"]),
    (["run", CART, "--agent", "random", "--clock", "token", "--kappa", "0"], ["kappa", "0"]),
    (["run", CART, "--agent", "random", "--clock", "token", "--kappa", "-5"], ["kappa", "-5"]),
    (["run", CART, "--agent", "random", "--clock", "token", "--kappa", "nan"], ["kappa", "nan"]),
    (["run", CART, "--agent", "random", "--clock", "token", "--overhead", "-1"], ["overhead", "-1"]),
    (["run", CART, "--agent", "random", "--clock", "token", "--overhead", "inf"], ["overhead", "inf"]),
    (["run", CART, "--agent", "random", "--clock", "paused", "--kappa", "50"], ["kappa", "paused"]),
    (["run", CART, "--agent", "random", "--clock", "sundial"], ["clock", "sundial"]),
    (["run", CART, "--agent", "random", "--bogus", "1"], ["--bogus"]),
    (["run", "no/such-v0", "--agent", "random"], ["no/such-v0"]),
    (["run", "--agent", "random"], ["TARGET"]),
    (["run", CART], ["--agent"]),
    (["run", "exp_noagent.json"], ["exp_noagent.json"]),
    # run: agents
    (["run", CART, "--agent", "dragon"], ["--agent", "dragon"]),
    (["run", CART, "--agent", "human"], ["--agent", "human"]),
    (["run", CART, "--agent", "human:wasd"], ["--agent", "human"]),
    (["run", CART, "--agent", "random", "--agent", "random", "--agent", "random"], ["--agent", "3"]),
    (["run", CART, "--agent", "llm"], ["--agent", "llm"]),
    (["run", CART, "--agent", "llm:m@ftp://host"], ["base URL", "ftp://host"]),
    (["run", CART, "--agent", f"{LLM},temperature=-1"], ["temperature", "-1"]),
    (["run", CART, "--agent", f"{LLM},temperature=hot"], ["temperature", "hot"]),
    (["run", CART, "--agent", f"{LLM},temperature=nan"], ["temperature", "nan"]),
    (["run", CART, "--agent", f"{LLM},max_tokens=0"], ["max_tokens", "0"]),
    (["run", CART, "--agent", f"{LLM},max_tokens=1.5"], ["max_tokens", "1.5"]),
    (["run", CART, "--agent", f"{LLM},stream=yes"], ["stream", "yes"]),
    (["run", CART, "--agent", f"{LLM},stream=1"], ["stream", "1"]),
    (["run", CART, "--agent", f"{LLM},timeout=0"], ["timeout", "0"]),
    (["run", CART, "--agent", f"{LLM},timeout=inf"], ["timeout", "inf"]),
    (["run", CART, "--agent", f"{LLM},retries=-1"], ["retries", "-1"]),
    (["run", CART, "--agent", f"{LLM},history=-1"], ["history", "-1"]),
    (["run", CART, "--agent", f"{LLM},history=5,fold=6"], ["fold", "6"]),
    (["run", CART, "--agent", f"{LLM},images=2,image_fold=3"], ["image_fold", "3"]),
    (["run", CART, "--agent", f"{LLM},image_size=-5"], ["image_size", "-5"]),  # 0 means the default view
    (["run", CART, "--agent", f"{LLM},image_format=gif"], ["image_format", "gif"]),
    (["run", CART, "--agent", f"{LLM},reasoning_effort=max"], ["reasoning_effort", "max"]),
    (["run", CART, "--agent", f"{LLM},modalities=text+smell"], ["modalities", "smell"]),
    (["run", CART, "--agent", f"{LLM},api_key_env=1BAD"], ["api_key_env", "1BAD"]),
    (["run", CART, "--agent", f"{LLM},price_in=-1"], ["price_in", "-1"]),
    (["run", CART, "--agent", f"{LLM},max_connections=0"], ["max_connections", "0"]),
    (["run", CART, "--agent", f"{LLM}|ftp://x/v1"], ["base URL", "ftp://x/v1"]),
    (["run", CART, "--agent", "random", "--max-errors", "2"], ["--max-errors", "2"]),
    (["run", CART, "--agent", "random", "--max-cost", "-1"], ["--max-cost", "-1"]),
    (["run", CART, "--agent", f"{LLM},colour=red"], ["colour"]),
    (["run", CART, "--agent", f"{LLM},history=5,history=6"], ["history"]),
    (["run", CART, "--agent", f"{LLM},seed=x"], ["seed", "x"]),
    (["run", CART, "--agent", f"{LLM},timeout"], ["timeout"]),
    (["run", CART, "--agent", f"{LLM},skill=/no/such/file"], ["skill", "/no/such/file"]),
    (["run", CART, "--agent", f"{LLM},prices=prices_bad.toml"], ["prices", "-1"]),
    (["run", CART, "--agent", "agentic:m@http://127.0.0.1:9/v1,rounds=0"], ["rounds", "0"]),
    (["run", CART, "--agent", "team:llm:m@http://127.0.0.1:9/v1,max_tokens=-5"], ["max_tokens", "-5"]),
    (["run", CART, "--agent", "live:m@http://127.0.0.1:9/v1"], ["Realtime session", "nothing answered", ":9/v1"]),
    (["run", CART, "--agent", "live:m@http://127.0.0.1:9/v1,modalities=text+audio"], ["modality", "audio"]),
    (["run", CART, "--agent", "live:m@http://127.0.0.1:9/v1,temperature=0.5"], ["temperature", "Realtime"]),
    # run ARENA: --set, --disable, --map
    (["run", ARENA, "--agent", "random", "--set", "turret.range_m=-30"], ["turret.range_m", "-30"]),
    (["run", ARENA, "--agent", "random", "--set", "turret.range_m=nan"], ["turret.range_m", "nan"]),
    (["run", ARENA, "--agent", "random", "--set", "turret.range_m=inf"], ["turret.range_m", "inf"]),
    (["run", ARENA, "--agent", "random", "--set", "turret.range_m=far"], ["turret.range_m", "far"]),
    (["run", ARENA, "--agent", "random", "--set", "turret.count=-1"], ["turret.count", "-1"]),
    (["run", ARENA, "--agent", "random", "--set", "coins.count=2.5"], ["coins.count", "2.5"]),
    (["run", ARENA, "--agent", "random", "--set", "coins.enabled=yes"], ["coins.enabled", "yes"]),
    (["run", ARENA, "--agent", "random", "--set", "coins.enabled=1"], ["coins.enabled", "1"]),
    (["run", ARENA, "--agent", "random", "--set", "weapon.friendly_fire=on"], ["weapon.friendly_fire", "on"]),
    (["run", ARENA, "--agent", "random", "--set", "arena.size_m=0"], ["arena.size_m", "0"]),
    (["run", ARENA, "--agent", "random", "--set", "arena.time_limit_s=-1"], ["arena.time_limit_s", "-1"]),
    (["run", ARENA, "--agent", "random", "--set", "arena.substep_s=nan"], ["arena.substep_s", "nan"]),
    (["run", ARENA, "--agent", "random", "--set", "players.teams=zero"], ["players.teams", "zero"]),
    (["run", ARENA, "--agent", "random", "--set", "players.count=0"], ["players.count", "0"]),
    (["run", ARENA, "--agent", "random", "--set", "players.health=-100"], ["players.health", "-100"]),
    (["run", ARENA, "--agent", "random", "--set", "players.ammo_start=99"], ["ammo_start", "99"]),
    (["run", ARENA, "--agent", "random", "--set", "players.fov_deg=200"], ["fov_deg", "200"]),
    (["run", ARENA, "--agent", "random", "--set", "players.radius_m=-0.4"], ["players.radius_m", "-0.4"]),
    (["run", ARENA, "--agent", "random", "--set", "chickens.speed_m_s=-1"], ["chickens.speed_m_s", "-1"]),
    (["run", ARENA, "--agent", "random", "--set", "toxic_zone.start_radius_m=-5"], ["start_radius_m", "-5"]),
    (["run", ARENA, "--agent", "random", "--set", "toxic_zone.end_radius_m=500"], ["end_radius_m", "500"]),
    (["run", ARENA, "--agent", "random", "--set", "toxic_zone.stages=0"], ["toxic_zone.stages", "0"]),
    (["run", ARENA, "--agent", "random", "--set", "ammo.respawn_s=-20"], ["ammo.respawn_s", "-20"]),
    (["run", ARENA, "--agent", "random", "--set", "points.coin=nan"], ["points.coin", "nan"]),
    (["run", ARENA, "--agent", "random", "--set", "layout.walls=-4"], ["layout.walls", "-4"]),
    (["run", ARENA, "--agent", "random", "--set", "turret.rang=3"], ["turret.rang"]),
    (["run", ARENA, "--agent", "random", "--set", "dragons.count=3"], ["dragons.count"]),
    (["run", ARENA, "--agent", "random", "--set", "turret.range_m"], ["--set", "turret.range_m"]),
    (["run", ARENA, "--agent", "random", "--set", "=3"], ["--set", "=3"]),
    (["run", CART, "--agent", "random", "--set", "turret.range_m=3"], ["--set", "classic/cartpole-v0"]),
    (["run", ARENA, "--agent", "random", "--disable", "dragons"], ["disable", "dragons"]),
    (["run", ARENA, "--agent", "random", "--map", "no_such_map.toml"], ["no_such_map.toml"]),
    (["run", ARENA, "--agent", "random", "--map", "procedural:x"], ["procedural:x"]),
    (["run", ARENA, "--agent", "random", "--map", "map_full_wall.toml"], ["map_full_wall.toml"]),
    (["run", ARENA, "--agent", "random", "--map", "map_nan.toml"], ["map_nan.toml", "size_m", "nan"]),
    (["run", ARENA, "--agent", "random", "--map", "junk.toml"], ["junk.toml"]),
    (["run", CART, "--agent", "random", "--map", "map_ok.toml"], ["--map", "classic/cartpole-v0"]),
    # run: --out
    (["run", CART, "--agent", "random", "--out", "afile"], ["--out", "afile"]),
    (["run", CART, "--agent", "random", "--out", "afile/sub"], ["--out", "afile/sub"]),
    # run: presets and experiment files
    (["run", "--preset", "no-such-preset"], ["--preset", "no-such-preset"]),
    (["run", "--preset", "cartpole-delays", "--seeds", "3"], ["--seeds", "3"]),
    (["run", "--preset", "cartpole-delays", "--clock", "wall"], ["--clock", "wall"]),
    (["run", "--preset", "cartpole-delays", "--max-steps", "9"], ["--max-steps", "9"]),
    (["run", "--preset", "cartpole-delays", "--agent", "random"], ["--agent"]),
    (["run", "--preset", "cartpole-delays", "--set", "nosuch=1"], ["nosuch"]),
    (["run", "junk.toml"], ["junk.toml"]),
    (["run", "broken.toml"], ["broken.toml", "TOML"]),
    (["run", "no_such_experiment.toml"], ["no_such_experiment.toml"]),
    (["run", "folder.toml"], ["folder.toml", "folder"]),
    # query, report, leaderboard
    (["query", "SELECT 1", "--format", "xml"], ["--format", "xml"]),
    (["query", "SELECT 1", "--root", "afile"], ["--root", "afile"]),
    (["report", "no-such-run", "--root", "."], ["no-such-run"]),
    (["leaderboard", "--root", "no_such_folder"], ["no_such_folder"]),
    # map
    (["map", "generate", "x.txt"], ["x.txt", ".toml"]),
    (["map", "generate", "m.toml", "--style", "spiral"], ["style", "spiral"]),
    (["map", "generate", "m.toml", "--size", "-5"], ["size", "-5"]),
    (["map", "generate", "m.toml", "--size", "nan"], ["size", "nan"]),
    (["map", "generate", "m.toml", "--density", "2"], ["density", "2"]),
    (["map", "generate", "m.toml", "--coins", "-1"], ["coins", "-1"]),
    (["map", "generate", "m.toml", "--turrets", "-1"], ["turrets", "-1"]),
    (["map", "generate", "m.toml", "--players", "0"], ["players", "0"]),
    (["map", "generate", "m.toml", "--level", "no/such-v0"], ["no/such-v0"]),
    (["map", "generate", "afile/m.toml"], ["afile/m.toml"]),
    (["map", "render", "map_ok.toml", "--out", "x.jpg"], ["--out", "x.jpg"]),
    (["map", "render", "map_nan.toml", "--out", "nan.png"], ["map_nan.toml", "size_m", "nan"]),
    (["map", "render", "map_nan_coin.toml", "--out", "nan.png"], ["map_nan_coin.toml", "coins", "nan"]),
    (["map", "render", "map_neg.toml", "--out", "neg.png"], ["map_neg.toml", "size_m", "-50"]),
    (["map", "render", "no_such_map.toml", "--out", "m.png"], ["no_such_map.toml"]),
    (["map", "render", "map_ok.toml", "--out", "m.png", "--px-per-m", "0"], ["--px-per-m", "0"]),
    (["map", "render", "map_ok.toml", "--out", "m.png", "--px-per-m", "nan"], ["--px-per-m", "nan"]),
    (["map", "validate", "map_ok.toml", "--players", "-1"], ["--players", "-1"]),
    # servers and windows
    (["edit", "m.toml", "--port", "70000", "--no-open"], ["--port", "70000"]),
    (["edit", "m.toml", "--port", "-1", "--no-open"], ["--port", "-1"]),
    (["edit", "m.toml", "--level", "no/such-v0", "--no-open"], ["no/such-v0"]),
    (["serve-policy", "--port", "70000"], ["--port", "70000"]),
    (["serve-policy", "--port", "-1"], ["--port", "-1"]),
    (["serve-policy", "--policy", "oracle"], ["policy", "oracle"]),
    (["serve-policy", "--fault", "boom"], ["fault", "boom"]),
    (["serve-policy", "--filler-tokens", "-1"], ["filler_tokens", "-1"]),
    (["serve-policy", "--filler-rate", "nan"], ["filler_rate", "nan"]),
    (["serve-policy", "--ttft-ms", "-10"], ["ttft", "-10"]),
    (["serve-policy", "--set", "usage=yes"], ["usage", "yes"]),
    (["serve-policy", "--set", "fault_every=0"], ["fault_every", "0"]),
    (["serve-policy", "--set", "slow_s=inf"], ["slow_s", "inf"]),
    (["serve-policy", "--set", "reasoning=loud"], ["reasoning", "loud"]),
    (["serve-policy", "--set", "colour=red"], ["colour"]),
    (["play", ARENA, "--scale", "0"], ["--scale", "0"]),
    (["play", ARENA, "--scale", "-2"], ["--scale", "-2"]),
    (["play", "arena/coop-v0", "--agent", "human:wasd", "--agent", "human:wasd"], ["human", "wasd"]),
    (["play", "arena/coop-v0", "--agent", "human:arrows", "--agent", "human:arrows"], ["human", "arrows"]),
    (["play", "arena/coop-v0", "--agent", "human:qwerty"], ["human", "qwerty"]),
    (["play", ARENA, "--dt", "0"], ["--dt", "0"]),
    (["play", ARENA, "--dt", "inf"], ["--dt", "inf"]),
    (["play", ARENA, "--max-steps", "0"], ["--max-steps", "0"]),
    (["play", ARENA, "--set", "turret.range_m=-30"], ["turret.range_m", "-30"]),
    (["play", CART], ["classic/cartpole-v0"]),
    (["demo", "--out", "afile"], ["--out", "afile"]),
    # issue 29: limits (docs/limits.md), files read with a cap, nesting, confined paths, words by command
    (["run", CART, "--agent", "random", "--seeds", "1000000000000"], ["--seeds", "run.seeds"]),
    (["run", CART, "--agent", "random", "--max-steps", "100000000"], ["--max-steps", "episode.steps"]),
    (["run", CART, "--agent", "random", "--clock", "wall", "--dt", "3600"], ["--dt", "step.dt_s", "3600"]),
    (["run", CART, "--agent", "random", "--dt", "1e300"], ["--dt", "step.dt_s"]),
    (["run", CART, "--agent", "random", "--dt", "50", "--max-steps", "10000"], ["episode.sim_s"]),
    (["run", ARENA, "--agent", "random", "--set", "turret.count=1000000000"], ["turret.count", "level.count"]),
    (["run", ARENA, "--agent", "random", "--set", "arena.size_m=1e308"], ["arena.size_m", "map.size_m"]),
    (["run", ARENA, "--agent", "random", "--set", "arena.substep_s=1e-9"], ["step.substeps"]),
    (["run", ARENA, "--agent", "random", "--set", "players.count=100000000"], ["players.count", "env.agents"]),
    (["run", ARENA, "--agent", "random", "--set", "arena.time_limit_s=1e12"], ["time_limit_s", "episode.sim_s"]),
    (["run", ARENA, "--agent", "random", "--map", "/dev/zero"], ["/dev/zero", "file.bytes"]),
    (["run", ARENA, "--agent", "random", "--map", "deep.json"], ["deep.json", "nesting.depth"]),
    (["run", ARENA, "--agent", "random", "--map", "map_many.json"], ["obstacles", "map.obstacles", "10001"]),
    (["map", "render", "/dev/zero", "--out", "z.png"], ["/dev/zero", "file.bytes"]),
    (["run", CART, "--agent", f"{LLM},skill=/dev/zero"], ["skill", "/dev/zero", "file.bytes"]),
    (["run", "/dev/zero"], ["/dev/zero"]),
    (["run", "deep.toml"], ["deep.toml", "nesting.depth"]),
    (["run", "html.json"], ["html.json", "JSON"]),
    (["run", CART, "--agent", "random", "--run-id", "../../x"], ["--run-id", "../../x"]),
    (["run", CART, "--agent", "random", "--run-id", "/abs"], ["--run-id", "/abs"]),
    (["run", CART, "--agent", "random", "--out", ""], ["--out", "''"]),
    (["run", CART, "--agent", "random", "--out="], ["--out", "''"]),
    (["run", CART, "--agent", "random", "--out", "/proc/rtarena-no/x"], ["/proc"]),
    (["improve", CART, "--run-id", "../x", "--player", "llm:m@http://127.0.0.1:9/v1", "--reflector",
      "m@http://127.0.0.1:9/v1"], ["--run-id", "../x"]),
    (["map", "generate", "map_ok.toml"], ["map_ok.toml", "--force"]),
    (["map", "generate", "/proc/rtarena-no.toml"], ["/proc/rtarena-no.toml"]),
    (["list", "--capabilities", "--svg", "/proc/rtarena-no/x.svg"], ["/proc"]),
    (["demo", "--out", "/proc/rtarena-no"], ["/proc/rtarena-no"]),
    (["annotate", "no-such-run", "--codebook", "junk_codebook.toml"], ["junk_codebook.toml", "UTF-8"]),
    (["run", "folder.toml", "--resume"], ["folder.toml"]),
    (["run", "emptydir", "--resume"], ["emptydir", "config.json"]),
    (["run", CART, "--resume"], ["--resume", "run folder"]),
    (["report", "junkrun", "--out", "rep"], ["junkrun", "no episode lines"]),
    (["report", "halfjunk", "--out", "rep"], ["RUNS", "rtarena run"]),
    # issue 47: every reader bounded alike, every number checked where it enters, messages as a person writes
    (["run", "bomb.yaml"], ["bomb.yaml", "nesting.nodes"]),
    (["run", "deep.yaml"], ["deep.yaml", "nesting.depth"]),
    (["run", ARENA, "--agent", "random", "--map", "pipe.toml"], ["pipe.toml", "named pipe", "regular"]),
    (["map", "render", "pipe.toml", "--out", "p.png"], ["pipe.toml", "named pipe"]),
    (["run", CART, "--agent", f"{LLM},skill=pipe.toml"], ["pipe.toml", "named pipe"]),
    (["run", ARENA, "--agent", "random", "--map", "map_bigint.toml"], ["map_bigint.toml", "4001 digits"]),
    (["run", CART, "--agent", "random", "--seed-start", "1" + "0" * 20], ["--seed-start", "run.seed"]),
    (["run", CART, "--agent", "random", "--seed-start", "4294967295", "--seeds", "2"], ["--seeds", "run.seed"]),
    (["run", CART, "--agent", "random", "--delay-ms", "1e300"], ["--delay-ms", "episode.sim_s"]),
    (["run", CART, "--agent", "random", "--clock", "token", "--overhead", "1e300"], ["overhead", "episode.sim_s"]),
    (["run", CART, "--agent", "random", "--obs-every", "1" + "0" * 20], ["obs_every", "step.every"]),
    (["run", ARENA, "--agent", "random", "--settle-s", "1e300"], ["settle_s", "episode.sim_s"]),
    (["run", CART, "--agent", f"{LLM},timeout=1e300"], ["timeout", "wait.s"]),
    (["run", CART, "--agent", f"{LLM},image_size=100000"], ["image_size", "image.px"]),
    (["run", CART, "--agent", f"{LLM},max_tokens=1e20"], ["max_tokens"]),
    (["run", CART, "--agent", f"{LLM},history=100000000"], ["history", "option.count"]),
    (["serve-policy", "--set", "ttft_s=1e300"], ["ttft_s", "policy.delay_s"]),
    (["serve-policy", "--set", "effort_scale=1e300"], ["effort_scale", "option.count"]),
    (["play", ARENA, "--dt", "1e300"], ["--dt", "step.dt_s"]),
    (["play", ARENA, "--max-steps", "1" + "0" * 20], ["--max-steps", "episode.steps"]),
    (["play", ARENA, "--seed", "-1"], ["--seed", "-1"]),
    (["play", ARENA, "--out", "/proc/rtarena-no/x"], ["--out", "/proc"]),
    (["play", ARENA, "--scale", "1000"], ["--scale", "image.px"]),
    (["improve", CART, "--resume"], ["--resume", "not an improvement run"]),
    (["run", ""], ["TARGET", "''"]),
    (["map", "render", "map_ok.toml", "--out", "old.png"], ["old.png", "--force"]),
    (["leaderboard", "--markdown", "board.md"], ["board.md", "--force"]),
    (["train", "sb3", ARENA, "--out", "/proc/rtarena-no/p.zip"], ["--out", "/proc"]),
]

# Python entry points for file formats without a command of their own: (callable, words).


def _task_file(text: str):
    def load(tmp: Path):
        from rtarena.envs.gui.spec import load_spec

        path = tmp / "task.toml"
        path.write_text(text)
        return load_spec(str(path))
    return load


TASK = 'title = "t"\npage = "web/auction.html"\ngoal = "g"\n'


def _level_file(text: str):
    def load(tmp: Path):
        from rtarena.envs.arena.rules import load_rules

        path = tmp / "level.toml"
        path.write_text(text)
        return load_rules(path)
    return load


def _server(**values):
    def build(tmp: Path):
        from rtarena.policy_server.server import ServerSettings

        return ServerSettings().replaced(**values)
    return build


def _codebook(content: str | bytes):
    def load(tmp: Path):
        from rtarena.annotate.codebook import load_codebook

        path = tmp / "codebook.toml"
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
        return load_codebook(path)
    return load


def _make(env_id: str, **kwargs):
    def build(tmp: Path):
        import rtarena

        return rtarena.make(env_id, **kwargs)
    return build


API = [
    (_task_file(TASK + "dt = -1.0\n"), ["task.toml", "dt", "-1"]),
    (_task_file(TASK + "dt = nan\n"), ["task.toml", "dt", "nan"]),
    (_task_file(TASK + "time_limit_s = 0\n"), ["task.toml", "time_limit_s", "0"]),
    (_task_file(TASK + "viewport = [50, 600]\n"), ["task.toml", "viewport", "50"]),
    (_task_file(TASK + "viewport = [800]\n"), ["task.toml", "viewport", "800"]),
    (_task_file(TASK + "deadline = 3\n"), ["task.toml", "deadline"]),
    (_task_file(TASK.replace("web/auction.html", "web/nope.html")), ["task.toml", "page", "nope"]),
    (_task_file('title = "t"\npage = "web/auction.html"\n'), ["task.toml", "goal"]),
    (_task_file(TASK + "params = 3\n"), ["task.toml", "params", "3"]),
    (_task_file("title = [\n"), ["task.toml", "TOML"]),
    (_level_file('extends = "coop.toml"\n[turret]\nrange_m = -30\n'), ["level.toml", "turret.range_m", "-30"]),
    (_level_file('extends = "coop.toml"\n[coins]\nenabled = "yes"\n'), ["level.toml", "coins.enabled", "yes"]),
    (_level_file('extends = "coop.toml"\n[turret]\ncolour = 1\n'), ["level.toml", "turret.colour"]),
    (_level_file('extends = "coop.toml"\n[dragons]\ncount = 1\n'), ["level.toml", "dragons"]),
    (_level_file('extends = "no_such_level.toml"\n'), ["no_such_level.toml"]),
    (_level_file('extends = "level.toml"\n'), ["level.toml", "loop"]),
    (_level_file('summary = "s"\n[arena]\nsize_m = 10.0\n'), ["level.toml", "time_limit_s", "required"]),
    (_server(filler_tokens=-1), ["filler_tokens", "-1"]),
    (_server(usage="maybe"), ["usage", "maybe"]),
    (_server(ttft_s=float("nan")), ["ttft_s", "nan"]),
    (_make(ARENA, overrides={"turret.range_m": -30}), ["turret.range_m", "-30"]),
    (_make(ARENA, overrides={"coins.enabled": "yes"}), ["coins.enabled", "yes"]),
    (_make(ARENA, dt=float("inf")), ["dt", "inf"]),
    (_make(ARENA, num_agents=0), ["num_agents", "0"]),
    (_make(ARENA, num_agents=100_000_000), ["num_agents", "env.agents"]),
    (_make(ARENA, dt=1e300), ["dt", "step.dt_s"]),
    (_make(CART, dt=3600.0), ["dt", "step.dt_s"]),
    (_level_file('extends = "coop.toml"\n[turret]\ncount = 1000000000\n'), ["level.toml", "turret.count",
                                                                            "level.count"]),
    (_codebook(b"\x00\xff\xfe binary"), ["codebook.toml", "UTF-8"]),
    (_codebook("x = " + "[" * 2000 + "]" * 2000), ["codebook.toml", "nesting.depth"]),
    (_codebook(b"\xef\xbb\xbfx = [\n"), ["codebook.toml", "invalid TOML", "end of document"]),  # BOM dropped
    (_server(seed=2**40), ["seed", "run.seed"]),
    (_server(slow_s=1e300), ["slow_s", "policy.delay_s"]),
    (_server(filler_rate=1e-300), ["filler_rate", "wait.s"]),
]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A working folder holding the rows' files; the default `--out` (runs/latest) would land here too."""
    for name, content in FILES.items():
        path = tmp_path / name
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    (tmp_path / "folder.toml").mkdir()
    (tmp_path / "emptydir").mkdir()
    (tmp_path / "junkrun").mkdir()
    (tmp_path / "junkrun" / "episodes.jsonl").write_bytes(b"\x00\xffgarbage\n{\"a\":\n")
    (tmp_path / "halfjunk").mkdir()
    (tmp_path / "halfjunk" / "episodes.jsonl").write_text('{"episode": "x", "status": "ok", "agents": 5}\n[1, 2]\n')
    (tmp_path / "exp_noagent.json").write_text('{"envs": ["classic/cartpole-v0"], "clocks": [7]}')
    os.mkfifo(tmp_path / "pipe.toml")  # a named pipe with no writer: opening it to read would wait for ever
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISPLAY", ":0")
    return tmp_path


def _snapshot(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def run_cli(argv: list[str], capsys) -> tuple[int, str]:
    capsys.readouterr()
    return run_main(argv)


def check_line(code: int, output: str, words: list[str]) -> None:
    lines = [line for line in output.splitlines() if line.strip()]
    assert code == 2, f"exit {code}: {output}"
    assert "Traceback" not in output, output
    assert len(lines) == 1, f"{len(lines)} lines: {output}"
    for word in words:
        assert word in lines[0], f"{word!r} not in: {lines[0]}"


@pytest.mark.parametrize("argv, words", CLI, ids=[" ".join(a)[:80] for a, _ in CLI])
def test_command_line(argv, words, workdir, capsys):
    before = _snapshot(workdir)
    code, output = run_cli(argv, capsys)
    check_line(code, output, words)
    assert _snapshot(workdir) == before, "something was written"


@pytest.mark.parametrize("text, words", EXPERIMENTS, ids=[f"experiment-{i}" for i in range(len(EXPERIMENTS))])
def test_experiment_file(text, words, workdir, capsys):
    (workdir / "exp.toml").write_text(text)
    before = _snapshot(workdir)
    code, output = run_cli(["run", "exp.toml"], capsys)
    check_line(code, output, ["exp.toml", *words])
    assert _snapshot(workdir) == before, "something was written"


@pytest.mark.parametrize("build, words", API, ids=[f"api-{i}" for i in range(len(API))])
def test_python_entry_points(build, words, tmp_path):
    with pytest.raises(UserError) as caught:
        build(tmp_path)
    line = str(caught.value)
    assert "\n" not in line
    for word in words:
        assert word in line, f"{word!r} not in: {line}"


def test_the_table_is_large():
    assert len(CLI) + len(EXPERIMENTS) + len(API) >= 150


@pytest.mark.parametrize("argv, words", [
    (["run", CART, "--agent", "random", "--dt", "inf", "--out", "out"], ["--dt", "inf"]),
    (["run", ARENA, "--agent", "random", "--set", "turret.range_m=-30", "--out", "out"], ["turret.range_m", "-30"]),
    (["map", "render", "map_ok.toml", "--out", "x.jpg"], ["x.jpg"]),
])
def test_real_subprocess(argv, words, workdir):
    done = subprocess.run([sys.executable, "-m", "rtarena.cli", *argv], capture_output=True, text=True, timeout=120,
                          cwd=workdir)
    check_line(done.returncode, done.stdout + done.stderr, words)
    assert not (workdir / "out").exists() and not (workdir / "x.jpg").exists()


def test_map_validate_rejects_a_map_the_game_cannot_play(workdir, capsys):
    code, output = run_cli(["map", "validate", "map_full_wall.toml", "--level", ARENA], capsys)
    assert code == 1 and "Traceback" not in output and "map_full_wall.toml" in output


def test_a_line_names_its_field_once():
    """A message re-raised with its field, or one that starts with the flag it is about, names it once
    (`ENV_ID: ENV_ID: ...` and `--obs: --obs must be ...` read as a machine wrote them)."""
    inner = UserError("'x' has no human path", field="ENV_ID")
    assert str(UserError(str(inner), field="ENV_ID")) == "ENV_ID: 'x' has no human path"
    assert str(UserError("--obs must be one of state, pixels, got 'x'", field="--obs")).count("--obs") == 1
    assert str(UserError("must be >= 1, got 0", field="--obs")) == "--obs: must be >= 1, got 0"
    assert str(UserError("m.toml: bad", source="m.toml")) == "m.toml: bad"
