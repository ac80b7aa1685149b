"""Each env family declares its evaluation condition as data (envs/conditions.py, issue 42): docs/conditions.md's
table is the registry's, and a bare `rtarena run ENV_ID` plays it: the request at the policy server carries the
declared view (the image, or none), the clock's sentence and the chunk form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers import run_main

from rtarena.envs.conditions import FILES, family_condition, table_row
from rtarena.envs.registry import ENV_TABLE
from rtarena.policy_server.server import PolicyServer

DOC = Path(__file__).parents[1] / "docs" / "conditions.md"


def test_the_docs_table_is_the_registrys_every_family_declares_one():
    families = {spec.family for spec in ENV_TABLE}
    assert families <= set(FILES)  # every registered family has its condition file
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    assert {row.split("`")[1] for row in rows} == set(FILES)  # one row per family, wrapped envs included
    for family in FILES:
        assert table_row(family) in rows, family  # the page says what the registry's file says
    # a paper's family quotes it; ours say so
    for family in ("arena", "games", "web", "gui-games"):
        assert family_condition(family).quotes and "paper" in family_condition(family).source
    for family in ("classic", "wrapped", "probe"):
        assert not family_condition(family).quotes and family_condition(family).source.startswith("rtarena")


def parts(body: dict) -> tuple[str, list[str], list[int]]:
    """The system prompt, the kinds of the last user message's parts and the longest side of each image."""
    import base64
    import io

    from PIL import Image

    messages = body["messages"]
    system = messages[0]["content"]
    user = messages[-1]["content"]
    kinds = [p["type"] for p in user] if isinstance(user, list) else ["text"]
    sides = [max(Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1]))).size)
             for p in (user if isinstance(user, list) else []) if p["type"] == "image_url"]
    return system if isinstance(system, str) else json.dumps(system), kinds, sides


# family: (env id, steps, the clock's words in the prompt, the chunk form the prompt names or None)
BARE = {
    "classic": ("classic/cartpole-v0", 3, "every 100 tokens you generate cost 1 s of game time", None),
    "games": ("games/tilefall-v0", 3, "The game is paused while you think", "; W"),
    "arena": ("arena/basic-v0", 4, "The game runs in real time and does not wait for you", None),
    "web": ("web/quiz-v0", 2, "every 64 tokens you generate cost 1 s of page time", None),
}


@pytest.mark.parametrize("family", sorted(BARE))
def test_a_bare_run_plays_the_declared_condition(family, tmp_path):
    env_id, steps, sentence, chunk = BARE[family]
    declared = family_condition(family)
    with PolicyServer() as server:
        code, output = run_main(["run", env_id, "--agent", f"llm:scripted-heuristic@{server.base_url}",
                                 "--max-steps", str(steps), "--out", str(tmp_path / "o")])
        bodies = server.bodies
    # under the arena's real-time clock a reply that comes after the episode's 1 s is abandoned (exit 4, the
    # agent failed every decision): the request it answered is what this test reads
    assert code == 0 or (code == 4 and declared.clock.clock == "wall" and "abandoned" in output), output
    assert bodies and declared.line() in output  # one line naming the condition and its source
    episode = json.loads((tmp_path / "o" / "episodes.jsonl").read_text().splitlines()[0])
    assert episode["clock"]["clock"] == declared.clock.clock
    assert all(episode["clock"][k] == v for k, v in declared.clock.settings().items())
    system, kinds, sides = parts(bodies[-1])
    assert sentence in system  # the clock's own sentence, its numbers as the condition sets them
    image = declared.view.image_px if {"rgb", "som"} & set(declared.view.modalities) else None
    assert ("image_url" in kinds) == (image is not None), kinds  # the declared view: the screen, or text alone
    assert all(side <= image for side in sides) and (family == "web" or sides in ([], [image]))  # its size
    if chunk:
        assert chunk in system  # the chunked key form the suite's players answer in
    if declared.dt_s is not None:
        assert episode["sim_seconds"] == pytest.approx(episode["steps"] * declared.dt_s)


def test_describe_prints_the_declaration_with_the_papers_words():
    code, output = run_main(["describe", "games/tilefall-v0"])
    declared = family_condition("games")
    assert code == 0 and declared.line() in output and declared.quotes[0] in output
    assert "games.condition.toml" in output and "ablation: LCRT" in output
    assert run_main(["describe", "games/tilefal-v0"])[0] == 2  # an unknown id: one line, as `run` says it


def test_the_text_ablation_is_named_and_sends_no_image(tmp_path):
    """`modalities=text` keeps the arena's model on text: the env is not asked for pixels it would not send."""
    with PolicyServer() as server:
        code, output = run_main(["run", "arena/basic-v0", "--agent",
                                 f"llm:scripted-heuristic@{server.base_url},modalities=text", "--clock", "paused",
                                 "--max-steps", "2", "--out", str(tmp_path / "o")])
        bodies = server.bodies
    assert code == 0, output
    assert "condition:" not in output  # --clock chose the protocol: nothing declared is claimed
    assert parts(bodies[-1])[1] == ["text"]
    episode = json.loads((tmp_path / "o" / "episodes.jsonl").read_text())
    assert "obs" not in episode["env_kwargs"]


@pytest.mark.parametrize(("family", "env_id", "kwargs"), [
    ("arena", "arena/basic-v0", {"obs": ["text", "rgb"]}), ("games", "games/tilefall-v0", {}),
    ("probe", "probe/identify-v0", {})])
def test_the_declared_view_and_size_are_what_a_model_agent_gets(family, env_id, kwargs):
    """The condition file's view is data about the code: the model's default view on that env says the same."""
    from rtarena.agents.llm.gui_view import default_view
    from rtarena.envs.registry import make

    env = make(env_id, **kwargs)
    try:
        view = default_view(env.observation_space(env.possible_agents[0]))
    finally:
        env.close()
    declared = family_condition(family).view
    assert view == (declared.modalities, declared.image_px)
