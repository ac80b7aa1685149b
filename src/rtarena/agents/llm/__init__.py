"""Model agents over any OpenAI-compatible chat API: client, prompts, parsing, history, teams."""

from rtarena.agents.llm.agent import LLMAgent
from rtarena.agents.llm.client import ChatClient, Completion
from rtarena.agents.llm.failures import count_failures, failure_line
from rtarena.agents.llm.history import History
from rtarena.agents.llm.model_agent import ModelAgent
from rtarena.agents.llm.options import LLMOptions, parse_llm_options
from rtarena.agents.llm.parsing import parser_for, register_parser

__all__ = [
    "ChatClient", "Completion", "History", "LLMAgent", "LLMOptions", "ModelAgent", "count_failures", "failure_line",
    "parse_llm_options", "parser_for", "register_parser",
]
