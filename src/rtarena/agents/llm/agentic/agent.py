"""`AgenticAgent`: the framework's modules composed into one agent (`agentic:MODEL@BASE_URL[,rounds=N]`)."""

from __future__ import annotations

from typing import Any

from rtarena.agents.llm.agentic.context import ContextBuilder
from rtarena.agents.llm.agentic.execution import ActionExecutor
from rtarena.agents.llm.agentic.feedback import Feedback
from rtarena.agents.llm.agentic.memory import Memory
from rtarena.agents.llm.agentic.perception import Perception
from rtarena.agents.llm.agentic.planning import Plan, Planner
from rtarena.agents.llm.history import Content
from rtarena.agents.llm.model_agent import ModelAgent, decision_from
from rtarena.agents.llm.options import LLMOptions
from rtarena.agents.llm.prompts import controls_text, render, system_prompt
from rtarena.contract import AgentContext, Decision


class AgenticAgent(ModelAgent):
    """Perception, memory, context, planning (several rounds), action execution and feedback."""

    name = "agentic"
    kind = "agentic"

    def __init__(self, option: str | LLMOptions | None = None, planner: Planner | None = None) -> None:
        super().__init__(option)
        self.planner = planner or Planner(self.client, self.options.rounds, self.options.timeout)
        self.perception = Perception(self.options)

    def setup(self, context: AgentContext) -> None:
        self.perception.options = self.options  # with the env's default view filled in
        o, agent = self.options, context.agent
        parser = self.parser_of(agent)
        self.executor = ActionExecutor(parser, context.default_actions[agent])
        keys = list(getattr(context.observation_spaces[agent], "spaces", {}) or {})
        self.view_names = self.perception.view_names(keys)
        extra = render("agentic_rounds.md", extra=max(0, o.rounds - 1), views=", ".join(self.view_names) or "none",
                       notes=render("agentic_notes.md"))
        system = system_prompt(context, controls_text(parser), self.skill, extra="\n" + extra)
        self.memory, self.feedback = Memory(self.history), Feedback()
        self.context_builder = ContextBuilder(system, self.memory, self.feedback)

    def user_message(self, observation: Any) -> Content:
        self.feedback.seen(observation)  # what the env did with the previous decision, read from this observation
        return self.context_builder.user(self.perception.parts(observation), self.turn)

    def ask(self, user: Content, observation: Any) -> tuple[Decision, str, str]:
        plan = self.planner.plan(lambda rounds: self.context_builder.messages(user, rounds),
                                 lambda name: self.perception.view(observation, name), self.view_names)
        decision = self._decision(plan)
        action_text = self.executor.describe(decision.action)
        for completion in plan.completions:
            self.memory.remember(completion.text)
        self.feedback.after(decision, action_text, observation)
        return decision, plan.final.text, action_text

    def _decision(self, plan: Plan) -> Decision:
        final = plan.final
        action, parsed = self.executor.execute(final.text) if final.ok else (self.executor.default, None)
        valid = final.ok and parsed is not None and parsed.valid
        error = final.error or (None if valid else parsed.error if parsed else "unparsed")
        extra = {"rounds": len(plan.completions), "looks": list(plan.looks),
                 "latency_s": sum(c.latency_s for c in plan.completions), "ttft_s": plan.completions[0].ttft_s}
        return decision_from(plan.completions, action if valid else self.executor.default, valid, error, extra)
