"""Decision makers: scripted bots, random and no-op agents, model agents, humans, teams."""

from rtarena.agents.base import Agent, AgentContext, CallableAgent, Decision, NoopAgent, RandomAgent, as_agent

__all__ = ["Agent", "AgentContext", "CallableAgent", "Decision", "NoopAgent", "RandomAgent", "as_agent"]
