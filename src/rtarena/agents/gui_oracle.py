"""The oracle for browser tasks: each task's own solution, proving the task feasible in its windows.

The oracle is privileged (its `AGENT_KINDS` row says so): its `context.privileged` feed carries, with each
observation, the env's snapshot of the page (`privileged_state`: page time, the finest stop, and the task's
own solution, the `RT.cheat` function of the task's page, in the same action strings any agent answers
with), taken for the lead time it asks for. It decides on the page as that observation showed it, and never
holds the env. `tokens_out` declares a scripted thinking cost, so the token clock can charge the same actions
at different prices (the deliberation-cost example).
"""

from __future__ import annotations

import math
from typing import Any

from rtarena.contract import Agent, AgentContext, Decision


class GuiOracleAgent(Agent):
    """Plays a browser task with the task's own solution."""

    name = "oracle"
    privileged = True

    def __init__(self, tokens_out: int = 0) -> None:
        self.tokens_out = int(tokens_out)

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        feed = context.privileged
        if feed is None:
            raise TypeError("the gui oracle is privileged: run it through the runtime on a browser task")
        # Simulated seconds from deciding to committing, as far as the clock knows them in advance; the
        # action applies then, rounded up to the finest time the env can stop at (else the next step).
        delay_s = context.clock.planned_delay_s(self.tokens_out)
        stop_s = float(feed[context.agent]["substep_s"] or context.dt)
        self.lead_s = math.ceil(round(delay_s / stop_s, 4)) * stop_s  # when its action will be applied
        self.visible_at_s = -1.0
        feed.ask(lead_s=self.lead_s, after_s=self.visible_at_s)

    def act(self, observation: Any) -> Decision:
        # A costly decision lands a step or more after the observation it was made on, so the next
        # observation may not show it yet; deciding again on that stale picture would repeat it (two bids,
        # two paddle moves). The oracle waits until its last action can be seen.
        page = self.context.privileged[self.context.agent]
        now = self._observed_s(observation, page)
        if now < self.visible_at_s - 1e-4:  # observed times are float32
            return self._decision("wait()")
        # its next action: decided on this observation, applied `lead_s` after it; the page's solution for
        # that moment came with the observation
        action = page["action"]
        if action.strip() != "wait()":
            self.visible_at_s = page["seen_s"]  # the first observation showing it
            self.context.privileged.ask(lead_s=self.lead_s, after_s=self.visible_at_s)
        return self._decision(action)

    def _decision(self, action: str) -> Decision:
        return Decision(action=action, tokens_out=self.tokens_out,
                        tokens_source="scripted" if self.tokens_out else "none")

    @staticmethod
    def _observed_s(observation: Any, page: dict[str, Any]) -> float:
        if isinstance(observation, dict) and "time" in observation:
            return float(observation["time"][0])
        return float(page["elapsed_s"])


def make_oracle(option: str | None = None) -> GuiOracleAgent:
    """The `--agent oracle[:TOKENS]` factory: `oracle:300` declares 300 output tokens per decision."""
    from rtarena.errors import UserError

    if option is None:
        return GuiOracleAgent()
    text = option.removeprefix("tokens=")
    if not text.isdigit():
        raise UserError(f"oracle takes a whole number of tokens per decision, got {option!r}", field="--agent")
    return GuiOracleAgent(tokens_out=int(text))
