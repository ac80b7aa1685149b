"""`rtarena run`'s settings travel one typed path (issue 44 item 2): the flags are `RunFlags`, the clock is built
once from them, and every valid combination of the flags runs (`--dt` alone, `--max-steps` alone, both,
neither; issue 42). Each invalid one is one line, exit 2, no traceback."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.helpers import run_main

from rtarena.errors import UserError
from rtarena.eval.episodes import EpisodeJob
from rtarena.eval.flags import RunFlags
from rtarena.eval.runner import job_from_dict, job_to_dict
from rtarena.improve.settings import improve_settings
from rtarena.runtime.clocks import make_clock

# Each flag's values: a valid one or two, and one that the flag's one home refuses. The rule for a combination
# (below) says which clock takes which setting: what a newcomer must learn from the one-line error.
VALUES = {
    "--clock": ["paused", "token", "measured"],
    "--dt": ["0.02", "0.04", "0"],
    "--max-steps": ["4", "0"],
    "--kappa": ["50", "-1"],
    "--overhead": ["0.1"],
    "--delay-ms": ["20", "-5"],
    "--obs-every": ["2", "0"],
    "--settle-s": ["0.1", "-1"],
    "--latency": ["server", "sundial"],
    "--seeds": ["1", "0"],
}
TOKEN_ONLY, MEASURED_ONLY = ("--kappa", "--overhead"), ("--latency",)
REFUSED = {"--dt": "0", "--max-steps": "0", "--kappa": "-1", "--delay-ms": "-5", "--obs-every": "0",
           "--settle-s": "-1", "--latency": "sundial", "--seeds": "0"}


def valid(flags: dict[str, str]) -> bool:
    clock = flags.get("--clock", "token")
    if any(flags.get(name) == value for name, value in REFUSED.items()):
        return False
    if clock != "token" and any(name in flags for name in TOKEN_ONLY):
        return False
    return clock == "measured" or not any(name in flags for name in MEASURED_ONLY)


# the combinations a newcomer types first always run; Hypothesis draws the rest
@example(flags={}).via("neither")
@example(flags={"--dt": "0.04"}).via("--dt alone")
@example(flags={"--max-steps": "4"}).via("--max-steps alone")
@example(flags={"--dt": "0.04", "--max-steps": "4"}).via("both")
@example(flags={"--clock": "paused", "--dt": "0.04", "--seeds": "1"}).via("the issue's command")
@example(flags={"--clock": "measured", "--latency": "server", "--settle-s": "0.1", "--dt": "0.02"}).via("LCRT")
@example(flags={"--clock": "token", "--kappa": "50", "--overhead": "0.1", "--obs-every": "2"}).via("token settings")
@example(flags={"--clock": "paused", "--kappa": "50"}).via("a setting the clock does not take")
@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flags=st.dictionaries(st.sampled_from(sorted(VALUES)), st.none(), max_size=4).flatmap(
    lambda keys: st.fixed_dictionaries({k: st.sampled_from(VALUES[k]) for k in keys})))
def test_every_valid_combination_runs_and_every_invalid_one_is_one_line(flags, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "out"
    argv = ["run", "classic/cartpole-v0", "--agent", "random", "--out", str(out)]
    for name, value in flags.items():
        argv += [name, value]
    code, output = run_main(argv)
    assert "Traceback" not in output, (argv, output)
    if not valid(flags):
        assert code == 2 and len(output.strip().splitlines()) == 1, (argv, output)
        assert not (out / "episodes.jsonl").exists()
        return
    assert code == 0, (argv, output)
    episode = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert episode["status"] == "ok" and episode["clock"]["clock"] == flags.get("--clock", "token")
    if "--max-steps" in flags:
        assert episode["steps"] <= 4
    if "--dt" in flags:  # the step the flag asked for reached the env
        assert episode["sim_seconds"] == pytest.approx(episode["steps"] * float(flags["--dt"]))


def test_the_issues_command_runs_paused_with_dt_and_no_step_limit(tmp_path):
    """`--dt` without `--max-steps` once ended in a TypeError (the step limit times dt); the episode now runs
    until the env ends it, at the asked dt (cart-pole here: the same flags, an episode of seconds)."""
    code, output = run_main(["run", "classic/cartpole-v0", "--agent", "heuristic", "--clock", "paused", "--dt",
                             "0.05", "--seeds", "1", "--out", str(tmp_path / "o")])
    assert code == 0, output
    episode = json.loads((tmp_path / "o" / "episodes.jsonl").read_text())
    assert episode["sim_seconds"] == pytest.approx(episode["steps"] * 0.05) and episode["steps"] > 4


def test_the_flags_build_the_clock_once_and_it_is_the_episodes():
    flags = RunFlags.model_validate({"--agent": ("random",), "--clock": "token", "--kappa": 50, "--overhead": 0.1,
                                     "--delay-ms": 250})
    assert flags.run_clock == make_clock("token", kappa=50, overhead_s=0.1, delay_s=0.25)
    assert flags.run_clock is flags.run_clock  # held, not rebuilt on each use
    # a stored job (config.json) gives back the same clock, and what it was not given stays unset: a resumed
    # run fills the env's own defaults (obs_every, a browser task's B) as the first run did
    job = EpisodeJob("classic/cartpole-v0", ("random",), flags.run_clock, 0, 5)
    again = job_from_dict(json.loads(json.dumps(job_to_dict(job))))
    assert again == job and again.clock.given() == {"kappa": 50.0, "overhead_s": 0.1, "delay_s": 0.25}


def test_improve_sets_every_setting_of_its_clock():
    """`improve` builds its clock the same way: overhead_s reaches a token clock, and a setting the clock does
    not take is the same line as `rtarena run` prints."""
    chosen = improve_settings(clock="token", kappa=80, overhead_s=0.5)
    assert chosen.run_clock == make_clock("token", kappa=80, overhead_s=0.5, settle_s=0.2)
    with pytest.raises(UserError, match="overhead_s: not a setting of clock 'paused'"):
        improve_settings(overhead_s=0.5)
