"""A clock declares its settings once; the Python API, the CLI and experiment files refuse the same mistake
with the same one-line error, and the runner asks a clock how to run it, never its name."""

from __future__ import annotations

import pytest
from tests.helpers import CounterEnv, clock_needs, run_main

import rtarena
from rtarena.errors import UserError
from rtarena.eval.experiment_file import load_experiment
from rtarena.runtime.clocks import CLOCKS, Clock, make_clock

MISTAKES = [
    # (clock, settings, CLI flags, the one line every entry point prints after its own prefix)
    ("paused", {"kappa": 50}, ["--kappa", "50"],
     "kappa: not a setting of clock 'paused' (it takes delay_s, obs_every, settle_s, delay_in)"),
    ("wall", {"overhead_s": 0.1}, ["--overhead", "0.1"], "overhead_s: not a setting of clock 'wall'"),
    ("token", {"kappa": -1}, ["--kappa", "-1"], "kappa: must be > 0, got -1"),
    ("token", {"obs_every": 0}, ["--obs-every", "0"], "obs_every: must be > 0, got 0"),
    ("paused", {"settle_s": -1}, ["--settle-s", "-1"], "settle_s: must be >= 0 seconds, got -1"),
]


@pytest.mark.parametrize(("clock", "settings", "flags", "line"), MISTAKES)
def test_python_api_refuses(clock, settings, flags, line):
    with pytest.raises(UserError) as made:
        make_clock(clock, **settings)
    with pytest.raises(UserError) as matched:
        rtarena.run_match(CounterEnv(1), [lambda o: 1], clock=clock, max_steps=2, **settings)
    assert str(made.value).startswith(line) and str(matched.value) == str(made.value)


@pytest.mark.parametrize(("clock", "settings", "flags", "line"), MISTAKES)
def test_experiment_file_refuses(tmp_path, clock, settings, flags, line):
    path = tmp_path / "exp.toml"
    extra = "".join(f"{k} = {v}\n" for k, v in settings.items())
    path.write_text(f'envs = ["classic/cartpole-v0"]\n[[clocks]]\nclock = "{clock}"\n{extra}')
    with pytest.raises(UserError) as caught:
        load_experiment(path)
    assert str(caught.value).startswith(f"{path}: clocks[0].{line.split(':')[0]}: ")
    assert str(caught.value).removeprefix(f"{path}: clocks[0].").startswith(line.split(", got")[0])


@pytest.mark.parametrize(("clock", "settings", "flags", "line"), MISTAKES)
def test_cli_refuses(tmp_path, clock, settings, flags, line):
    out = tmp_path / "run"
    code, output = run_main(["run", "classic/cartpole-v0", "--agent", "random", "--clock", clock, *flags,
                             "--out", str(out)])
    output = output.strip()
    assert code == 2 and len(output.splitlines()) == 1, output
    assert line.split(", got")[0] in output and "Traceback" not in output
    assert not (out / "episodes.jsonl").exists()


@pytest.mark.parametrize("name", list(CLOCKS))
def test_every_clock_round_trips_its_settings(name):
    clock = make_clock(name, **clock_needs(name))
    assert isinstance(clock, Clock) and clock.name == name
    settings = {k: v for k, v in clock.settings().items() if k != "clock"}
    assert make_clock(name, **settings) == clock
    assert make_clock(clock, delay_s=0.25).delay_s == 0.25  # changing a clock validates too
    with pytest.raises(UserError, match="delay_s: must be >= 0 seconds"):
        make_clock(clock, delay_s=-1)


def test_only_the_wall_clock_runs_concurrently():
    assert {name for name, cls in CLOCKS.items() if cls.concurrent} == {"wall"}


def test_numbers_are_numbers():
    for value in (True, float("nan"), "fast"):
        with pytest.raises(UserError, match="kappa: must be a"):
            make_clock("token", kappa=value)
