"""On-disk cache of LLM responses keyed by the request, so ``--resume`` and reruns cost nothing.

One JSON file per response under ``<dir>/<key[:2]>/<key>.json``, written atomically (temp file +
``os.replace``). The key is the sha256 of the canonical request (model, messages, sampling settings);
the endpoint URL and the API key are not part of it and are never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path
from typing import Any


class ResponseCache:
    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = Path(directory)

    @staticmethod
    def key(request: dict[str, Any]) -> str:
        canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            value = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        tmp.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)

    def count(self) -> int:
        """Responses stored (not ``__len__``: an empty cache must still be truthy)."""
        return sum(1 for _ in self.directory.glob("*/*.json")) if self.directory.is_dir() else 0
