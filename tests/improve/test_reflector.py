"""The reflection session: the turn cap ends it with a forced submit_skill call, recorded."""

from __future__ import annotations

import json

from tests.improve.helpers import role

from rtarena.improve.chat import role_client
from rtarena.improve.judge import Judge
from rtarena.improve.reflector import reflect
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.submit import RoundState


def test_the_turn_cap_forces_a_final_submit_skill_call(server, tmp_path):
    chat, judge = role_client(role(server, "reflector"), "reflector"), Judge(role(server, "judge"))
    state = RoundState(0, "- keep calm", "old notes", False, [])
    outcome = reflect(chat, judge, tmp_path, state, ImproveSettings(max_turns=3), "classic/cartpole-v0", "return",
                      "Round 0 is over.")
    chat.close()
    judge.close()
    rows = [json.loads(x) for x in (tmp_path / "transcript.jsonl").read_text().splitlines()]
    assert [r["turn"] for r in rows] == [1, 2, 3]
    assert [r["tool"] for r in rows] == ["list_dir", "get_previous_skill", "submit_skill"]
    assert [r["forced"] for r in rows] == [False, False, True]
    assert rows[0]["ok"] is False  # no evidence folder here: a refusal the model reads, not a crash
    assert rows[-1]["ok"] is False  # a forced call without arguments is refused too
    assert not outcome.accepted and outcome.reason == "turn cap (3) reached"
    assert (outcome.skill, outcome.notebook) == ("- keep calm", "old notes")  # the skill stays as it was
    messages = json.loads((tmp_path / "messages.json").read_text())
    assert [m["role"] for m in messages][:2] == ["system", "user"] and messages[-1]["role"] == "tool"
