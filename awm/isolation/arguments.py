"""The parent's argument model of a tool whose code runs in a worker, where its real validation happens.

Here only unknown and missing arguments are refused (``invalid_arguments`` before anything runs);
types and values are the worker's to judge (FastAPI for an AWM app, the tool's own pydantic model for
generated tools). An optional argument the caller left out is ``UNSET``, and ``given`` drops it, so
the worker sees exactly the arguments that were sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


UNSET: Any = _Unset()


def open_model(tool: str, parameters: Mapping[str, Any]) -> type[BaseModel]:
    """A model of ``parameters`` (a JSON Schema object) that accepts any value of a known argument."""
    required = set(parameters.get("required", ()))
    fields: dict[str, Any] = {p: (Any, ... if p in required else UNSET) for p in parameters.get("properties", {})}
    return create_model(f"{tool}_arguments", __config__=ConfigDict(extra="forbid"), **fields)


def given(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments the caller sent (without the ``UNSET`` placeholders of the ones left out)."""
    return {k: v for k, v in arguments.items() if v is not UNSET}
