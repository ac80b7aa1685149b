"""`LLMAgent`: one model deciding for one env agent through an OpenAI-compatible chat API.

Each `act` sends `[system prompt, retained history, the current observation]`, parses the reply into an
action and returns a `Decision` carrying the tokens (and their source), the raw reply text and, in
`extra`, time to first token, latency, reasoning and cached tokens, attempts and cost. A reply that fails
or does not parse plays the default action and is recorded as invalid with its failure kind; it never
raises. Spec: `llm:MODEL@BASE_URL[,key=value...]` (grammar in `options.py`). What model agents share is
`model_agent.ModelAgent`.
"""

from __future__ import annotations

from typing import Any

from rtarena.agents.llm.history import Content
from rtarena.agents.llm.model_agent import ModelAgent, decision_from
from rtarena.agents.llm.parsing import Parsed
from rtarena.agents.llm.prompts import controls_text, observation_message, system_prompt
from rtarena.contract import AgentContext, Decision


class LLMAgent(ModelAgent):
    """A decentralised model agent: one model, one body."""

    name = "llm"
    kind = "llm"

    def setup(self, context: AgentContext) -> None:
        self.parser = self.parser_of(context.agent)
        self.default = context.default_actions[context.agent]
        self.system = system_prompt(context, controls_text(self.parser), self.skill)

    def user_message(self, observation: Any) -> Content:
        o = self.options
        return observation_message(observation, self.turn, o.modalities, o.image_size, o.image_format)

    def ask(self, user: Content, observation: Any) -> tuple[Decision, str, str]:
        completion = self.client.complete(self.history.messages(self.system, user))
        parsed = self.parser.parse(completion.text) if completion.ok else Parsed(None, False)
        valid = completion.ok and parsed.valid
        error = completion.error or (None if parsed.valid else parsed.error)
        decision = decision_from([completion], parsed.action if valid else self.default, valid, error,
                                 chunk=parsed.chunk)
        return decision, completion.text, self.parser.format(decision.action)
