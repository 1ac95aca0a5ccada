"""Golden set: the Duel engine's events, states, views and legal lists on recorded matches.

The engine is tuned for speed (docs/performance.md); every speed-up must leave what it produces
byte for byte unchanged: the events (key order included, as they go on the wire), the states,
``legal`` and the views. The digests in ``duel_golden.json`` were recorded from the engine as
committed in 3048654 (before the sample_action / copy-on-write work) with

    .venv/bin/python tests/games/duel/test_duel_golden.py --record

Re-record only for an intentional rules change, never to make a speed-up pass.

The matches are driven by the reference bot below (the plain rule: ``rnd.choice`` over
``legal`` and over each ``one_of``), not by games/duel/bots.py, so the set pins the engine
alone; the bot and ``Duel.sample_action`` are pinned against this rule in test_duel_sampling.py.
"""
from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

if __name__ == "__main__":  # --record: run as a script from anywhere
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from games.base import OMNISCIENT, SPECTATOR
from games.duel import GAME

GOLDEN_FILE = Path(__file__).with_name("duel_golden.json")
VIEWERS = ("A", "B", SPECTATOR, OMNISCIENT)

# name -> (options, seeds, chance of a timeout per decision, chance of a resignation)
SETS = {
    "default": ({}, range(60), 0.0, 0.0),
    "long": ({"health": 40, "max_slots": 120}, range(8), 0.0, 0.0),
    "short_track": ({"track_length": 9}, range(20), 0.0, 0.0),
    "wide_track": ({"track_length": 31, "health": 2}, range(20), 0.0, 0.0),
    "timeouts": ({"max_timeouts": 4}, range(20), 0.05, 0.002),
}


def reference_expand(value, rnd: random.Random):
    if isinstance(value, dict):
        if len(value) == 1 and "one_of" in value:
            return reference_expand(rnd.choice(value["one_of"]), rnd)
        return {k: reference_expand(v, rnd) for k, v in value.items()}
    if isinstance(value, list):
        return [reference_expand(v, rnd) for v in value]
    return value


def reference_action(legal: list, rnd: random.Random) -> dict:
    """The random bot's rule, written plainly: a uniform legal entry, templates expanded."""
    return reference_expand(rnd.choice(legal), rnd)


def match_digest(options: dict, seed: int, p_timeout: float, p_resign: float,
                 copy: bool = True) -> str:
    """SHA-256 over everything one match produces, step by step (json.dumps keeps key order)."""
    h = hashlib.sha256()
    rnd = random.Random(seed)
    st = GAME.setup(options, ["A", "B"], seed)
    h.update(json.dumps(st).encode())
    step = 0
    while st["result"] is None:
        seat = rnd.choice(sorted(GAME.pending(st)))
        legal = GAME.legal(st, seat)
        h.update(json.dumps(legal).encode())
        roll = rnd.random()
        if roll < p_resign:
            st, ev = GAME.apply(st, seat, {"type": "resign"}, copy=copy)
        elif roll < p_timeout:
            st, ev = GAME.timeout(st, seat)
        else:
            st, ev = GAME.apply(st, seat, reference_action(legal, rnd), copy=copy)
        h.update(json.dumps(ev).encode())
        h.update(json.dumps(st).encode())
        if step % 5 == 0 or st["result"] is not None:
            for viewer in VIEWERS:
                h.update(json.dumps(GAME.view(st, viewer)).encode())
        step += 1
    return h.hexdigest()


def set_digests(name: str, copy: bool = True) -> dict[str, str]:
    options, seeds, p_timeout, p_resign = SETS[name]
    return {str(seed): match_digest(options, seed, p_timeout, p_resign, copy) for seed in seeds}


def _golden() -> dict:
    return json.loads(GOLDEN_FILE.read_text())


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SETS))
def test_engine_output_matches_the_golden_set(name):
    expected = _golden()[name]
    got = set_digests(name)
    changed = sorted((k for k in expected if got.get(k) != expected[k]), key=int)
    assert not changed, f"{name}: seeds {changed} differ from the recorded engine"
    assert set(got) == set(expected)


def test_in_place_apply_gives_the_same_matches():
    """apply(copy=False), the simulation path, produces exactly what the server path does."""
    expected = _golden()["default"]
    options, _, p_timeout, p_resign = SETS["default"]
    for seed in range(12):
        assert match_digest(options, seed, p_timeout, p_resign, copy=False) == expected[str(seed)]


def test_a_changed_engine_output_changes_the_digest(monkeypatch):
    """The digest sees a change in one event field (so the golden test can fail)."""
    original = GAME.apply

    def apply_with_one_field_renamed(state, seat, action, **kw):
        new, ev = original(state, seat, action, **kw)
        return new, [{**e, "slot": e["slot"] + 1} if e.get("type") == "slot_end" else e
                     for e in ev]

    monkeypatch.setattr(GAME, "apply", apply_with_one_field_renamed)
    assert match_digest({}, 0, 0.0, 0.0) != _golden()["default"]["0"]


if __name__ == "__main__":
    if "--record" not in sys.argv:
        sys.exit("usage: test_duel_golden.py --record   (re-records duel_golden.json)")
    GOLDEN_FILE.write_text(json.dumps({name: set_digests(name) for name in SETS}, indent=1) + "\n")
    print(f"wrote {GOLDEN_FILE}")
