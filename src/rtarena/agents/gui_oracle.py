"""The oracle for browser tasks: each task's own solution, proving the task feasible in its windows.

The oracle is privileged (its `AGENT_KINDS` row says so): through `context.privileged`, the runtime's
read-only view of the env, it asks the page (`oracle_action()`, the `RT.cheat` function of the task's
page) what to do, in the same action strings any agent answers with. It acts on the page as it is when it
decides. `tokens_out` declares a scripted thinking cost, so the token clock can charge the same actions
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
        view = context.privileged
        if view is None or not hasattr(view, "oracle_action"):
            raise TypeError(f"the gui oracle needs a browser task env, got {view!r}")
        self.page = view  # the only privileged reads: `oracle_action(...)`, `elapsed_s` and `substep_s`
        # Simulated seconds from deciding to committing, as far as the clock knows them in advance; the
        # action applies then, rounded up to the finest time the env can stop at (else the next step).
        self.delay_s = context.clock.planned_delay_s(self.tokens_out)
        self.stop_s = float(getattr(view, "substep_s", None) or context.dt)
        self.visible_at_s = -1.0

    def act(self, observation: Any) -> Decision:
        # A costly decision lands a step or more after the observation it was made on, so the next
        # observation may not show it yet; deciding again on that stale picture would repeat it (two bids,
        # two paddle moves). The oracle waits until its last action can be seen.
        now = self._observed_s(observation)
        if now < self.visible_at_s - 1e-4:  # observed times are float32
            return self._decision("wait()")
        dt = self.context.dt
        lead_s = math.ceil(round(self.delay_s / self.stop_s, 4)) * self.stop_s  # when it will be applied
        seen_s = (math.floor(round((now + lead_s) / dt, 4)) + 1) * dt  # the first observation showing it
        # its next action: decided on that observation, applied `lead_s` after it
        action = self.page.oracle_action(lead_s=lead_s, period_s=seen_s + lead_s - now)
        if action.strip() != "wait()":
            self.visible_at_s = seen_s
        return self._decision(action)

    def _decision(self, action: str) -> Decision:
        return Decision(action=action, tokens_out=self.tokens_out,
                        tokens_source="scripted" if self.tokens_out else "none")

    def _observed_s(self, observation: Any) -> float:
        if isinstance(observation, dict) and "time" in observation:
            return float(observation["time"][0])
        return float(self.page.elapsed_s)


def make_oracle(option: str | None = None) -> GuiOracleAgent:
    """The `--agent oracle[:TOKENS]` factory: `oracle:300` declares 300 output tokens per decision."""
    from rtarena.errors import UserError

    if option is None:
        return GuiOracleAgent()
    text = option.removeprefix("tokens=")
    if not text.isdigit():
        raise UserError(f"oracle takes a whole number of tokens per decision, got {option!r}", field="--agent")
    return GuiOracleAgent(tokens_out=int(text))
