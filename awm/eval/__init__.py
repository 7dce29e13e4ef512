"""Evaluate agents on the environments: ``awm eval`` (any OpenAI-compatible model, or the built-in
``oracle``, ``random`` and ``noop`` agents) and ``awm report`` (pass@1, pass^k, reward channels, tool
errors, steps; JSON, Markdown and a PNG chart)."""

from awm.eval.agents import ChatAgent, NoopAgent, OracleAgent, RandomAgent
from awm.eval.llm import ChatClient
from awm.eval.records import EvalRecord, Status
from awm.eval.runner import EvalConfig, EvalResult, plan, read_records, run_eval

__all__ = [
    "ChatAgent",
    "ChatClient",
    "EvalConfig",
    "EvalRecord",
    "EvalResult",
    "NoopAgent",
    "OracleAgent",
    "RandomAgent",
    "Status",
    "plan",
    "read_records",
    "run_eval",
]
