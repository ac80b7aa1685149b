"""The agentic framework: a model agent split into perception, memory, context, planning, action execution
and feedback modules, with several reasoning rounds per step (`agentic:MODEL@BASE_URL[,rounds=N]`).

    observation -> Perception -> ContextBuilder(Memory, Feedback) -> Planner (rounds: think, LOOK, refine)
                -> ActionExecutor -> Decision (tokens and time of every round) -> Memory, Feedback

Each module is small and replaceable: pass your own to `AgenticAgent(..., planner=MyPlanner(...))`.
"""

from rtarena.agents.llm.agentic.agent import AgenticAgent
from rtarena.agents.llm.agentic.context import ContextBuilder
from rtarena.agents.llm.agentic.execution import ActionExecutor
from rtarena.agents.llm.agentic.feedback import Feedback
from rtarena.agents.llm.agentic.memory import Memory
from rtarena.agents.llm.agentic.perception import Perception
from rtarena.agents.llm.agentic.planning import Plan, Planner

__all__ = ["ActionExecutor", "AgenticAgent", "ContextBuilder", "Feedback", "Memory", "Perception", "Plan",
           "Planner"]
