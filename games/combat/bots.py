"""A random bot for Combat. It never concedes."""
from __future__ import annotations

import random

_GIVING_UP = ("concede", "resign")


def random_action(legal: list, rnd: random.Random) -> dict:
    """Pick uniformly among the legal actions that are not conceding. In Combat that is
    always ``{"type": "fight"}`` while the seat is pending."""
    choices = [a for a in legal if a.get("type") not in _GIVING_UP]
    if not choices:
        raise ValueError("No action to choose from (the seat is not pending).")
    return dict(rnd.choice(choices))
