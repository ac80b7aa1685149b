"""Centralised team control: one model decides for all teammates in one call (`team:llm:...`).

The default is decentralised control, one `llm:` agent per body. A team controller instead sees every
living teammate's observation in one user message (under `### <agent id>`) and answers one JSON object
mapping each teammate's id to its action (`parsing.TeamParser`). A teammate whose answer is missing or
does not parse plays its default action, and the decision is then recorded as invalid.
"""

from __future__ import annotations

from typing import Any

from rtarena.agents.base import Agent, AgentContext, Decision
from rtarena.agents.llm.agent import assistant_memory, completion_extra, log_failures
from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.failures import FailureTally
from rtarena.agents.llm.history import History
from rtarena.agents.llm.options import LLMOptions, parse_llm_options
from rtarena.agents.llm.parsing import TeamParser, parser_for
from rtarena.agents.llm.prompts import system_prompt, team_controls_text, team_message
from rtarena.errors import UserError


class TeamLLMAgent(Agent):
    """One model, several bodies."""

    name = "team:llm"

    def __init__(self, option: str | LLMOptions | None = None) -> None:
        self.options = option if isinstance(option, LLMOptions) else parse_llm_options(option, "team:llm")
        self.skill = self.options.skill_text()
        self.client = ChatClient(self.options)
        self.tally = FailureTally()

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        parsers = {a: parser_for(context.action_spaces[a], context.docs.action_names.get(a)) for a in context.agents}
        self.parser = TeamParser(parsers)
        self.defaults = dict(context.default_actions)
        controls = team_controls_text(self.parser, self.defaults)
        self.system = system_prompt(context, controls, self.skill)
        o = self.options
        self.history = History(max_turns=o.history, fold=o.fold, max_images=o.images, image_fold=o.image_fold)
        self.turn = 0
        self.client.abandoned.clear()

    def act(self, observation: dict[str, Any]) -> Decision:
        self.turn += 1
        o = self.options
        living = list(observation)
        user = team_message(observation, self.turn, o.modalities, o.image_size, o.image_format)
        completion = self.client.complete(self.history.messages(self.system, user))
        parsed, ok, error = ({}, False, None)
        if completion.ok:
            parsed, ok, error = TeamParser({a: self.parser.parsers[a] for a in living}).parse(completion.text)
        actions = {a: parsed.get(a, self.defaults[a]) for a in living}
        decision = Decision(
            action=actions,
            tokens_in=completion.tokens_in,
            tokens_out=completion.tokens_out,
            tokens_source=completion.tokens_source,
            text=completion.text,
            valid=completion.ok and ok,
            error=completion.error or error,
            extra=completion_extra(completion),
        )
        self.history.record(self.turn, user, assistant_memory(completion.text, decision.valid),
                            self.parser.format(actions))
        self.tally.note(decision.error)
        return decision

    def close(self) -> None:
        self.client.close()
        log_failures(self)


def build_team(option: str | None = None) -> Agent:
    """The `team:` spec's factory: `team:llm:MODEL@BASE_URL[,key=value...]`."""
    inner, _, rest = (option or "").partition(":")
    if inner != "llm":
        raise UserError(f"team control needs a model spec, `team:llm:MODEL@BASE_URL`, got {option!r}",
                        field="--agent team")
    return TeamLLMAgent(rest)
