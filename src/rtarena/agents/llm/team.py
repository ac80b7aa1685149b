"""Centralised team control: one model decides for all teammates in one call (`team:llm:...`).

The default is decentralised control, one `llm:` agent per body. A team controller instead sees every
living teammate's observation in one user message (under `### <agent id>`) and answers one JSON object
mapping each teammate's id to its action (`parsing.TeamParser`). A teammate whose answer is missing or
does not parse plays its default action, and the decision is then recorded as invalid.
"""

from __future__ import annotations

from typing import Any

from rtarena.agents.llm.history import Content
from rtarena.agents.llm.model_agent import ModelAgent, decision_from
from rtarena.agents.llm.parsing import TeamParser
from rtarena.agents.llm.prompts import system_prompt, team_controls_text, team_message
from rtarena.contract import Agent, AgentContext, Decision
from rtarena.errors import UserError


class TeamLLMAgent(ModelAgent):
    """One model, several bodies."""

    name = "team:llm"
    kind = "team:llm"

    def setup(self, context: AgentContext) -> None:
        self.parser = TeamParser({a: self.parser_of(a) for a in context.agents})
        self.defaults = dict(context.default_actions)
        self.system = system_prompt(context, team_controls_text(self.parser, self.defaults), self.skill)

    def user_message(self, observation: dict[str, Any]) -> Content:
        o = self.options
        return team_message(observation, self.turn, o.modalities, o.image_size, o.image_format)

    def ask(self, user: Content, observation: dict[str, Any]) -> tuple[Decision, str, str]:
        living = list(observation)
        completion = self.client.complete(self.history.messages(self.system, user))
        parsed, ok, error = ({}, False, None)
        if completion.ok:
            parsed, ok, error = TeamParser({a: self.parser.parsers[a] for a in living}).parse(completion.text)
        actions = {a: parsed.get(a, self.defaults[a]) for a in living}
        decision = decision_from([completion], actions, completion.ok and ok, completion.error or error)
        return decision, completion.text, self.parser.format(actions)


def build_team(option: str | None = None) -> Agent:
    """The `team:` spec's factory: `team:llm:MODEL@BASE_URL[,key=value...]`."""
    inner, _, rest = (option or "").partition(":")
    if inner != "llm":
        raise UserError(f"team control needs a model spec, `team:llm:MODEL@BASE_URL`, got {option!r}",
                        field="--agent team")
    return TeamLLMAgent(rest)
