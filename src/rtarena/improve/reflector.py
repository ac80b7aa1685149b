"""One reflection: the reflector model and its tools, turn by turn, with every call recorded.

The conversation is `[system (prompts/reflector.md), user (the round's numbers and signals, and the frames of
the moments that decided each episode when the round recorded them)]`, then turns:
the model answers with tool calls (run here; each result goes back as a `tool` message, and images asked
for by `read_image` follow as one user message) or with plain text (the reflection ends). The reflection
also ends when a skill is accepted or the resubmission budget is spent; at turn `max_turns` the call is
forced to `submit_skill` (`tool_choice`). `transcript.jsonl` gets one row per tool call (arguments,
result or refusal, the turn's tokens and latency) and one per text reply; `messages.json` is the whole
conversation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from rtarena.agents.llm.client import ChatClient, Completion
from rtarena.eval.store import append_line, write_bytes
from rtarena.improve.chat import arguments
from rtarena.improve.evidence import FRAMES_FILE
from rtarena.improve.schema import tool_schema
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.submit import RoundState, Submissions
from rtarena.improve.tools import RoundFolder, ToolRefusal

TRANSCRIPT = "transcript.jsonl"
RESULT_CHARS = 20000  # a tool result longer than this is cut (the tools' own caps come first)


@dataclass(frozen=True)
class Outcome:
    skill: str
    notebook: str
    accepted: bool
    reason: str
    turns: int


class ToolSession:
    """The tools of one reflection, by name, with their schemas."""

    def __init__(self, folder: RoundFolder, submissions: Submissions) -> None:
        self.folder = folder
        self.submissions = submissions
        self.functions = {f.__name__: f for f in (
            folder.list_dir, folder.read_text, folder.read_image, folder.grep, submissions.get_previous_skill,
            submissions.submit_diagnosis, submissions.validate_skill, submissions.submit_skill)}
        self.schemas = [tool_schema(f) for f in self.functions.values()]

    def call(self, name: str, args: dict[str, Any] | str) -> dict[str, Any]:
        """Run one call: `{"ok": true, "result": ...}` or `{"ok": false, "error": ...}`."""
        if isinstance(args, str):
            return {"ok": False, "error": args}
        function = self.functions.get(name)
        if function is None:
            return {"ok": False, "error": f"no tool {name!r}; tools: {', '.join(self.functions)}"}
        try:
            return {"ok": True, "result": function(**args)}
        except ToolRefusal as refusal:
            return {"ok": False, "error": str(refusal)}
        except (TypeError, ValueError, OSError) as error:  # the tools check their arguments; this is the net
            return {"ok": False, "error": f"bad arguments for {name}: {str(error)[:200]}"}


def system_prompt(settings: ImproveSettings, env_id: str, round_index: int, metric: str) -> str:
    text = (Path(__file__).parent / "prompts" / "reflector.md").read_text(encoding="utf-8")
    values = {**settings.model_dump(), "env_id": env_id, "round": round_index, "metric": metric}
    return Template(text).substitute({k: str(v) for k, v in values.items()})


def opening_content(folder: RoundFolder, opening: str) -> str | list[dict[str, Any]]:
    """The opening user message: the round's numbers and, when the round recorded frames, the frames of the
    moments that decided each episode (`evidence/frames.jsonl`, `evidence.py`), each after a line naming its
    episode, step, simulated time and moment, resized as `read_image` resizes."""
    listed = folder.root / "evidence" / FRAMES_FILE
    rows = [json.loads(line) for line in listed.read_text(encoding="utf-8").splitlines()] if listed.exists() else []
    if not rows:
        return opening
    parts: list[dict[str, Any]] = [{"type": "text", "text": opening + "\n\nThe frames of the moments that decided "
                                    "each episode (evidence/frames.jsonl):"}]
    for row in rows:
        folder.read_image(row["path"])
        parts += [{"type": "text", "text": f"{row['episode']}: step {row['step']}, sim {row['sim_s']:g} s, "
                   f"{row['kind']} ({row['path']})"}, folder.images.pop()]
    return parts


def reflect(chat: ChatClient, judge: Any, round_dir: Path, state: RoundState, settings: ImproveSettings,
            env_id: str, metric: str, opening: str) -> Outcome:
    """Run one reflection in `round_dir` (a rerun starts it afresh: its files are replaced)."""
    for name in (TRANSCRIPT, "verdicts.jsonl", "submissions.jsonl", "diagnosis.json", "diagnosis.md"):
        (round_dir / name).unlink(missing_ok=True)
    folder = RoundFolder(round_dir, settings)
    submissions = Submissions(round_dir, state, settings, judge)
    session = ToolSession(folder, submissions)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt(settings, env_id, state.index,
                                                                                 metric)},
                                      {"role": "user", "content": opening_content(folder, opening)}]
    reason, turn = "the reflector stopped without a skill", 0
    for turn in range(1, settings.max_turns + 1):
        forced = turn == settings.max_turns
        choice = {"type": "function", "function": {"name": "submit_skill"}} if forced else None
        reply = chat.complete(messages, tools=session.schemas, tool_choice=choice)
        if reply.error:
            _row(round_dir, turn, reply, {"kind": "error", "error": reply.error})
            reason = f"model call failed: {reply.error}"
            break
        messages.append(reply.message())
        if not reply.calls:
            _row(round_dir, turn, reply, {"kind": "text", "text": reply.text})
            break
        for call in reply.calls:
            result = session.call(call["name"], arguments(call))
            text = json.dumps(result, default=str)
            if len(text) > RESULT_CHARS:  # still valid JSON: the result as cut text, marked
                text = json.dumps({"ok": result["ok"], "truncated": True, "result_text": text[:RESULT_CHARS]})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
            _row(round_dir, turn, reply, {"kind": "tool", "tool": call["name"], "arguments": call["arguments"],
                                          "forced": forced, **result})
        if folder.images:
            messages.append({"role": "user", "content": [{"type": "text", "text": "The images you asked for:"},
                                                         *folder.images]})
            folder.images = []
        if submissions.accepted or submissions.closed:
            break
    else:
        reason = f"turn cap ({settings.max_turns}) reached"
    write_bytes(round_dir / "messages.json", (json.dumps(messages, indent=1, default=str) + "\n").encode())
    if submissions.accepted:
        skill, notebook = submissions.accepted
        return Outcome(skill, notebook, True, "accepted", turn)
    return Outcome(state.skill, state.notebook, False, submissions.closed or reason, turn)


def _row(round_dir: Path, turn: int, reply: Completion, fields: dict[str, Any]) -> None:
    append_line(round_dir / TRANSCRIPT, {"turn": turn, "tokens_in": reply.tokens_in, "tokens_out": reply.tokens_out,
                                         "tokens_source": reply.tokens_source, "attempts": reply.attempts,
                                         "latency_s": round(reply.latency_s, 4), **fields})
