"""`rtarena improve` at the command line: bad input gives one line, exit 2, nothing written."""

from __future__ import annotations

import pytest
from tests.eval.helpers import rtarena_cli

PLAYER, REFLECTOR = "llm:m@http://127.0.0.1:9/v1", "m@http://127.0.0.1:9/v1"
BOTH = ["classic/cartpole-v0", "--player", PLAYER, "--reflector", REFLECTOR]


@pytest.mark.parametrize(("args", "message"), [
    (["classic/cartpole-v0", "--player", "heuristic", "--reflector", REFLECTOR], "--player: the player must be"),
    ([*BOTH, "--alpha", "2"], "alpha: must be <= 1, got 2"),
    ([*BOTH, "--judge-mode", "soft"], "judge_mode: must be one of"),
    ([*BOTH, "--setting", "nope=1"], "nope: unknown key"),
    ([*BOTH, "--clock", "sundial"], "clock: must be one of"),
    (["classic/cartpole-v0", "--player", PLAYER], "--reflector"),
    ([*BOTH, "--variant", "v:nope=1"], "--variant"),
    (["nowhere/none-v0", "--player", PLAYER, "--reflector", REFLECTOR], "nowhere/none-v0"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, args, message):
    done = rtarena_cli("improve", *args, "--out", str(tmp_path / "runs"), cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    out = done.stdout.strip()
    assert out.startswith("error:") and message in out and "Traceback" not in done.stdout + done.stderr
    assert len(out.splitlines()) == 1 or "\n" not in out.replace("\n", " ").strip()
    assert not (tmp_path / "runs").exists()
