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
from rtarena.runtime.clocks import make_clock

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


def parts(body: dict) -> tuple[str, list[str]]:
    """The system prompt and the kinds of the last user message's parts."""
    messages = body["messages"]
    system = messages[0]["content"]
    user = messages[-1]["content"]
    kinds = [p["type"] for p in user] if isinstance(user, list) else ["text"]
    return system if isinstance(system, str) else json.dumps(system), kinds


# family: (env id, steps, whether the request carries an image, the chunk form the prompt names or None)
BARE = {
    "classic": ("classic/cartpole-v0", 3, False, None),
    "games": ("games/tilefall-v0", 3, True, "; W"),
    "arena": ("arena/basic-v0", 4, True, None),
}


@pytest.mark.parametrize("family", sorted(BARE))
def test_a_bare_run_plays_the_declared_condition(family, tmp_path):
    env_id, steps, image, chunk = BARE[family]
    declared = family_condition(family)
    with PolicyServer() as server:
        code, output = run_main(["run", env_id, "--agent", f"llm:scripted-heuristic@{server.base_url}",
                                 "--max-steps", str(steps), "--out", str(tmp_path / "o")])
        bodies = server.bodies
    assert code == 0, output
    assert declared.line() in output  # one line naming the condition and its source
    episode = json.loads((tmp_path / "o" / "episodes.jsonl").read_text().splitlines()[0])
    clock = make_clock(declared.clock.clock, **declared.clock.settings())
    assert episode["clock"]["clock"] == declared.clock.clock
    assert all(episode["clock"][k] == v for k, v in declared.clock.settings().items())
    system, kinds = parts(bodies[-1])
    # the clock's own sentence (the token clock's names its kappa; the env's defaults fill the rest)
    assert clock.describe().split(":")[0] in system
    assert ("image_url" in kinds) == image, kinds  # the declared view: the screen, or text alone
    if chunk:
        assert chunk in system  # the chunked key form the suite's players answer in
    if declared.dt_s is not None:
        assert episode["sim_seconds"] == pytest.approx(episode["steps"] * declared.dt_s)


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
