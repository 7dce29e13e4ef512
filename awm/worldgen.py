"""What a world builder (``envs/<env>/world.py``) imports: ``WorldContext``, ``Scale``, ``WorldKey`` and the error
it may raise. The names live in ``awm.worldctx`` (standard library and faker only, so the sandboxed ``world``
worker runs a builder with them, under a shim of this name); how a builder is run is ``awm.model.builders``.
"""

from __future__ import annotations

from awm.worldctx import (
    Scale,
    WorldBuildError,
    WorldContext,
    WorldKey,
    build_failed,
    import_failed,
    module_name,
    no_build,
    not_a_dict,
    not_rows,
)

__all__ = [
    "Scale",
    "WorldBuildError",
    "WorldContext",
    "WorldKey",
    "build_failed",
    "import_failed",
    "module_name",
    "no_build",
    "not_a_dict",
    "not_rows",
]
