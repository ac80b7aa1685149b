"""`LLMAgent`: one model deciding for one env agent through an OpenAI-compatible chat API.

Each `act` sends `[system prompt, retained history, the current observation]`, parses the reply into an
action and returns a `Decision` carrying the tokens (and their source), the raw reply text and, in
`extra`, time to first token, latency, reasoning and cached tokens, attempts and cost. A reply that fails
or does not parse plays the default action and is recorded as invalid with its failure kind; it never
raises. Spec: `llm:MODEL@BASE_URL[,key=value...]` (grammar in `options.py`).
"""

from __future__ import annotations

import logging
from typing import Any

from rtarena.agents.base import Agent, AgentContext, Decision
from rtarena.agents.llm.client import ChatClient, Completion
from rtarena.agents.llm.failures import FailureTally
from rtarena.agents.llm.history import History
from rtarena.agents.llm.options import LLMOptions, parse_llm_options
from rtarena.agents.llm.parsing import THINK, Parsed, parser_for
from rtarena.agents.llm.prompts import controls_text, observation_message, system_prompt

log = logging.getLogger(__name__)


def completion_extra(completion: Completion) -> dict[str, Any]:
    """What a decision record keeps about the call beyond tokens and text (units in the names)."""
    extra = {
        "ttft_s": completion.ttft_s,
        "latency_s": completion.latency_s,
        "attempts": completion.attempts,
        "reasoning_tokens": completion.reasoning_tokens,
        "cached_tokens": completion.cached_tokens,
        "finish_reason": completion.finish_reason,
    }
    if completion.failed_attempts:
        extra["failed_attempts"] = list(completion.failed_attempts)
    if completion.cost_usd is not None:
        extra["cost_usd"] = completion.cost_usd
    return {k: v for k, v in extra.items() if v is not None}


def decision_from(completion: Completion, parsed: Parsed, default: Any, extra: dict | None = None) -> Decision:
    """A `Decision` from a call and its parse: the default action, flagged, whenever either failed."""
    valid = completion.ok and parsed.valid
    error = completion.error or (None if parsed.valid else parsed.error)
    return Decision(
        action=parsed.action if valid else default,
        tokens_in=completion.tokens_in,
        tokens_out=completion.tokens_out,
        tokens_source=completion.tokens_source,
        text=completion.text,
        valid=valid,
        error=error,
        extra={**completion_extra(completion), **(extra or {})},
    )


def log_failures(agent: Any) -> None:
    """Log the agent's failure summary line (a warning, so it shows without any logging set up)."""
    line = agent.tally.line(getattr(agent, "name", type(agent).__name__))
    if line:
        log.warning(line)


def assistant_memory(text: str, valid: bool) -> str:
    """What a past reply looks like in the history: its answer without the reasoning."""
    answer = THINK.sub("", text or "").strip()
    return answer if answer else "(no reply arrived; the default action was taken)"


class LLMAgent(Agent):
    """A decentralised model agent: one model, one body."""

    name = "llm"

    def __init__(self, option: str | LLMOptions | None = None, kind: str = "llm") -> None:
        self.options = option if isinstance(option, LLMOptions) else parse_llm_options(option, kind)
        self.skill = self.options.skill_text()
        self.client = ChatClient(self.options)
        self.tally = FailureTally()

    def new_history(self) -> History:
        o = self.options
        return History(max_turns=o.history, fold=o.fold, max_images=o.images, image_fold=o.image_fold)

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        agent = context.agent
        self.parser = parser_for(context.action_spaces[agent], context.docs.action_names.get(agent))
        self.default = context.default_actions[agent]
        self.system = system_prompt(context, controls_text(self.parser), self.skill)
        self.history = self.new_history()
        self.turn = 0
        self.client.abandoned.clear()

    def act(self, observation: Any) -> Decision:
        self.turn += 1
        o = self.options
        user = observation_message(observation, self.turn, o.modalities, o.image_size, o.image_format)
        completion = self.client.complete(self.history.messages(self.system, user))
        parsed = self.parser.parse(completion.text) if completion.ok else Parsed(None, False)
        decision = decision_from(completion, parsed, self.default)
        chosen = self.parser.format(decision.action)
        self.history.record(self.turn, user, assistant_memory(completion.text, decision.valid), chosen)
        self.tally.note(decision.error)
        return decision

    def close(self) -> None:
        self.client.close()
        log_failures(self)
