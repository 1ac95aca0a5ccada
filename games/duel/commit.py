"""Verifiable commitments for Duel's secret simultaneous choices (see docs/commitments.md).

commitment = sha256_hex(salt_hex + ":" + canonical_json(choice)), where ``choice`` is the action
object the player locked (e.g. ``{"type": "footwork", "move": "stay"}``) and ``salt_hex`` is 32
lowercase hex digits (128 bits) drawn from the match's seeded generator ``games.base.rng``.
"""
from __future__ import annotations

import _random
import hashlib
import hmac
import json
import random
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
_POOL_BITS = 128 * SALT_BATCH
_POOL_FORMAT = f"0{32 * SALT_BATCH}x"
_POOL_BYTES = _POOL_BITS // 8


def _pool_by_rng(state: State) -> str:
    """The next batch of salts: ``SALT_BATCH`` x 32 hex digits from ``games.base.rng(state)``."""
    return format(rng(state).getrandbits(_POOL_BITS), _POOL_FORMAT)


# games.base.rng(state) builds a fresh random.Random per draw. _pool_fast makes the same draw
# with a generator created and seeded in C, skipping the Python-level Random.__init__/seed
# wrappers (about a sixth of a draw). It is used only if it reproduces _pool_by_rng exactly
# (checked below). A new generator per draw keeps it safe to call from several threads.
_Random = random.Random
_new_generator = random.Random.__new__
_c_seed = _random.Random.seed
_sha256 = hashlib.sha256


def _pool_fast(state: State) -> str:
    n = state.get("rng_n", 0)
    state["rng_n"] = n + 1
    digest = _sha256(f"{state['seed']}:{n}".encode()).digest()
    gen = _new_generator(_Random)
    _c_seed(gen, int.from_bytes(digest[:8], "big"))
    # = format(bits, _POOL_FORMAT): bytes.hex() is lowercase, zero-padded, and quicker
    return gen.getrandbits(_POOL_BITS).to_bytes(_POOL_BYTES, "big").hex()


def _fast_is_exact() -> bool:
    for seed in (0, 1, 7, 12345, 2**40 + 3, -5, 10**30):
        a, b = {"seed": seed, "rng_n": 0}, {"seed": seed, "rng_n": 0}
        for _ in range(3):
            if _pool_fast(a) != _pool_by_rng(b) or a != b:
                return False
    return True


salt_pool = _pool_fast if _fast_is_exact() else _pool_by_rng


def new_salt(state: State) -> str:
    """A fresh 128-bit salt (32 hex digits) from the match's seeded chance: pure, replayable,
    secret while the seed is. Salts are drawn from ``games.base.rng(state)`` eight at a time and
    the unused ones wait in ``state["salts"]`` (hidden state, never in a view)."""
    pool = state.get("salts") or salt_pool(state)
    state["salts"] = pool[32:]
    return pool[:32]
