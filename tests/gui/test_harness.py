"""The harness around the tasks: missing Chromium, task files, screenshots per episode, agent specs."""

from __future__ import annotations

import subprocess
import sys

import pytest

import rtarena
from rtarena.agents.gui_random import GuiRandomAgent
from rtarena.agents.specs import build_agent
from rtarena.envs.gui import BrowserTaskEnv, load_spec
from rtarena.errors import UserError


def test_missing_chromium_is_one_clear_line(tmp_path):
    with pytest.raises(UserError) as error:
        BrowserTaskEnv("auction", executable_path=str(tmp_path / "no-chromium"))
    message = str(error.value)
    assert "apt-get install chromium" in message and "\n" not in message


def test_the_headless_only_build_is_chosen_first_and_the_full_browser_is_the_fallback(tmp_path, monkeypatch):
    from rtarena.envs.gui import browser

    shell, full = tmp_path / "chromium-headless-shell", tmp_path / "chromium"
    monkeypatch.setattr(browser, "DEFAULT_CHROMIUMS", (str(shell), str(full)))
    monkeypatch.delenv("RTARENA_CHROMIUM", raising=False)
    with pytest.raises(UserError, match=f"looked for {shell} and {full}"):
        browser.chromium_path()
    full.write_text("#!/bin/sh\n")
    full.chmod(0o755)
    assert browser.chromium_path() == str(full)
    shell.write_text("#!/bin/sh\n")
    shell.chmod(0o644)  # there, but not executable: passed over
    assert browser.chromium_path() == str(full)
    shell.chmod(0o755)
    assert browser.chromium_path() == str(shell)
    monkeypatch.setenv("RTARENA_CHROMIUM", str(full))  # the user's choice wins
    assert browser.chromium_path() == str(full)


def test_missing_chromium_from_the_cli(tmp_path):
    code = ("import sys; from rtarena.cli import main; sys.argv = ['rtarena', 'run', 'web/auction-v0', '--agent', "
            f"'oracle', '--clock', 'paused', '--out', {str(tmp_path / 'out')!r}]; main()")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"RTARENA_CHROMIUM": str(tmp_path / "none"), "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0 and "Traceback" not in proc.stdout + proc.stderr
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    assert len(lines) == 1 and "apt-get install chromium" in lines[0]


def test_task_file_errors_name_file_and_field(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\npage = "web/auction.html"\ngoal = "g"\ndeadline = 3\n')
    with pytest.raises(UserError, match=r"bad.toml: deadline: unknown field"):
        load_spec(str(bad))
    with pytest.raises(UserError, match="known tasks"):
        load_spec("no-such-task")


def test_screenshots_saved_per_episode(tmp_path, gui_env):
    env = gui_env("web/limit-v0", obs=("marks",), screenshot_dir=tmp_path, screenshots_per_episode=4)
    rtarena.run_match(env, build_agent("oracle", "web"), clock="paused", seed=7)
    saved = sorted((tmp_path / "limit-seed7").glob("step*.jpg"))
    assert 2 <= len(saved) <= 5 and saved[0].name == "step0000.jpg"


def test_agent_specs_for_gui_families(gui_env):
    assert build_agent("oracle:300", "web").tokens_out == 300
    assert isinstance(build_agent("random", "gui-games"), GuiRandomAgent)
    with pytest.raises(UserError):
        build_agent("oracle:lots", "web")
    env = gui_env("web/cinema-v0", obs=("marks",))
    result = rtarena.run_match(env, build_agent("random", "web"), clock="paused", seed=0, max_steps=12)
    assert result.agents["user"]["malformed_actions"] == 0 and result.agents["user"]["gui_actions"] > 0


def test_the_oracles_snapshot_is_the_pages_solution_and_takes_no_page_time(gui_env):
    env = gui_env("web/cinema-v0", obs=("marks",))
    env.reset(seed=0)
    facts = env.privileged_state("user")
    assert facts["elapsed_s"] == 0.0 and facts["substep_s"] == 0.001 and facts["seen_s"] == env.dt
    assert facts["action"] == env.oracle_action(0.0, env.dt) and "(" in facts["action"]
    assert env.privileged_state("user", after_s=2.0)["action"] == "wait()"  # its last action not yet visible
    assert env.elapsed_s == 0.0  # asking the oracle takes no page time


def test_forked_worker_gets_its_own_browser_and_server(gui_env):
    import multiprocessing

    gui_env("web/auction-v0", obs=("marks",)).reset(seed=0)  # the parent has a browser and a page server
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_oracle_success_in_child, ("web/document-v0",), ) == 1.0


def _oracle_success_in_child(env_id: str) -> float:
    from rtarena.agents.gui_oracle import GuiOracleAgent

    env = rtarena.make(env_id, obs=("marks",))
    try:
        result = rtarena.run_match(env, GuiOracleAgent(), clock="paused", seed=0)
        return result.agents["user"]["success"]
    finally:
        env.close()
