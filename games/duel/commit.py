"""Verifiable commitments for Duel's secret simultaneous choices (see docs/commitments.md).

commitment = sha256_hex(salt_hex + ":" + canonical_json(choice)), where ``choice`` is the action
object the player locked (e.g. ``{"type": "footwork", "move": "stay"}``) and ``salt_hex`` is 32
lowercase hex digits (128 bits) drawn from the match's seeded generator ``games.base.rng``.
"""
from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from games.base import State, rng

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def canonical_json(value: Any) -> str:
    """json.dumps(value, sort_keys=True, separators=(",", ":"))."""
    return _ENCODER.encode(value)


def commitment_of_json(salt_hex: str, choice_json: str) -> str:
    return hashlib.sha256(f"{salt_hex}:{choice_json}".encode()).hexdigest()


def commitment(salt_hex: str, choice: Any) -> str:
    return commitment_of_json(salt_hex, canonical_json(choice))


def verify_commitment(commitment_hex: Any, salt: Any, choice: Any) -> bool:
    """True when ``choice`` with ``salt`` hashes to ``commitment_hex``. Never raises."""
    if not isinstance(commitment_hex, str) or not isinstance(salt, str):
        return False
    try:
        expected = commitment(salt, choice)
    except (TypeError, ValueError):
        return False
    return hmac.compare_digest(expected.encode(), commitment_hex.lower().encode())


SALT_BATCH = 8  # salts drawn per call of games.base.rng (each call costs a SHA-256 and a seeding)


def new_salt(state: State) -> str:
    """A fresh 128-bit salt (32 hex digits) from the match's seeded chance: pure, replayable,
    secret while the seed is. Salts are drawn from ``games.base.rng(state)`` eight at a time and
    the unused ones wait in ``state["salts"]`` (hidden state, never in a view)."""
    pool = state.get("salts") or f"{rng(state).getrandbits(128 * SALT_BATCH):0{32 * SALT_BATCH}x}"
    state["salts"] = pool[32:]
    return pool[:32]
