"""Tiny bots for Duel: expand ``legal`` entries (templates included) into concrete actions."""
from __future__ import annotations

import random
from typing import Any


def expand(value: Any, rnd: random.Random) -> Any:
    """Replace every ``{"one_of": [...]}`` by one of its (recursively expanded) values."""
    if isinstance(value, dict):
        if len(value) == 1 and "one_of" in value:
            return expand(rnd.choice(value["one_of"]), rnd)
        return {k: expand(v, rnd) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, rnd) for v in value]
    return value


def random_action(legal: list, rnd: random.Random) -> dict:
    """A uniformly chosen legal entry with its templates expanded at random."""
    return expand(rnd.choice(legal), rnd)
