"""Provably fair chance: the match seed from the server's committed seed and the players' own
seeds, and the check of a finished match's record (docs/fairness.md says it in words).

Pure, like the engines: no I/O and no randomness of its own. The server draws its secret seed
and the seeds of seats that bring none (``app/live/store.py``); this module only computes and
checks, so the server, ``duelhall verify`` and anybody's re-implementation agree.

    server_seed_sha256 = sha256(bytes.fromhex(server_seed)).hexdigest()
    message            = "duelhall-fair-v1" + "".join("\\n" + seat + ":" + seed for each seat, A first)
    digest             = HMAC-SHA256(key=bytes.fromhex(server_seed), msg=message as ASCII)
    match seed         = int.from_bytes(digest[:8], "big") >> 1        (63 bits)
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field
from typing import Any

from games.base import OMNISCIENT, GameError, may_see
from games.registry import get_game

LABEL = "duelhall-fair-v1"
SERVER_SEED_BYTES = 32
PLAYER_SEED_MIN, PLAYER_SEED_MAX = 32, 128
_HEX = re.compile(r"[0-9a-f]*")
# Results decided outside the game by a tournament (its no-show rule and round timer, see
# app/tournaments/service.py): no engine step makes them, so a replay cannot reproduce them.
OUTSIDE_REASONS = frozenset({"no_show", "time"})


def check_player_seed(value: Any) -> str:
    """A player's seed as stored: 32-128 hex digits, lowercase. Raises ValueError with a
    sentence a person understands otherwise."""
    if not isinstance(value, str):
        raise ValueError("a seed is a string of hexadecimal digits")
    seed = value.lower()
    if not PLAYER_SEED_MIN <= len(seed) <= PLAYER_SEED_MAX or not _HEX.fullmatch(seed):
        raise ValueError(f"a seed is {PLAYER_SEED_MIN} to {PLAYER_SEED_MAX} hexadecimal "
                         "digits (0-9, a-f)")
    return seed


def commitment(server_seed: str) -> str:
    """The published hash of the server's seed: lowercase hex SHA-256 of its bytes."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def seed_message(player_seeds: dict[str, str]) -> bytes:
    """The canonical list the server seed is applied to: the label, then one line
    ``seat:seed`` per seat in seat order (A, B, ...), joined by newlines, as ASCII."""
    lines = [LABEL] + [f"{seat}:{player_seeds[seat].lower()}" for seat in sorted(player_seeds)]
    return "\n".join(lines).encode("ascii")


def match_seed(server_seed: str, player_seeds: dict[str, str]) -> int:
    """The seed the engine's ``setup`` takes: the first 8 bytes of
    HMAC-SHA256(server seed, ``seed_message``) as a big-endian integer, shifted right by one
    (63 bits: it fits SQL's signed BIGINT, and it is a plain int as ``games.base.rng`` wants)."""
    digest = hmac.new(bytes.fromhex(server_seed), seed_message(player_seeds), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def events_for(events: list[dict] | None, viewer: str) -> list[dict] | None:
    """The events of one step that ``viewer`` (a seat, or ``OMNISCIENT``) was shown, ``vis``
    kept: what a player's record carries, so it holds nothing the player was not sent."""
    if events is None:
        return None
    return [e for e in events if may_see(e.get("vis", "all"), viewer)]


def record_for(record: dict, viewer: str) -> dict:
    """A record as ``viewer`` may have it: every step's events narrowed to theirs, and
    ``events_for`` naming the viewer so the verifier narrows the replay the same way."""
    out = dict(record)
    out["events_for"] = viewer
    out["actions"] = [{**a, "events": events_for(a.get("events"), viewer)} for a in record["actions"]]
    return out


# ------------------------------------------------------------------------------ verification
@dataclass
class Verdict:
    """What ``verify_record`` found. ``ok`` only when everything agrees; otherwise ``what`` is
    the first thing that differs (``record``, ``hash``, ``derivation``, ``step`` or ``result``),
    ``step`` its 1-based engine step where there is one, and ``problem`` a sentence naming it."""

    ok: bool
    what: str | None = None
    problem: str | None = None
    step: int | None = None
    steps: int = 0
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        if not self.ok:
            return f"FAILED ({self.what}): {self.problem}"
        return "OK: " + " ".join(self.notes)


def _json(value: Any) -> Any:
    """``value`` as JSON gives it back (tuples become lists, integer keys strings): how the
    recorded events were stored."""
    return json.loads(json.dumps(value, sort_keys=True))


def _first_difference(replayed: list, recorded: list) -> str:
    for i, (a, b) in enumerate(zip(replayed, recorded), 1):
        if a != b:
            return (f"event {i} is {json.dumps(a, sort_keys=True)} on replay but "
                    f"{json.dumps(b, sort_keys=True)} in the record")
    return f"the replay gives {len(replayed)} event(s), the record {len(recorded)}"


def verify_record(record: dict) -> Verdict:
    """Check a match record (``GET /api/matches/{id}/record``): the revealed server seed against
    its commitment, the match seed against the derivation, then every step replayed through the
    engine against the recorded events, and the final result. Never raises on a bad record."""
    try:
        return _verify(record)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        return Verdict(False, "record", f"the record is malformed ({type(e).__name__}: {e}).")


def _verify(record: dict) -> Verdict:
    if not isinstance(record, dict):
        return Verdict(False, "record", "this is not a match record (a JSON object).")
    fair = record.get("fairness")
    if not isinstance(fair, dict):
        return Verdict(False, "record", "the record has no 'fairness' block (a match from before "
                                        "provably fair chance, or not a match record).")
    if record.get("replayable") is False:
        return Verdict(False, "record", "this copy of the record hides other seats' secret choices "
                                        "('replayable': false), so it cannot be replayed; an "
                                        "admin's copy can.")
    server_seed = fair.get("server_seed")
    if not isinstance(server_seed, str) or not _HEX.fullmatch(server_seed) \
            or len(server_seed) != 2 * SERVER_SEED_BYTES:
        return Verdict(False, "record", "the server seed is not revealed in the record (it is, "
                                        "once the match is over).")
    committed = str(fair.get("server_seed_sha256"))
    if commitment(server_seed) != committed:
        return Verdict(False, "hash", f"sha256(server_seed) is {commitment(server_seed)}, but the "
                                      f"commitment published at the start is {committed}.")
    seats = [s["seat"] for s in record["seats"]]
    player_seeds = fair.get("player_seeds") or {}
    if sorted(player_seeds) != sorted(seats):
        return Verdict(False, "derivation", f"the player seeds are for seats "
                                            f"{sorted(player_seeds)}, the match has seats {seats}.")
    for seat, seed in player_seeds.items():
        try:
            check_player_seed(seed)
        except ValueError as e:
            return Verdict(False, "derivation", f"seat {seat}'s seed is not valid: {e}.")
    derived = match_seed(server_seed, player_seeds)
    if record.get("seed") != derived:
        return Verdict(False, "derivation", f"the seed derived from the server seed and the "
                                            f"players' seeds is {derived}, but the match was "
                                            f"played with {record.get('seed')}.")
    if fair.get("match_seed") is not None and fair["match_seed"] != str(derived):
        return Verdict(False, "derivation", f"the fairness block names the match seed "
                                            f"{fair['match_seed']}, the derivation gives {derived}.")
    return _replay(record, seats, derived)


def _replay(record: dict, seats: list[str], seed: int) -> Verdict:
    game = get_game(record["game"])
    if game is None:
        return Verdict(False, "record", f"unknown game {record['game']!r}.")
    hidden = sorted(k for k, v in (record["options"] or {}).items()
                    if v == "hidden" or (isinstance(v, dict) and "hidden" in v.values()))
    if hidden:
        return Verdict(False, "record", f"the record hides secret option(s) {hidden}: the match "
                                        "cannot be replayed from it.")
    try:
        state = game.setup(record["options"], seats, seed)
    except GameError as e:
        return Verdict(False, "record", f"the engine cannot set the match up from the recorded "
                                        f"options: {e.message}")
    actions = record["actions"]
    viewer = record.get("events_for") or OMNISCIENT
    for n, step in enumerate(actions, 1):
        where = f"step {n} (version {step.get('version')}, seat {step['seat']}, {step['kind']})"
        try:
            if step["kind"] == "timeout":
                state, events = game.timeout(state, step["seat"])
            else:
                state, events = game.apply(state, step["seat"], step["action"])
        except GameError as e:
            return Verdict(False, "step", f"{where}: the engine refuses the recorded action: "
                                          f"{e.message}", n, n - 1)
        recorded = step.get("events")
        if recorded is None:
            return Verdict(False, "step", f"{where}: the record carries no events to compare.", n,
                           n - 1)
        replayed = _json(events_for(events, viewer))
        if replayed != _json(recorded):
            return Verdict(False, "step", f"{where}: {_first_difference(replayed, _json(recorded))}.",
                           n, n - 1)
    notes = [f"match {record.get('id')} ({record['game']}): the server seed matches its commitment,",
             "the match seed is the derivation from it and the players' seeds,",
             f"and all {len(actions)} steps replay through the engine with the recorded events"]
    replayed_result = _json(game.result(state))
    recorded_result = _json(record.get("result"))
    if replayed_result == recorded_result:
        notes[-1] += " and the recorded result."
        return Verdict(True, steps=len(actions), notes=notes)
    if (replayed_result is None and isinstance(recorded_result, dict)
            and recorded_result.get("reason") in OUTSIDE_REASONS):
        notes[-1] += "."
        notes.append(f"The result (reason {recorded_result['reason']!r}) was decided outside the "
                     "game by the tournament's rules after the last step; a replay cannot make it.")
        return Verdict(True, steps=len(actions), notes=notes)
    return Verdict(False, "result", f"after all {len(actions)} steps the replay's result is "
                                    f"{json.dumps(replayed_result, sort_keys=True)}, the record's is "
                                    f"{json.dumps(recorded_result, sort_keys=True)}.",
                   None, len(actions))
