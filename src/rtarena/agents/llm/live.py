"""`LiveAgent`: a live-session model (`live:MODEL@BASE_URL[,key=value...]`) over OpenAI's Realtime protocol.

Realtime-Bench evaluates two kinds of models: request/response models that resubmit the retained history
every decision, and streaming models that "maintain the retained history within their sessions"; "both
mechanisms implement the same logical history policy". `LiveAgent` is the second kind: the `llm:` agent
in every respect (options, prompts, the view, reply parsing, the retained history and its folds), except
that its client holds one Realtime session per episode (`realtime.py`) and sends each decision only what
changed: the new observation as a conversation item, and the deletions and placeholders of a fold.

The spec takes `llm:`'s settings (`options.py`) except those a Realtime session has no place for
(`LIVE_REFUSED`); the `audio` modality is refused too (text and image items only, for now). Both are
one-line errors before anything runs, and `check_connection` (called by the run commands before any
episode, `agents/specs.py: check_connections`) opens one session so that a bad URL or a server that
does not speak the protocol is one line too.
"""

from __future__ import annotations

import importlib.util

from rtarena.agents.llm.agent import LLMAgent
from rtarena.agents.llm.client import Failure
from rtarena.agents.llm.options import SETTINGS, LLMOptions
from rtarena.agents.llm.realtime import RealtimeClient
from rtarena.contract import AgentContext
from rtarena.errors import UserError

LIVE_REFUSED = ("temperature", "seed", "endpoint", "early_commit", "stream", "rounds")
LIVE_MODALITIES_REFUSED = ("audio",)


class LiveAgent(LLMAgent):
    """One model, one body, one Realtime session per episode."""

    name = "live"
    kind = "live"
    client_class = RealtimeClient
    client: RealtimeClient

    def __init__(self, option: str | LLMOptions | None = None) -> None:
        super().__init__(option)
        where = "--agent live"
        if importlib.util.find_spec("websockets") is None:
            raise UserError("needs the `websockets` package (pip install 'rtarena[llm]')", field=where)
        refused = [key for key in LIVE_REFUSED if key in self.options.model_fields_set]
        if refused:
            taken = ", ".join(key for key in SETTINGS if key not in LIVE_REFUSED)
            raise UserError(f"setting {refused[0]!r} has no place in a Realtime session; it takes: {taken}",
                            field=where)
        for modality in LIVE_MODALITIES_REFUSED:
            if modality in self.options.modalities:
                raise UserError(f"modality {modality!r} is not sent over a Realtime session (text and image "
                                "items only)", field=where)

    def setup(self, context: AgentContext) -> None:
        super().setup(context)
        self.client.start()  # one session per episode

    def check_connection(self) -> None:
        """Open a session and close it: a one-line `UserError` when that fails (before any episode)."""
        try:
            self.client.probe()
        except Failure as failure:
            raise UserError(f"cannot open a Realtime session: {failure}", field="--agent live") from None
