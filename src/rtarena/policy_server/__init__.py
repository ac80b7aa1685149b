"""A local OpenAI-compatible server answering with a scripted policy (not a model), for offline runs,
tests and latency calibration. `rtarena serve-policy` runs it; `PolicyServer` runs it in-process."""

from rtarena.policy_server.faults import FAULTS, closed_port_url
from rtarena.policy_server.server import PolicyServer, ServerSettings

__all__ = ["FAULTS", "PolicyServer", "ServerSettings", "closed_port_url"]
