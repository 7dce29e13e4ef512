"""Rules tools enforce: a row's state before a transition, the acting person's role.

Every refusal is a ``ToolError`` whose message names the row, what it is now and what the tool needs, so the
agent knows what to do instead.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from awm.errors import ToolError


def either(options: Collection[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``: the allowed values as a refusal names them."""
    items = list(options)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def require_status(
    row: Mapping[str, Any], allowed: Collection[str], label: str, action: str, *, field: str = "status"
) -> None:
    """Refuse unless ``row[field]`` is one of ``allowed``: "``label`` is cancelled; only a booked or confirmed
    one can be ``action``." (``label`` names the row as the agent knows it: "Reservation ABC123")."""
    if row[field] not in allowed:
        raise ToolError(f"{label} is {row[field]}; only {_a(either(allowed))} one can be {action}.")


def require_role(person: Mapping[str, Any], roles: Collection[str], action: str, *, name: str = "full_name") -> None:
    """Refuse unless the acting person's ``role`` is one of ``roles``: "Ann Lee is a teller; only a
    branch_manager can ``action``."."""
    if person["role"] not in roles:
        raise ToolError(f"{person[name]} is {_a(person['role'])}; only {_a(either(roles))} can {action}.")


def require_owner(row: Mapping[str, Any], field: str, owner_id: Any, refusal: str) -> None:
    """Refuse with ``refusal`` unless ``row[field]`` is ``owner_id``: a row of another person (an order, a booking)
    that the acting person may not touch. Say whose it is not and how to find theirs: "Order SO-1042 is not one
    of Ann Lee's orders; list_orders shows hers."."""
    if row[field] != owner_id:
        raise ToolError(refusal)


def _a(words: str) -> str:
    """``words`` with its indefinite article: "an active", "a booked"."""
    return ("an " if words[:1].lower() in "aeiou" else "a ") + words
