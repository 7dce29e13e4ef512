"""What a world builder (``envs/<env>/world.py``) imports: ``WorldContext`` and ``Tables`` (and ``Scale``,
``WorldKey``, the error it may raise). They live in ``awm.worldctx`` (standard library and faker only, so the
sandboxed ``world`` worker runs a builder with them, under a shim of this name); how a builder is run is
``awm.model.builders``.
"""

from __future__ import annotations

from awm.worldctx import Scale, Tables, WorldBuildError, WorldContext, WorldKey

__all__ = ["Scale", "Tables", "WorldBuildError", "WorldContext", "WorldKey"]
