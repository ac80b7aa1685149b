"""`AgenticAgent`: the framework's modules composed into one agent (`agentic:MODEL@BASE_URL[,rounds=N]`)."""

from __future__ import annotations

from typing import Any

from rtarena.agents.base import Agent, AgentContext, Decision
from rtarena.agents.llm.agent import assistant_memory, completion_extra, log_failures
from rtarena.agents.llm.agentic.context import ContextBuilder
from rtarena.agents.llm.agentic.execution import ActionExecutor
from rtarena.agents.llm.agentic.feedback import Feedback
from rtarena.agents.llm.agentic.memory import Memory
from rtarena.agents.llm.agentic.perception import Perception
from rtarena.agents.llm.agentic.planning import Plan, Planner
from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.failures import FailureTally
from rtarena.agents.llm.history import History
from rtarena.agents.llm.options import LLMOptions, parse_llm_options
from rtarena.agents.llm.parsing import parser_for
from rtarena.agents.llm.prompts import controls_text, render, system_prompt


class AgenticAgent(Agent):
    """Perception, memory, context, planning (several rounds), action execution and feedback."""

    name = "agentic"

    def __init__(self, option: str | LLMOptions | None = None, planner: Planner | None = None) -> None:
        self.options = option if isinstance(option, LLMOptions) else parse_llm_options(option, "agentic")
        self.skill = self.options.skill_text()
        self.client = ChatClient(self.options)
        self.tally = FailureTally()
        self.planner = planner or Planner(self.client, self.options.rounds, self.options.timeout)
        self.perception = Perception(self.options)

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        o, agent = self.options, context.agent
        parser = parser_for(context.action_spaces[agent], context.docs.action_names.get(agent))
        self.executor = ActionExecutor(parser, context.default_actions[agent])
        space = context.observation_spaces[agent]
        keys = list(getattr(space, "spaces", {}) or {})
        self.view_names = self.perception.view_names(keys)
        extra = render("agentic_rounds.md", extra=max(0, o.rounds - 1), views=", ".join(self.view_names) or "none",
                       notes=render("agentic_notes.md"))
        system = system_prompt(context, controls_text(parser), self.skill, extra="\n" + extra)
        history = History(max_turns=o.history, fold=o.fold, max_images=o.images, image_fold=o.image_fold)
        self.memory, self.feedback = Memory(history), Feedback()
        self.context_builder = ContextBuilder(system, self.memory, self.feedback)
        self.turn = 0
        self.client.abandoned.clear()

    def act(self, observation: Any) -> Decision:
        self.turn += 1
        user = self.context_builder.user(self.perception.parts(observation), self.turn)
        plan = self.planner.plan(lambda rounds: self.context_builder.messages(user, rounds),
                                 lambda name: self.perception.view(observation, name), self.view_names)
        decision = self._decision(plan)
        action_text = self.executor.describe(decision.action)
        for completion in plan.completions:
            self.memory.remember(completion.text)
        self.memory.history.record(self.turn, user, assistant_memory(plan.final.text, decision.valid), action_text)
        self.feedback.after(decision, action_text)
        self.tally.note(decision.error)
        return decision

    def _decision(self, plan: Plan) -> Decision:
        final = plan.final
        action, parsed = self.executor.execute(final.text) if final.ok else (self.executor.default, None)
        valid = final.ok and parsed is not None and parsed.valid
        sources = {c.tokens_source for c in plan.completions}
        extra = completion_extra(final)
        extra.update(rounds=len(plan.completions), looks=list(plan.looks),
                     latency_s=sum(c.latency_s for c in plan.completions),
                     ttft_s=plan.completions[0].ttft_s)
        return Decision(
            action=action if valid else self.executor.default,
            tokens_in=sum(c.tokens_in for c in plan.completions),
            tokens_out=sum(c.tokens_out for c in plan.completions),
            tokens_source="server" if sources == {"server"} else ("counted" if "counted" in sources else "none"),
            text="\n---\n".join(c.text for c in plan.completions),
            valid=valid,
            error=final.error or (None if valid else parsed.error if parsed else "unparsed"),
            extra={k: v for k, v in extra.items() if v is not None},
        )

    def close(self) -> None:
        self.client.close()
        log_failures(self)
