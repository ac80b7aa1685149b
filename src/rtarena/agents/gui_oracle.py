"""The oracle for browser tasks: each task's own solution, proving the task feasible in its windows.

The oracle is privileged: it asks the page (`env.oracle_action()`, the `RT.solve` function of the task's
page) what to do, in the same action strings any agent answers with. It acts on the page as it is when it
decides. `tokens_out` declares a scripted thinking cost, so the token clock can charge the same actions
at different prices (the deliberation-cost example).
"""

from __future__ import annotations

from typing import Any

from rtarena.agents.base import Agent, AgentContext, Decision


class GuiOracleAgent(Agent):
    """Plays a browser task with the task's own solution."""

    name = "oracle"

    def __init__(self, tokens_out: int = 0) -> None:
        self.tokens_out = int(tokens_out)

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        env = getattr(context.env, "unwrapped_gui", None) or context.env
        if not hasattr(env, "oracle_action"):
            raise TypeError(f"the gui oracle needs a browser task env, got {type(context.env).__name__}")
        self.env = env

    def act(self, observation: Any) -> Decision:
        action = self.env.oracle_action()
        return Decision(action=action, tokens_out=self.tokens_out, tokens_source="scripted")


def make_oracle(**kwargs: Any) -> GuiOracleAgent:
    return GuiOracleAgent(**kwargs)
