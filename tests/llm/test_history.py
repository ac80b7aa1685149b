"""The history policy keeps the prompt prefix byte-identical between folds, and folds in blocks."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from rtarena.agents.llm.agent import LLMAgent
from rtarena.agents.llm.history import History
from rtarena.envs.registry import make
from rtarena.runtime import run_match

SYSTEM = "You are a test agent."


def image(k: int) -> dict:
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,IMG{k}"}}


def turns_in(prompt: list[dict]) -> int:
    """Past turns in a prompt: all but the system message, the ledger pair (if any) and the current one."""
    ledger = 2 if len(prompt) > 1 and "## Earlier turns" in str(prompt[1]["content"]) else 0
    return (len(prompt) - 2 - ledger) // 2


def as_bytes(messages: list[dict]) -> list[bytes]:
    return [json.dumps(m, sort_keys=True).encode() for m in messages]


@pytest.mark.parametrize("max_turns, fold, max_images, image_fold", [(5, 2, 3, 2), (8, 8, 21, 10), (6, 3, 0, 1)])
def test_prefix_is_stable_between_folds_and_folds_come_in_blocks(max_turns, fold, max_images, image_fold):
    history = History(max_turns=max_turns, fold=fold, max_images=max_images, image_fold=image_fold)
    previous, folds_seen, turn_counts = None, (0, 0), []
    for k in range(1, 40):
        user = [{"type": "text", "text": f"Turn {k}. Observation:\nx = {k}"}, image(k)]
        prompt = history.messages(SYSTEM, user)
        folds = (history.text_folds, history.image_folds)
        if previous is not None and folds == folds_seen:
            # Nothing folded since the last prompt: that whole prompt is a byte-identical prefix of this one.
            assert as_bytes(prompt)[:len(previous)] == as_bytes(previous)
        elif previous is not None:
            assert as_bytes(prompt)[:len(previous)] != as_bytes(previous)
        assert prompt[0] == {"role": "system", "content": SYSTEM}  # the same for the whole episode, folds or not
        turn_counts.append(turns_in(prompt))
        previous, folds_seen = prompt, folds
        before_ledger, before_images = len(history.ledger), history.image_count()
        history.record(k, user, f"ACTION: {k}", f"[{k}]")
        history.applied(k)
        if history.text_folds > folds[0]:
            assert len(history.ledger) - before_ledger == fold  # a whole block of turns at once
            assert len(history.turns) == max_turns + 1 - fold
        new_image_folds = history.image_folds - folds[1]
        if new_image_folds and history.text_folds == folds[0]:
            # the oldest images went in whole blocks of image_fold, and only once the limit was reached
            assert history.image_count() == before_images + 1 - new_image_folds * image_fold
            assert before_images + 1 - (new_image_folds - 1) * image_fold >= max(1, max_images)
        assert len(history.turns) <= max_turns and history.image_count() < max(1, max_images)
    assert max(turn_counts) == max_turns and history.text_folds == (39 - max_turns - 1) // fold + 1
    assert history.ledger[:2] == ["turn 1: [1]", "turn 2: [2]"]
    assert "turn 1: [1]" in history.messages(SYSTEM, "now")[1]["content"]


def test_image_folds_replace_the_oldest_block_with_the_placeholder():
    history = History(max_turns=50, fold=10, max_images=21, image_fold=10)
    for k in range(1, 21):
        history.record(k, [image(k)], "ok", "[0]")
    assert history.image_folds == 0 and history.image_count() == 20  # a prompt: these 20 and the current one
    history.record(21, [image(21)], "ok", "[0]")  # the paper: "reaches 21" -> the oldest 10 become placeholders
    assert history.image_folds == 1 and history.image_count() == 11
    history.record(22, [image(22)], "ok", "[0]")
    assert history.image_folds == 1 and history.image_count() == 12
    texts = [t.user[0].get("text") for t in history.turns]
    assert texts[:10] == ["[older image removed]"] * 10 and texts[10] is None
    assert history.turns[10].user[0]["image_url"]["url"].endswith("IMG11")


def test_text_folds_every_block_and_zero_history_keeps_nothing():
    history = History(max_turns=50, fold=10)
    counts = []
    for k in range(1, 72):
        history.record(k, f"obs {k}", "ok", f"[{k}]")
        if k % 2:
            history.applied(k)  # the even turns' actions were chosen but never applied
        counts.append(len(history.turns))
    assert history.text_folds == 3 and counts[49] == 50 and counts[50] == 41 and counts[59] == 50 and counts[60] == 41
    assert len(history.ledger) == 15 and history.ledger[:2] == ["turn 1: [1]", "turn 3: [3]"]
    ledger = history.messages(SYSTEM, "now")[1]["content"]
    assert "turn 2:" not in ledger and "executed" in ledger
    none = History(max_turns=0)
    none.record(1, "obs", "ok", "[0]")
    assert none.messages(SYSTEM, "now") == [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "now"}]


def test_the_agent_sends_prefix_stable_prompts(server, spec):
    env = make("classic/cartpole-v0")
    agent = LLMAgent(spec(server.base_url, history=6, fold=3))
    sent, complete = [], agent.client.complete

    def recording(messages, **kw):
        sent.append(json.loads(json.dumps(messages)))
        return complete(messages, **kw)

    agent.client.complete = recording
    result = run_match(env, agent, clock="paused", seed=0, max_steps=20)
    assert len(result.decisions) == 20 and all(d.valid for d in result.decisions)
    turns = [turns_in(m) for m in sent]
    assert turns[:10] == [0, 1, 2, 3, 4, 5, 6, 4, 5, 6]
    for before, after in itertools.pairwise(sent):
        folded = turns_in(after) < turns_in(before)
        assert (as_bytes(after)[:len(before)] == as_bytes(before)) != folded
        assert after[0] == sent[0][0]  # the system message never changes
    # every decision was applied under paused, so the first three turns' executed actions are in the ledger
    # (the folded turns live on in the ledger: turn, then the action taken, deterministic here)
    assert re.findall(r"turn \d+: \d", sent[7][1]["content"]) == ["turn 1: 0", "turn 2: 0", "turn 3: 1"]


def test_paper_defaults_and_marks_fold_with_their_screenshot():
    history = History()
    assert (history.max_turns, history.fold, history.max_images, history.image_fold) == (50, 10, 21, 10)
    marks = {"type": "text", "text": "Interactable elements (the numbered marks on the screenshot): id, role, text, "
             "box x,y,w,h\n[1] button \"Bid\" at 1,2,3,4"}
    for k in range(1, 21):
        history.record(k, [{"type": "text", "text": f"Turn {k}"}, image(k), dict(marks)], "ok", "click(1)")
    assert history.image_folds == 0 and history.image_count() == 20
    history.record(21, [{"type": "text", "text": "Turn 21"}, image(21), dict(marks)], "ok", "click(1)")
    assert history.image_folds == 1 and history.image_count() == 11
    old, kept = history.turns[9].user, history.turns[10].user
    assert old[1]["text"] == "[older image removed]" and "removed" in old[2]["text"] and "[1]" not in old[2]["text"]
    assert kept[2]["text"].endswith('[1] button "Bid" at 1,2,3,4')
