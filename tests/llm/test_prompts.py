"""Prompts are composed from the template files: domain, controls, clock, task, skill; observations as parts."""

from __future__ import annotations

import base64
import io
import wave

import numpy as np
from PIL import Image

from rtarena.agents.llm import LLMAgent
from rtarena.agents.llm.prompts import HERE, observation_message, team_message
from rtarena.envs.registry import make
from rtarena.runtime.clocks import make_clock
from rtarena.runtime.controllers import build_slots, context_for


def system_for(env_id: str, clock, option: str, **env_kwargs) -> str:
    env = make(env_id, **env_kwargs)
    agent = LLMAgent(option)
    slot = build_slots(env, {env.possible_agents[0]: agent})[0]
    env.reset(seed=0)
    agent.reset(context_for(slot, env, env_id, 0, clock, 0))
    return agent.system


def test_arena_system_prompt_has_every_part(tmp_path):
    skill = tmp_path / "skill.md"
    skill.write_text("Always strafe when a turret locks on.")
    text = system_for("arena/coop-v0", make_clock("token", kappa=100), f"m@http://127.0.0.1:9/v1,skill={skill}")
    assert "You are the player `p0`" in text
    assert "24 coins" in text  # the level's description
    assert "move_x (0 none, 1 left, 2 right)" in text  # the family's action fields
    assert "turn_deg_s = 90.0" in text and "(from coop.toml)" in text  # rules read from the level file
    assert "- `minimap`: 0..1" in text and 'ACTION: {"move_y":2}' in text and "ACTION: [0,2,0,0,0,0,0]" in text
    assert "every 100 tokens you generate cost 1 s of game time" in text
    assert "Score as much as you can" in text and "Always strafe when a turret locks on." in text
    assert text.index("## The game") < text.index("## Controls") < text.index("## Time") < text.index("## Task")


def test_clock_instruction_follows_the_protocol_and_other_envs_document_themselves():
    paused = system_for("classic/cartpole-v0", make_clock("paused"), "m@http://127.0.0.1:9/v1")
    assert "thinking costs no game time" in paused
    assert "push the cart left (0) or right (1)" in paused and "one integer from 0 to 1" in paused


def test_an_env_outside_the_registry_is_a_game_that_documents_itself():
    from tests.helpers import CounterEnv

    env, agent = CounterEnv(num_agents=1), LLMAgent("m@http://127.0.0.1:9/v1")
    slot = build_slots(env, {"a0": agent})[0]
    env.reset(seed=0)
    agent.reset(context_for(slot, env, "local/counter-v0", 0, make_clock("paused"), 0))
    assert "in a real-time game." in agent.system and "The env `local/counter-v0`." in agent.system


def test_templates_are_files():
    names = {p.relative_to(HERE).as_posix() for p in HERE.rglob("*") if p.suffix in (".md", ".txt")}
    assert {"system.md", "task.md", "ledger.md", "formats/multidiscrete.md", "formats/team.md"} <= names


def test_observation_modalities_become_content_parts():
    rng = np.random.default_rng(0)
    observation = {"text": "Health 100/100.", "state": np.array([0.5, 1.25]),
                   "rgb": rng.integers(0, 255, (96, 128, 3), dtype=np.uint8),
                   "depth": rng.uniform(0, 60, (96, 128)).astype(np.float32),
                   "audio": np.sin(np.linspace(0, 100, 1600)).astype(np.float32)}
    plain = observation_message(observation, 3, ("text",))
    assert plain == "Turn 3. Observation:\nHealth 100/100."
    parts = observation_message(observation, 3, ("text", "state", "rgb", "depth", "audio"), image_size=64,
                                image_format="jpeg")
    assert parts[0] == {"type": "text", "text": "Turn 3. Observation:\nHealth 100/100.\nstate: [0.5, 1.25]"}
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url", "input_audio"]
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    picture = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert picture.format == "JPEG" and picture.size == (64, 48)
    grey = Image.open(io.BytesIO(base64.b64decode(parts[2]["image_url"]["url"].split(",", 1)[1])))
    assert grey.mode == "L"
    with wave.open(io.BytesIO(base64.b64decode(parts[3]["input_audio"]["data"]))) as sound:
        assert sound.getnframes() == 1600
    assert observation_message(np.array([0.1, 0.2]), 1, ("text",)) == "Turn 1. Observation:\nstate: [0.1, 0.2]"


def test_team_message_puts_each_teammate_under_its_id():
    text = team_message({"p0": {"text": "a"}, "p2": {"text": "b"}}, 1, ("text",))
    assert text == "Turn 1. Observation:\n### p0\na\n### p2\nb"


def test_arena_pixels_reach_the_server_as_data_urls(server):
    from rtarena.runtime import run_match

    env = make("arena/basic-v0", obs=("text", "rgb"))
    agent = LLMAgent(f"scripted-heuristic@{server.base_url},modalities=text+rgb,image_size=64")
    sent, complete = [], agent.client.complete

    def recording(messages, **kw):
        sent.append(messages)
        return complete(messages, **kw)

    agent.client.complete = recording
    result = run_match(env, agent, clock="paused", seed=0, max_steps=3)
    assert all(d.valid for d in result.decisions)  # the server still reads the text part
    parts = sent[-1][-1]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url"]
    picture = Image.open(io.BytesIO(base64.b64decode(parts[1]["image_url"]["url"].split(",", 1)[1])))
    assert picture.format == "PNG" and max(picture.size) == 64


def test_the_prompt_takes_its_numbers_from_the_rules_in_force():
    text = system_for("arena/coop-v0", make_clock("paused"), "m@http://127.0.0.1:9/v1",
                      overrides={"coins.count": 5, "turret.count": 0})
    assert "5 coins" in text and "0 turrets" in text  # the description, filled from the rules in force
    assert "24 coins" not in text and "6 turrets" not in text
    assert "count = 5" in text  # the rules table, from the same LevelRules instance


def test_the_task_says_when_the_runtime_applies_an_action():
    """A browser task applies an action at its commit time, inside the step; the others at the next step that
    starts at or after it (DESIGN.md, "The time model"): the prompt says which the runtime does."""
    from dataclasses import replace

    from rtarena.agents.llm.prompts import WHEN, system_prompt
    from rtarena.contract import AgentContext

    base = AgentContext(env_id="classic/cartpole-v0", agents=("agent_0",), observation_spaces={}, action_spaces={},
                        default_actions={}, dt=0.02, seed=0, clock=make_clock("paused"))
    assert WHEN[False] in system_prompt(base, "controls") and WHEN[True] not in system_prompt(base, "controls")
    assert WHEN[True] in system_prompt(replace(base, applies_at_commit=True), "controls")

