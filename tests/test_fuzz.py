"""Fuzzing every entry point (issue 29): any input ends in exit 0 or 2, a 4xx, or a clean answer; never a
traceback, an unexpected exception or a 5xx, and within a bounded time per case.

Hypothesis draws CLI flag values, experiment files, level overrides, map tables, map files (raw bytes) and
the JSON bodies and query strings of every local server's endpoints (dashboard, editor, review page through
their route tables in this process; the policy server over real HTTP). The examples are few and the
inputs small so the module stays within about half a minute; one subprocess case runs the real `rtarena`
under a memory rlimit. Inputs are drawn from a mix of the values people and attackers type: huge and
negative numbers, `nan`, `1e308`, empty text, paths with `..` and NUL bytes, deep lists.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.test_bad_input import run_cli

from rtarena.errors import UserError
from rtarena.webapp import Reply, Request, RequestError

CASE_SECONDS = 10.0  # the bound on one case (any input)
FUZZ = settings(max_examples=15, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Values people and attackers type where a number, a name or a path is due.
NASTY = st.sampled_from(["", "0", "-1", "1", "3", "2.5", "nan", "inf", "-inf", "1e12", "1e308", "1e-300", "true",
                         "yes", "../../x", "/abs", "a\x00b", "ü", "[1]", "{}", "9" * 40, " ", "--out"])
NUMBER = st.one_of(st.integers(-10**12, 10**12), st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from([0, 1, -1, 10**9, 1e308, 2**63]))
SCALAR = st.one_of(st.none(), st.booleans(), NUMBER, st.text(max_size=12), NASTY)
JSONISH = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                       max_leaves=12)


def bounded(call):
    """Run `call`, and fail when it took longer than a case may."""
    started = time.monotonic()
    result = call()
    assert time.monotonic() - started < CASE_SECONDS, "a case ran past its time bound"
    return result


# -- the command line --------------------------------------------------------------------------------
RUN_FLAGS = {"--dt": NASTY, "--seeds": st.sampled_from(["0", "-1", "1", "2", "1e12", "10001", "x", ""]),
             "--max-steps": st.sampled_from(["0", "-1", "5", "1e9", "1000001", "x"]),
             "--clock": st.sampled_from(["paused", "token", "sundial", "", "PAUSED"]),
             "--delay-ms": NASTY, "--obs-every": NASTY, "--seed-start": NASTY, "--kappa": NASTY,
             "--run-id": NASTY, "--out": NASTY, "--set": NASTY, "--map": NASTY}


@FUZZ
@given(flags=st.dictionaries(st.sampled_from(sorted(RUN_FLAGS)), st.none(), max_size=4).flatmap(
    lambda keys: st.fixed_dictionaries({k: RUN_FLAGS[k] for k in keys})))
def test_run_flags(flags, tmp_path_factory, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.mktemp("fuzz-cli"))
    argv = ["run", "classic/cartpole-v0", "--agent", "random", "--max-steps", "5"]
    for name, value in flags.items():
        argv += [name, value]
    code, output = bounded(lambda: run_cli(argv, capsys))
    assert code in (0, 2) and "Traceback" not in output, (argv, output)
    if code == 2:
        assert len([line for line in output.splitlines() if line.strip()]) == 1, output


# -- experiment files, level overrides, maps ----------------------------------------------------------
EXPERIMENT_KEYS = ["name", "seeds", "seed_start", "max_steps", "out", "workers", "video", "envs", "agents",
                   "clocks", "observations", "params", "colour"]


@settings(FUZZ, max_examples=10)  # each valid file builds its envs to check slot counts
@given(table=st.dictionaries(st.sampled_from(EXPERIMENT_KEYS), JSONISH, max_size=6))
def test_experiment_files(table, tmp_path_factory):
    from rtarena.eval.experiment_file import load_experiment

    base = {"envs": ["classic/cartpole-v0"], "agents": ["random"], "clocks": ["paused"], "out": "o"}
    path = tmp_path_factory.mktemp("fuzz-exp") / "exp.json"
    path.write_text(json.dumps({**base, **table}, allow_nan=True))
    try:
        bounded(lambda: load_experiment(path))
    except UserError as error:
        assert "\n" not in str(error)


LEVEL_KEYS = ["turret.count", "turret.range_m", "coins.count", "coins.enabled", "players.count", "players.teams",
              "arena.size_m", "arena.time_limit_s", "arena.substep_s", "layout.walls", "layout.wall_length_m",
              "toxic_zone.stages", "points.coin", "dragons.count", "turret", ""]


@FUZZ
@given(overrides=st.dictionaries(st.sampled_from(LEVEL_KEYS), JSONISH, max_size=3))
def test_level_overrides(overrides):
    from rtarena.envs.arena.rules import load_rules

    try:
        bounded(lambda: load_rules("coop.toml", overrides))
    except UserError as error:
        assert "\n" not in str(error)


MAP_KEYS = ["size_m", "obstacles", "spawns", "coins", "turrets", "ammo", "chickens", "ammo_areas", "toxic_zone",
            "name", "bogus"]
ROW = st.lists(st.one_of(NUMBER, st.sampled_from(["wall", "crate", "x"])), max_size=7)


@FUZZ
@given(table=st.dictionaries(st.sampled_from(MAP_KEYS), st.one_of(JSONISH, st.lists(ROW, max_size=30)),
                             max_size=6))
def test_map_tables(table):
    from rtarena.envs.arena.maps.validate import validate_map

    problems = bounded(lambda: validate_map(table, "fuzz.json", players=2))
    assert all("\n" not in p.line() for p in problems)


@FUZZ
@given(raw=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode),
                     st.integers(1, 5000).map(lambda n: b'{"obstacles": ' + b"[" * n + b"]" * n + b"}")))
def test_map_files(raw, tmp_path_factory):
    from rtarena.editor.maps import validate_command

    folder = tmp_path_factory.mktemp("fuzz-map")
    for name in ("m.json", "m.toml"):
        (folder / name).write_bytes(raw)
        problems = bounded(lambda name=name: validate_command([str(folder / name)]))
        assert all("\n" not in p.line() for p in problems)


def test_a_real_process_under_a_memory_limit(tmp_path):
    """The real `rtarena map validate` of a hostile file inside a 1.5 GB address-space limit: one line,
    no MemoryError."""
    (tmp_path / "m.json").write_bytes(b'{"obstacles": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))

    done = subprocess.run([sys.executable, "-m", "rtarena.cli", "map", "validate", "m.json", "/dev/zero"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, preexec_fn=limit)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "nesting.depth" in done.stdout and "file.bytes" in done.stdout, done.stdout


# -- the servers' JSON endpoints ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    """The dashboard's, editor's and review page's route tables over a real cart-pole run."""
    from rtarena.annotate.review import make_app as review_app
    from rtarena.cli import main
    from rtarena.dashboard.data import Store
    from rtarena.dashboard.server import routes as dashboard_routes
    from rtarena.editor.server import EditorSession
    from rtarena.editor.server import routes as editor_routes

    root = tmp_path_factory.mktemp("fuzz-runs")
    old = sys.argv
    sys.argv = ["rtarena", "run", "classic/cartpole-v0", "--agent", "random", "--clock", "paused", "--max-steps",
                "5", "--out", str(root / "cart")]
    try:
        main()
    except SystemExit as done:
        assert not done.code
    finally:
        sys.argv = old
    review, _session = review_app(root / "cart")
    review.stop()  # never started: its socket is released
    editor = {k: v for k, v in editor_routes(EditorSession(root / "m.toml", root=root)).items()
              if k[1] != "/api/preview"}  # the preview renders a 3D view: a valid one is slow, not unsafe
    return {**dashboard_routes(Store(root)), **editor, **review.routes}


QUERY = st.dictionaries(st.sampled_from(["run", "episode", "i", "q", "status", "env", "runs", "path", "agent"]),
                        st.one_of(NASTY, st.sampled_from(["cart", "0", "classic__cartpole-v0__seed00000"])),
                        max_size=4)


@FUZZ
@given(route=st.integers(0, 100), query=QUERY, body=JSONISH)
def test_local_server_routes(apps, route, query, body):
    method, path = sorted(apps)[route % len(apps)]
    request = Request(method, path, {k: str(v) for k, v in query.items()}, body if method == "POST" else None)
    try:
        answer = bounded(lambda: apps[(method, path)](request))
    except RequestError as error:
        assert 400 <= error.status < 500, (path, error)
    except UserError:
        pass  # the app answers 400 with the line
    else:
        assert isinstance(answer, Reply) or json.dumps(answer, default=str)


@pytest.fixture(scope="module")
def policy_server():
    from rtarena.policy_server import PolicyServer

    with PolicyServer() as server:
        yield server


@FUZZ
@given(body=st.one_of(JSONISH, st.fixed_dictionaries({"model": SCALAR, "messages": JSONISH, "stream": SCALAR,
                                                      "max_tokens": SCALAR, "tools": JSONISH})),
       path=st.sampled_from(["/v1/chat/completions", "/v1/models", "/s/fault=html/v1/chat/completions",
                             "/s/x=1/v1/chat/completions", "/v1/../x", "/health"]))
def test_policy_server_endpoints(policy_server, body, path):
    data = json.dumps(body, allow_nan=True).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{policy_server.port}{path}", data=data, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with bounded(lambda: urllib.request.urlopen(request, timeout=CASE_SECONDS)) as answer:
            status = answer.status
            answer.read()
    except urllib.error.HTTPError as error:
        status = error.code
    assert status < 500, (path, body, status)


# -- hostile files, every format the CLI reads (issue 47) -------------------------------------------------
# Each draw is a file an attacker would write: nested past `nesting.depth`, a YAML alias bomb, more values than
# `nesting.nodes`, a 4,000-digit integer, bytes that are not UTF-8, a byte-order mark before broken syntax, or
# no regular file at all (a named pipe with no writer, a device, a folder). Every one must end in exit 2 and
# one line naming the file, within CASE_SECONDS and without the process growing by FILE_MB.
FILE_MB = 400
FORMATS = {"toml": ("a = {}", "size_m = {}"), "json": ('{{"a": {}}}', '{{"size_m": {}}}'),
           "yaml": ("a: {}", "size_m: {}")}
SPECIAL = ("fifo", "folder", "/dev/zero", "missing")


def _bomb(levels: int) -> str:
    lines = ['l0: &l0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def hostile(fmt: str) -> st.SearchStrategy[bytes | str]:
    """Hostile content for a file of format `fmt` (bytes), or the name of a file that is no regular file."""
    nested, scalar = FORMATS[fmt]
    kinds = [
        st.integers(65, 3000).map(lambda n: nested.format("[" * n + "]" * n).encode()),
        st.integers(20, 5000).map(lambda digits: scalar.format("9" * digits).encode()),
        st.binary(max_size=200).map(lambda raw: b"\xff\xfe" + raw),
        st.sampled_from(["= = [", "{", "a = [1,", ":\n- ]"]).map(lambda text: b"\xef\xbb\xbf" + text.encode()),
        st.sampled_from(SPECIAL),
    ]
    if fmt == "yaml":
        kinds.append(st.integers(7, 12).map(lambda levels: _bomb(levels).encode()))
    if fmt == "json":
        kinds.append(st.just(nested.format("[" + "0," * 1_000_001 + "0]").encode()))
    return st.one_of(kinds)


def _place(folder, name: str, content: bytes | str) -> str:
    """Write `content` as `folder/name` (or make the special file it names); the path to give the CLI."""
    import os

    path = folder / name
    if content == "fifo":
        os.mkfifo(path)
    elif content == "folder":
        path.mkdir()
    elif content == "/dev/zero":
        return "/dev/zero"
    elif content != "missing":
        path.write_bytes(content)
    return str(path)


def _hostile_case(argv: list[str], capsys) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, output = bounded(lambda: run_cli(argv, capsys))
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    lines = [line for line in output.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in output, (argv, output[-2000:])
    assert grown_mb < FILE_MB, f"{argv}: the process grew by {grown_mb:.0f} MB"


# Each format and the command that reads it: experiment files (`run FILE`), maps (`map render FILE`), skills
# (`skill=FILE` of a model agent, read when the spec is checked), level overrides (an experiment's
# `overrides` table, hostile as any other table).
READERS = {
    "experiment.toml": lambda f: ["run", f], "experiment.json": lambda f: ["run", f],
    "experiment.yaml": lambda f: ["run", f], "map.toml": lambda f: ["map", "render", f, "--out", "m.png"],
    "map.json": lambda f: ["map", "render", f, "--out", "m.png"],
    "skill.md": lambda f: ["run", "classic/cartpole-v0", "--agent", f"llm:m@http://127.0.0.1:9/v1,skill={f}"],
}


@settings(FUZZ, max_examples=24)
@given(data=st.data(), name=st.sampled_from(sorted(READERS)))
def test_hostile_files(data, name, tmp_path_factory, capsys, monkeypatch):
    folder = tmp_path_factory.mktemp("hostile")
    monkeypatch.chdir(folder)
    fmt = name.rpartition(".")[2]
    content = data.draw(hostile(fmt) if fmt in FORMATS else st.one_of(
        st.binary(max_size=200).map(lambda raw: b"\xff\xfe" + raw), st.sampled_from(SPECIAL)))
    _hostile_case(READERS[name](_place(folder, name, content)), capsys)
    assert not (folder / "m.png").exists()


@settings(FUZZ, max_examples=8)
@given(overrides=st.one_of(
    st.integers(65, 800).map(lambda n: {"turret.range_m": json.loads("[" * n + "]" * n)}),
    st.integers(20, 4000).map(lambda digits: {"turret.count": int("9" * digits)}),
    st.sampled_from([{"turret.count": 10**12}, {"coins.count": 10**6}, {"arena.size_m": 1e308},
                     {"players.count": 10**9}, {"arena.time_limit_s": float("inf")}, {"turret": "x"}])))
def test_hostile_level_overrides(overrides, tmp_path_factory, capsys, monkeypatch):
    folder = tmp_path_factory.mktemp("hostile-overrides")
    monkeypatch.chdir(folder)
    text = json.dumps({"envs": [{"id": "arena/basic-v0", "overrides": overrides}], "agents": ["random"],
                       "clocks": ["paused"], "out": "o"}, allow_nan=True)
    (folder / "exp.json").write_text(text)
    _hostile_case(["run", "exp.json"], capsys)
    assert not (folder / "o").exists()
