"""`ModelAgent`: what every model agent shares, with the variant parts as hooks.

Options (`options.py`), the chat client, the retained history, the failure tally, the turn count and the
`Decision` built from the model's calls live here once. A variant fills in three hooks:

- `setup(context)`: its action parser(s), default action(s) and system prompt, per episode;
- `user_message(observation)`: the turn's user message;
- `ask(user, observation)`: the call(s) to the model and the decision, returned with the reply to keep
  in the history and the action as the model would have written it.

`LLMAgent` (`llm:`, one body), `TeamLLMAgent` (`team:llm:`, several bodies in one call) and
`AgenticAgent` (`agentic:`, several reasoning rounds per step) are the three variants.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from rtarena.agents.llm.client import ChatClient, Completion
from rtarena.agents.llm.failures import FailureTally
from rtarena.agents.llm.history import Content, History
from rtarena.agents.llm.options import LLMOptions, parse_llm_options
from rtarena.agents.llm.parsing import THINK, parser_for
from rtarena.contract import Agent, AgentContext, Decision, Observes

log = logging.getLogger(__name__)
REASONING_KEPT_CHARS = 4000  # of a call's reasoning text kept in its decision record (head and tail), for annotators


def kept_reasoning(text: str) -> str | None:
    """A call's reasoning text as the record keeps it: whole up to `REASONING_KEPT_CHARS`, else its head and
    tail around a marker (the annotator reads what the model weighed, not every filler token)."""
    if not text:
        return None
    if len(text) <= REASONING_KEPT_CHARS:
        return text
    half = REASONING_KEPT_CHARS // 2
    return f"{text[:half]} [... {len(text) - 2 * half} characters left out ...] {text[-half:]}"


def completion_extra(completion: Completion) -> dict[str, Any]:
    """What a decision record keeps about the call beyond tokens and text (units in the names)."""
    extra = {
        "ttft_s": completion.ttft_s,
        "latency_s": completion.latency_s,
        "latency_server_s": completion.server_latency_s,  # every latency seen is kept (clocks.LATENCY_SOURCES)
        "latency_endpoint_s": completion.endpoint_latency_s,
        "attempts": completion.attempts,
        "reasoning_tokens": completion.reasoning_tokens,
        "reasoning": kept_reasoning(completion.reasoning),
        "cached_tokens": completion.cached_tokens,
        "finish_reason": completion.finish_reason,
        "tokens_after_commit": completion.tokens_after_commit or None,
        "early_commit": completion.early_commit or None,
    }
    if completion.failed_attempts:
        extra["failed_attempts"] = list(completion.failed_attempts)
    if completion.cost_usd is not None:
        extra["cost_usd"] = completion.cost_usd
    if completion.queue_wait_s is not None:
        extra["queue_wait_s"] = completion.queue_wait_s
    if completion.base_url is not None:
        extra["base_url"] = completion.base_url
    return {k: v for k, v in extra.items() if v is not None}


def decision_from(completions: list[Completion], action: Any, valid: bool, error: str | None,
                  extra: dict[str, Any] | None = None, chunk: tuple[Any, ...] | None = None) -> Decision:
    """A `Decision` from the calls of one step: their tokens (each to its commit, `commit.py`), cost and
    queue wait summed, their texts joined, and the last call's details (`completion_extra`) with `extra` on
    top; `chunk` the per-step actions of a reply that spans several steps (the game suite's key form)."""
    sources = {c.tokens_source for c in completions}
    details = {**completion_extra(completions[-1]), **(extra or {})}
    for name in ("cost_usd", "queue_wait_s"):  # a decision of several calls costs and waited for all of them
        values = [getattr(c, name) for c in completions if getattr(c, name) is not None]
        if values:
            details[name] = sum(values)
    return Decision(
        action=action,
        tokens_in=sum(c.tokens_in for c in completions),
        # charged to the commit: tokens written after an action was complete are in `extra` only
        tokens_out=sum(max(0, c.tokens_out - (c.tokens_after_commit or 0)) for c in completions),
        tokens_source="server" if sources == {"server"} else ("counted" if "counted" in sources else "none"),
        text=completions[0].text if len(completions) == 1 else "\n---\n".join(c.text for c in completions),
        valid=valid,
        error=error,
        extra={k: v for k, v in details.items() if v is not None},
        chunk=chunk if valid else None,
    )


def assistant_memory(text: str, valid: bool) -> str:
    """What a past reply looks like in the history: its answer without the reasoning."""
    answer = THINK.sub("", text or "").strip()
    return answer if answer else "(no reply arrived; the default action was taken)"


class ModelAgent(Agent):
    """A decision maker backed by a model over an OpenAI-compatible chat API (see the module docstring)."""

    name = "llm"
    kind: ClassVar[str] = "llm"  # the spec kind its options are parsed for (errors name it)
    client_class: ClassVar[type[ChatClient]] = ChatClient  # `live:` holds a Realtime session instead

    def __init__(self, option: str | LLMOptions | None = None) -> None:
        self.options = option if isinstance(option, LLMOptions) else parse_llm_options(option, self.kind)
        self.asked = self.options  # as given; `options` fills the env's default view in at each reset
        # a spec that names its modalities needs the env to make them (`modalities=rgb+text` on the arena);
        # one that names none takes the family's declared view (docs/conditions.md)
        self.observes = (Observes(self.options.modalities, self.options.image_size or None) if self.options.modalities
                         else Observes(family_view=True))
        self.skill = self.options.skill_text()
        self.client = self.make_client()
        self.tally = FailureTally()

    def make_client(self) -> Any:
        """The model behind the agent: `client_class` over an OpenAI-compatible endpoint (`live:` a Realtime
        session); `vlm:` overrides this with a model on this machine."""
        return self.client_class(self.options)

    def new_history(self) -> History:
        o = self.options
        return History(max_turns=o.history, fold=o.fold, max_images=o.images, image_fold=o.image_fold)

    def parser_of(self, agent: str) -> Any:
        """The action parser of one env agent: its action space, named by the env's documentation."""
        return parser_for(self.context.action_spaces[agent], self.context.docs.action_names.get(agent))

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        # the view the spec leaves open is the env's default (a browser task: Set-of-Marks screenshot + marks)
        self.options = self.asked.for_observation(context.observation_spaces[context.agents[0]])
        self.history = self.new_history()
        self.turn = 0
        self.client.abandoned.clear()
        self.client.fit_clock(context.clock, context.horizon_s)
        self.setup(context)

    def act(self, observation: Any) -> Decision:
        self.turn += 1
        user = self.user_message(observation)
        decision, reply, action_text = self.ask(user, observation)
        self.history.record(self.turn, user, assistant_memory(reply, decision.valid), action_text)
        self.tally.note(decision.error)
        return decision

    def applied(self, number: int) -> None:
        """The runtime applied this agent's decision `number` (its turn): it goes in the ledger when folded."""
        self.history.applied(number)

    def close(self) -> None:
        self.client.close()
        line = self.tally.line(getattr(self, "name", type(self).__name__))
        if line:
            log.warning(line)  # a warning, so the failure summary shows without any logging set up

    # -- hooks ---------------------------------------------------------------------------------------
    def setup(self, context: AgentContext) -> None:
        """Parser(s), default action(s) and `self.system` for the episode."""
        raise NotImplementedError

    def user_message(self, observation: Any) -> Content:
        raise NotImplementedError

    def ask(self, user: Content, observation: Any) -> tuple[Decision, str, str]:
        """`(decision, reply text to remember, the action as text)` for this turn."""
        raise NotImplementedError
