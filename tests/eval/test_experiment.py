"""Experiment files: parsing, the job matrix, parameters, presets, and one-line errors for mistakes."""

from __future__ import annotations

import pytest
from tests.helpers import rtarena_cli

from rtarena.errors import UserError
from rtarena.eval.experiment import endpoint_of
from rtarena.eval.experiment_file import load_experiment, parse_experiment
from rtarena.eval.presets import load_preset, preset_names
from rtarena.eval.runner import endpoint_load, fits
from rtarena.runtime.clocks import make_clock

from .helpers import cartpole_experiment

FULL = """
name = "matrix"
seeds = [3, 5]
max_steps = 100
params = { model = "m1", url = "http://127.0.0.1:9/v1" }
concurrency = { "{url}" = 2 }
observations = [["text"], ["text", "state"]]

[[envs]]
id = "arena/coop-v0"
kwargs = { num_agents = 4 }
lineups = ["models", "bots"]

[[envs]]
id = "arena/basic-v0"
overrides = { "arena.time_limit_s" = 60 }
lineups = ["bots"]

[[agents]]
name = "models"
slots = ["llm:{model}@{url},temperature=0", "heuristic", "heuristic", "heuristic"]

[[agents]]
name = "bots"
slots = ["heuristic"]

[[clocks]]
clock = "paused"
dt = 0.25

[[clocks]]
name = "tok"
clock = "token"
kappa = 50
delay_ms = 250
"""


def write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_full_file_gives_the_matrix_of_jobs(tmp_path):
    experiment = load_experiment(write(tmp_path, FULL))
    jobs = experiment.jobs()
    # coop: 2 line-ups, basic: 1 line-up; x 2 clocks x 2 modalities x 2 seeds
    assert len(jobs) == (2 + 1) * 2 * 2 * 2
    assert len({job.key for job in jobs}) == len(jobs)
    assert [job.seed for job in jobs[:12]] == [3] * 12  # seed-major: a partial run covers every cell
    model_job = next(j for j in jobs if j.tags["lineup"] == "models" and j.tags["clock_name"] == "tok")
    assert model_job.agent_specs[0] == "llm:m1@http://127.0.0.1:9/v1,temperature=0"
    assert model_job.clock == make_clock("token", delay_s=0.25, kappa=50.0)
    assert model_job.env_kwargs == {"num_agents": 4, "obs": ["text"]}  # the first modality of the cell
    basic = next(j for j in jobs if j.env_id == "arena/basic-v0" and j.tags["clock_name"] == "paused-dt250ms")
    assert basic.env_kwargs["overrides"] == {"arena.time_limit_s": 60} and basic.env_kwargs["dt"] == 0.25
    assert experiment.concurrency == {"http://127.0.0.1:9/v1": 2}
    assert endpoint_load(model_job) == {"http://127.0.0.1:9/v1": 1}


def test_set_overrides_a_declared_parameter(tmp_path):
    experiment = load_experiment(write(tmp_path, FULL), params={"model": "qwen3"})
    assert experiment.lineups[0].slots[0].startswith("llm:qwen3@")
    with pytest.raises(UserError, match=r"params.modle: .*declares no parameter 'modle'"):
        load_experiment(write(tmp_path, FULL), params={"modle": "qwen3"})


def test_short_forms_and_defaults(tmp_path):
    experiment = load_experiment(write(tmp_path, 'envs = ["classic/cartpole-v0"]\nagents = ["noop", "random"]\n'
                                                 'clocks = ["paused", "token"]\nseeds = 2\n'))
    assert experiment.name == "exp" and experiment.seeds == (0, 1)
    assert [lu.name for lu in experiment.lineups] == ["noop", "random"]
    assert len(experiment.jobs()) == 2 * 2 * 2


@pytest.mark.parametrize(("text", "field", "value"), [
    ('envs = ["classic/cartpole-v0"]\nseeds = "ten"\n', "seeds", "'ten'"),
    ('envs = ["classic/cartpole-v0"]\n[[clocks]]\nclock = "paused"\ndelay_ms = -5\n', "clocks[0].delay_ms", "-5"),
    ('envs = ["classic/cartpole-v0"]\n[[clocks]]\nclock = "fast"\n', "clocks[0].clock", "'fast'"),
    ('envs = ["classic/cartpole-v0"]\n[[clocks]]\nclok = "paused"\n', "clocks[0].clock", "is required"),
    ('envs = ["classic/cartpole-v0"]\n[[clocks]]\nclock = "paused"\nclok = 1\n', "clocks[0].clok",
     "did you mean 'clock'"),
    ('envs = ["classic/cartpole-v0"]\n[[clocks]]\nclock = "paused"\nkappa = 10\n', "clocks[0].kappa", "'paused'"),
    ('envs = ["classic/cartpole-v0"]\nmax_steps = 0\n', "max_steps", "got 0"),
    ('envs = ["arena/nope-v0"]\n', "envs[0].id", "'arena/nope-v0'"),
    ('envs = ["classic/cartpole-v0"]\nagents = ["wizard"]\n', "agents[0].slots[0]", "'wizard'"),
    ('envs = ["classic/cartpole-v0"]\n[[agents]]\nslots = ["random", "noop"]\n', "agents[0].slots",
     "2 specs for the 1 slots"),
    ('envs = ["classic/cartpole-v0"]\nagents = ["{model}"]\n', "agents[0]", "unknown parameter {model}"),
    ('envs = ["classic/cartpole-v0"]\nvideo = "yes"\n', "video", "'yes'"),
    ('envs = ["classic/cartpole-v0"]\nconcurrency = { "http://x" = 0 }\n', "concurrency.http://x", "got 0"),
    ('[[envs]]\nid = "classic/cartpole-v0"\nkwargs = { dt = 0.1 }\n', "envs[0].kwargs.dt", "[[clocks]]"),
    ('envs = ["classic/cartpole-v0"]\nseeds = = 3\n', "invalid TOML", "line 2"),
])
def test_mistakes_name_file_field_and_value_in_one_line(tmp_path, text, field, value):
    path = write(tmp_path, text, "bad.toml")
    with pytest.raises(UserError) as caught:
        load_experiment(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert field in message and value in message, message
    assert "\n" not in message


def test_yaml_files_read_like_toml(tmp_path):
    path = write(tmp_path, "envs: [classic/cartpole-v0]\nagents: [noop]\nclocks:\n  - clock: paused\n"
                           "    delay_ms: -1\n", "bad.yaml")
    with pytest.raises(UserError, match=r"bad.yaml: clocks\[0\].delay_ms: must be >= 0 milliseconds, got -1"):
        load_experiment(path)
    path.write_text("envs: [classic/cartpole-v0]\nagents: [noop]\nclocks: [paused]\n")
    assert len(load_experiment(path).jobs()) == 1


def test_cli_prints_one_line_for_a_malformed_file(tmp_path):
    path = write(tmp_path, 'envs = ["classic/cartpole-v0"]\n[[clocks]]\nclock = "paused"\ndelay_ms = "lots"\n',
                 "bad.toml")
    done = rtarena_cli("run", str(path), cwd=tmp_path)
    output = (done.stdout + done.stderr).strip()
    assert done.returncode == 2
    assert output.splitlines() == [f"error: {path}: clocks[0].delay_ms: must be a number of milliseconds, got 'lots'"]
    assert not (tmp_path / "runs").exists()


def test_runtime_flags_are_refused_with_an_experiment_file(tmp_path):
    path = cartpole_experiment(tmp_path)
    done = rtarena_cli("run", str(path), "--agent", "noop", cwd=tmp_path)
    assert done.returncode == 2 and "--agent apply to `rtarena run ENV_ID`" in done.stdout


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_resolves_against_the_registries(name):
    experiment = load_preset(name)  # strict: env ids registered, agent kinds known, slot counts match
    jobs = experiment.jobs()
    assert jobs and len({job.key for job in jobs}) == len(jobs)
    assert experiment.description


def test_presets_reproduce_the_research_designs():
    main = load_preset("main-table")
    assert {e.id for e in main.envs} == {"arena/basic-v0", "arena/coop-v0", "arena/competitive-v0", "arena/mixed-v0"}
    assert {(c.clock, c.dt) for c in main.clocks} == {("paused", 0.25), ("wall", 0.25)}
    assert sorted(c.delay_ms for c in load_preset("delay-injection").clocks) == [0, 250, 1000, 3000]
    assert len(load_preset("modality-ablation").observations) == 5
    assert sorted(c.delay_ms for c in load_preset("delay-injection-turn-based").clocks) == [0, 250, 1000, 3000]
    specs = {s for lu in load_preset("centralized-vs-decentralized").lineups for s in lu.slots}
    assert any(s.startswith("team:llm:") for s in specs) and any(s.startswith("llm:") for s in specs)
    specs = {s for lu in load_preset("agentic-vs-plain").lineups for s in lu.slots}
    assert any(s.startswith("agentic:") for s in specs) and any(s.startswith("llm:") for s in specs)
    moved = load_preset("main-table", params={"base_url": "http://10.0.0.1:8000/v1"})
    assert moved.concurrency == {"http://10.0.0.1:8000/v1": 8}


def test_presets_command_lists_them():
    done = rtarena_cli("presets")
    assert done.returncode == 0
    for name in preset_names():
        assert name in done.stdout


def test_endpoint_limits_count_controllers():
    assert endpoint_of("llm:qwen@http://h:1/v1,temperature=0") == "http://h:1/v1"
    assert endpoint_of("heuristic") is None
    team = parse_experiment({"envs": ["arena/coop-v0"], "agents": ["team:llm:m@http://h/v1"]}).jobs()[0]
    assert endpoint_load(team) == {"http://h/v1": 1}  # one team controller, one call at a time
    solo = parse_experiment({"envs": ["arena/coop-v0"], "agents": [{"slots": ["llm:m@http://h/v1"] * 2 +
                                                                      ["heuristic"] * 2}]}).jobs()[0]
    assert endpoint_load(solo) == {"http://h/v1": 2}
    limits = {"http://h/v1": 3}
    assert fits(endpoint_load(solo), {"http://h/v1": 0}, limits)
    assert fits(endpoint_load(solo), {"http://h/v1": 1}, limits)
    assert not fits(endpoint_load(solo), {"http://h/v1": 2}, limits)
    assert fits({"http://h/v1": 5}, {"http://h/v1": 0}, limits)  # too big alone: runs when the endpoint is idle


def test_ray_flag_takes_an_optional_address():
    from rtarena.eval.commands import normalise_argv

    assert normalise_argv(["run", "x.toml", "--ray"]) == ["run", "x.toml", "--ray", "local"]
    assert normalise_argv(["run", "--ray", "x.toml"]) == ["run", "--ray", "local", "x.toml"]
    assert normalise_argv(["run", "x.toml", "--ray", "--resume"]) == ["run", "x.toml", "--ray", "local", "--resume"]
    assert normalise_argv(["run", "x.toml", "--ray", "10.0.0.2:6379"]) == ["run", "x.toml", "--ray", "10.0.0.2:6379"]
    assert normalise_argv(["run", "x.toml", "--ray", "auto"]) == ["run", "x.toml", "--ray", "auto"]
