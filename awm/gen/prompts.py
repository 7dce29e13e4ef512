"""Prompt templates: one file per stage in ``generators/``, rendered with ``{{name}}`` placeholders.

A template file holds the system prompt, a line ``=== user ===``, then the user prompt. The first line
of every system message is ``awm-gen-stage: <name>``, so logs, caches and test servers can tell the
stages apart. ``prompts_hash`` fingerprints every template for the manifests' provenance.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from awm.model.registry import BUNDLED_ROOT

GENERATORS_DIR = BUNDLED_ROOT / "generators"
USER_MARK = "=== user ==="
STAGE_MARK = "awm-gen-stage:"
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")


class PromptError(Exception):
    """A template is missing, malformed, or rendered without a value it needs."""


@dataclass(frozen=True)
class Prompt:
    name: str
    system: str
    user: str

    def messages(self, **values: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": f"{STAGE_MARK} {self.name}\n{render(self.system, values, self.name)}"},
            {"role": "user", "content": render(self.user, values, self.name)},
        ]

    def render_user(self, **values: str) -> str:
        return render(self.user, values, self.name)

    def placeholders(self) -> set[str]:
        return set(_PLACEHOLDER.findall(self.system + self.user))


def render(template: str, values: dict[str, str], name: str = "template") -> str:
    missing = sorted(set(_PLACEHOLDER.findall(template)) - set(values))
    if missing:
        raise PromptError(f"prompt {name!r} needs values for {missing}")
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), template)


def load_prompt(name: str, directory: Path | None = None) -> Prompt:
    path = (directory or GENERATORS_DIR) / f"{name}.md"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PromptError(f"missing prompt template {path}") from None
    system, sep, user = text.partition(f"\n{USER_MARK}\n")
    if not sep:
        raise PromptError(f"{path}: no '{USER_MARK}' line between the system and user prompts")
    return Prompt(name, system.strip(), user.strip())


def prompts_hash(directory: Path | None = None) -> str:
    """sha256 over every template (file names and bytes), first 16 hex digits."""
    h = hashlib.sha256()
    for path in sorted((directory or GENERATORS_DIR).glob("*.md")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]
