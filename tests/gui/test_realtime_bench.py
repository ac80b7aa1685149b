"""The `realtime-bench` preset: every browser task, the paper's clocks, and its conditions reach the agent
(the clock sentence and kappa = B x the task's observation rate in the model's prompt and records, the
Set-of-Marks screenshot plus marks list in its messages)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tests.gui.helpers import GUI_IDS

import rtarena
from rtarena.agents.llm.agent import LLMAgent
from rtarena.eval.presets import load_preset
from rtarena.eval.runner import run_experiment
from rtarena.policy_server.server import PolicyServer


def test_preset_runs_every_browser_task_under_the_papers_clocks():
    experiment = load_preset("realtime-bench")
    assert sorted(e.id for e in experiment.envs) == sorted(GUI_IDS)
    clocks = {c.name: c for c in experiment.clocks}
    assert {c.clock for c in clocks.values()} == {"paused", "token", "wall"}
    assert clocks["token-B64"].run_clock.given() == {"tokens_per_interval": 64.0}
    assert all(c.dt is None for c in clocks.values())  # each task's own dt: one observation per page second


def test_each_clock_reaches_the_model_prompt_and_view(gui_env):
    experiment = load_preset("realtime-bench")
    env = gui_env("web/auction-v0")
    sentences = {}
    with PolicyServer() as server:
        for setting in experiment.clocks:
            if setting.clock == "wall":
                continue  # real time: its sentence is checked by the clock tests, without a real-time wait
            clock = setting.run_clock.for_env(env)
            agent = LLMAgent(f"scripted-heuristic@{server.base_url}")
            result = rtarena.run_match(env, agent, clock=clock, seed=0, max_steps=2)
            sentences[setting.name] = agent.system
            first = agent.history.turns[0].user
            kinds = [part["type"] for part in first]
            assert kinds == ["text", "image_url", "text"]  # goal and clock, the screenshot, then the marks
            item = env.page_eval("RT.task.vars.item")  # the listing's first page: the lots, the task's among them
            assert first[2]["text"].startswith("Interactable elements") and f'link "{item}"' in first[2]["text"]
            assert agent.options.image_size == 800  # the screenshot at its own size, readable
            assert "web site" in agent.system and env.goal in agent.system  # web setting, the task's own goal
            if setting.clock == "token":
                assert clock.kappa == 64.0  # B = 64 tokens per interval x one observation per second
                assert all(d.delay_sim_s == d.tokens_out / 64.0 for d in result.decisions)
    assert "paused while you think" in sentences["paused"]
    assert "every 64 tokens you generate cost 1 s" in sentences["token-B64"]


def test_preset_runs_end_to_end_shrunk(tmp_path):
    experiment = load_preset("realtime-bench")
    envs = tuple(e for e in experiment.envs if e.id in ("web/tickets-v0", "gui-games/snake-v0"))
    lineups = tuple(lu for lu in experiment.lineups if lu.name == "oracle")
    clocks = tuple(c for c in experiment.clocks if c.clock != "wall")
    envs = tuple(replace(e, lineups=tuple(n for n in e.lineups if n == "oracle") or e.lineups) for e in envs)
    small = replace(experiment, envs=envs, lineups=lineups, clocks=clocks, seeds=(0,), max_steps=6,
                    out=str(tmp_path / "runs"))
    result = run_experiment(small, run_id="rtb", workers=1)
    assert result.failed == 0
    from tests.eval.helpers import lines

    episodes = lines(result.run_dir)
    assert len(episodes) == 4
    token = [e for e in episodes if e["clock"]["clock"] == "token"]
    assert token and all(e["clock"]["kappa"] == 64.0 for e in token)


def test_token_clock_defaults_to_b_64_times_the_tasks_rate(gui_env):
    from rtarena.agents.gui_oracle import GuiOracleAgent

    env = gui_env("web/auction-v0", obs=("marks", "time"))
    plain = rtarena.run_match(env, GuiOracleAgent(tokens_out=32), clock="token", seed=0, max_steps=3)
    assert all(d.delay_sim_s == 0.5 for d in plain.decisions)  # 32 tokens at 64 tokens per page second
    fast = gui_env("web/auction-v0", obs=("marks", "time"), dt=0.5)  # two observations per second: kappa 128
    result = rtarena.run_match(fast, GuiOracleAgent(tokens_out=32), clock="token", tokens_per_interval=64, seed=0,
                               max_steps=3)
    assert all(d.delay_sim_s == 0.25 for d in result.decisions)
    explicit = rtarena.run_match(env, GuiOracleAgent(tokens_out=32), clock="token", kappa=100, seed=0, max_steps=3)
    assert all(d.delay_sim_s == 0.32 for d in explicit.decisions)  # an explicit kappa wins


# The study's four conditions: clock protocol and reasoning effort; the clock's sentence in the system prompt.
CONDITIONS = {"TL": ("token", "low"), "TH": ("token", "high"), "PH": ("paused", "high"), "WH": ("wall", "high")}
CLOCK_SENTENCE = {"token": "every 64 tokens you generate cost 1 s of {world} time",
                  "paused": "The {world} is paused while you think", "wall": "The {world} runs in real time"}


def test_the_conditions_and_realtime_bench_share_the_registrys_50_tasks():
    ids = sorted(GUI_IDS)
    assert len(ids) == 50 and sum(i.startswith("web/") for i in ids) == 30
    for name in (*CONDITIONS, *(f"{c}-text" for c in CONDITIONS), "realtime-bench"):
        # not strict: the patterns expand over the registry either way (test_experiment builds every preset)
        assert sorted(e.id for e in load_preset(name, strict=False).envs) == ids, name


@pytest.mark.parametrize("name, env_id", [("TL", "web/auction-v0"), ("TH", "gui-games/snake-v0"),
                                          ("PH", "gui-games/g2048-v0"), ("WH", "web/tickets-v0")])
def test_each_condition_sends_the_screenshot_and_its_setting(name, env_id, tmp_path):
    """Read at the policy server: every request of the condition holds the Set-of-Marks screenshot and the
    marks list, the condition's reasoning effort, and its clock's sentence in the system prompt."""
    clock, effort = CONDITIONS[name]
    with PolicyServer() as server:
        experiment = load_preset(name, params={"base_url": server.url(reasoning_model=True)})
        small = replace(experiment, envs=tuple(e for e in experiment.envs if e.id == env_id), seeds=(0,),
                        max_steps=2, out=str(tmp_path))
        result = run_experiment(small, run_id=name, workers=1)
        bodies = server.bodies
    assert result.failed == 0 and bodies
    for body in bodies:
        assert body["reasoning_effort"] == effort
        current = body["messages"][-1]["content"]
        assert [part["type"] for part in current] == ["text", "image_url", "text"]
        assert current[1]["image_url"]["url"].startswith("data:image/png;base64,")
        assert current[2]["text"].startswith("Interactable elements")
        system = body["messages"][0]["content"]
        world = "page" if env_id.startswith("web/") else "game"  # a web task's world is its page
        time_section = system.split("## Time")[1].split("##")[0]
        assert CLOCK_SENTENCE[clock].format(world=world) in time_section
        assert world == "game" or "game" not in time_section


def test_text_ablation_sends_no_image(tmp_path):
    with PolicyServer() as server:
        experiment = load_preset("TH-text", params={"base_url": server.url(reasoning_model=True)})
        small = replace(experiment, envs=experiment.envs[:1], seeds=(0,), max_steps=1, out=str(tmp_path))
        assert [c.name for c in small.clocks] == ["TH"] and small.lineups[0].name == "model-text"
        result = run_experiment(small, run_id="text", workers=1)
        bodies = server.bodies
    assert result.failed == 0 and bodies
    assert all(isinstance(b["messages"][-1]["content"], str) for b in bodies)  # text only: no image part
