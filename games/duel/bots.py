"""Tiny bots for Duel: expand ``legal`` entries (templates included) into concrete actions.

Speed: bots and benchmarks call ``random_action`` once per decision, so it copies a complete
action without recursing and draws as ``rnd.choice`` does, inlined for a plain
``random.Random`` (checked against ``rnd.choice`` at import): the same draws, in the same order.
"""
from __future__ import annotations

import random
from typing import Any

_ATOMS = frozenset((str, int, bool, float, type(None)))
_Random = random.Random


def _choice_inline(seq: Any, rnd: random.Random) -> Any:
    """``rnd.choice(seq)`` for a plain ``random.Random`` and a list or tuple."""
    n = len(seq)
    if not n:
        raise IndexError("Cannot choose from an empty sequence")
    getrandbits = rnd.getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return seq[r]


def _inline_matches_choice() -> bool:
    """Does ``_choice_inline`` draw exactly as this Python's ``random.Random.choice``?"""
    # _randbelow is CPython's private helper (not in the type stubs), hence the ignore.
    if _Random._randbelow is not getattr(_Random, "_randbelow_with_getrandbits", None):  # type: ignore[attr-defined]
        return False
    for seed in range(4):
        a, b = _Random(seed), _Random(seed)
        for n in (1, 2, 3, 4, 5, 7, 12, 16, 17, 100, 1000):
            seq = list(range(n))
            for _ in range(8):
                if _choice_inline(seq, a) != b.choice(seq):
                    return False
        if a.getstate() != b.getstate():
            return False
    return True


_INLINE = _inline_matches_choice()


def _choose(seq: Any, rnd: random.Random) -> Any:
    """``rnd.choice(seq)``."""
    if _INLINE and type(rnd) is _Random and (type(seq) is list or type(seq) is tuple):
        return _choice_inline(seq, rnd)
    return rnd.choice(seq)


def expand(value: Any, rnd: random.Random) -> Any:
    """Replace every ``{"one_of": [...]}`` by one of its (recursively expanded) values."""
    t = type(value)
    if t is dict:
        if len(value) == 1 and "one_of" in value:
            return expand(_choose(value["one_of"], rnd), rnd)
        if _ATOMS.issuperset(map(type, value.values())):
            return value.copy()
        return {k: v if type(v) in _ATOMS else expand(v, rnd) for k, v in value.items()}
    if t is list:
        out = []
        for v in value:
            out.append(v if type(v) in _ATOMS else expand(v, rnd))
        return out
    if t in _ATOMS:
        return value
    # Subclasses of dict or list, and anything else: the general rule.
    if isinstance(value, dict):
        if len(value) == 1 and "one_of" in value:
            return expand(_choose(value["one_of"], rnd), rnd)
        return {k: expand(v, rnd) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, rnd) for v in value]
    return value


def _expand_list(value: list, rnd: random.Random) -> list:
    """``expand`` of a list (``rnd`` a plain ``random.Random``), with the common case inlined: a
    ``{"one_of": [...]}`` template whose chosen value is a complete action part."""
    out = []
    for x in value:
        if type(x) is dict and len(x) == 1 and "one_of" in x:
            seq = x["one_of"]
            if type(seq) is list and seq:  # rnd.choice(seq), inlined
                getrandbits = rnd.getrandbits
                n = len(seq)
                k = n.bit_length()
                r = getrandbits(k)
                while r >= n:
                    r = getrandbits(k)
                c = seq[r]
            else:
                c = rnd.choice(seq)
            if c.__class__ is dict and len(c) == 2:  # e.g. {"stance": ..., "technique": ...}
                p, q = c.values()
                if type(p) in _ATOMS and type(q) in _ATOMS:
                    out.append(c.copy())
                    continue
            out.append(expand(c, rnd))
        else:
            out.append(x if type(x) in _ATOMS else expand(x, rnd))
    return out


def random_action(legal: list, rnd: random.Random) -> dict:
    """A uniformly chosen legal entry with its templates expanded at random."""
    if not (_INLINE and type(rnd) is _Random):
        return expand(rnd.choice(legal), rnd)
    if type(legal) is list and legal:  # rnd.choice(legal), inlined
        getrandbits = rnd.getrandbits
        n = len(legal)
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        a = legal[r]
    else:
        a = rnd.choice(legal)
    if a.__class__ is dict and len(a) == 2:  # e.g. {"type": ..., "move": ...}
        x, y = a.values()
        if type(x) in _ATOMS and type(y) in _ATOMS:
            return a.copy()  # a complete action, as expand would copy it
    if type(a) is not dict or "one_of" in a:
        return expand(a, rnd)
    out = {}
    for k, v in a.items():  # expand(a, rnd), one level inlined
        t = type(v)
        out[k] = v if t in _ATOMS else _expand_list(v, rnd) if t is list else expand(v, rnd)
    return out
