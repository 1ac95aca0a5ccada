"""One lab match and what it says, in the worker process.

Everything here reads the engine's events and the actions (never the bots' internals), so the
same numbers come out whichever bots play. A match record (``play_one``) is small, JSON-able
and holds everything the report needs::

    {"i", "variant", "bots": {seat: level}, "lineup": {seat: name|None}, "outcome":
     {seat: "win"|"loss"|"draw"}, "draw", "first": seat|None, "length", "decisions",
     "reason", "moves": {seat: {move: uses}}, "actions": {seat: {action: uses}}}

What a "move", the "length" and the "first player" are depends on the game (``TRACKERS``):

| game | move | length | first player |
|---|---|---|---|
| duel | technique performed (Wait and cancelled ones left out) | slots | none (simultaneous) |
| duell | movement card played (move, attack, parry, retreat), by value | duels | starter of duel 1 |
| combat | none (no choices) | battles | none (simultaneous) |
| parbaj | card used: placed, evolved, attached, field or coach placed, coach used, or whose ability was declared | rounds | starter of game 1 |
"""
from __future__ import annotations

from collections import Counter

from app.lab.spec import LabSpec
from games.bots import get_bot, play_match
from games.registry import get_game


class Tracker:
    """Per-match collector; subclasses read their game's events."""

    def __init__(self, seats: list[str]):
        self.moves = {s: Counter() for s in seats}
        self.actions = {s: Counter() for s in seats}
        self.lineup: dict[str, str | None] = dict.fromkeys(seats)
        self.first: str | None = None
        self.result: dict | None = None
        self.decisions = 0
        self.setup_left = 0  # the lab's own setup actions: their events count, they do not

    def step(self, state: dict, seat: str, action: dict, events: list[dict]) -> None:
        if self.setup_left:
            self.setup_left -= 1
        else:
            self.decisions += 1
            self.actions[seat][self.action_label(action)] += 1
        for e in events:
            if e["type"] == "match_end":
                self.result = e["result"]
            self.event(state, seat, action, e)

    def action_label(self, action: dict) -> str:
        return action["type"]

    def event(self, state: dict, seat: str, action: dict, e: dict) -> None:
        pass

    def length(self) -> int:
        return self.decisions


class DuelTracker(Tracker):
    def action_label(self, action: dict) -> str:
        t = action["type"]
        if t == "footwork":
            return f"footwork:{action['move']}"
        if t == "dodge":
            return "dodge:yes" if action["dodge"] else "dodge:no"
        return t

    def event(self, state, seat, action, e):
        t = e["type"]
        # A technique hidden by the sun is two events: the real one (for its owner) and one
        # with technique None (for the others); the real one is counted.
        if t == "technique" and e.get("technique") and e["status"] == "performed":
            self.moves[e["seat"]][e["technique"]] += 1
        elif t == "duellist":
            self.lineup[e["seat"]] = e["duellist"]

    def length(self) -> int:
        return self.result.get("slot", 0) if self.result else 0


class DuellTracker(Tracker):
    def __init__(self, seats):
        super().__init__(seats)
        self.duels = 0

    def step(self, state, seat, action, events):
        # The first duel starts inside setup (its events are not kept): its starter is the
        # seat that makes the match's first decision (public: the view's "starter").
        if self.first is None and self.decisions == 0:
            self.first = seat
        super().step(state, seat, action, events)

    def event(self, state, seat, action, e):
        t = e["type"]
        if t == "duel_end":
            self.duels += 1
        elif t in ("move", "retreat"):
            self.moves[e["seat"]][str(e["card"])] += 1
        elif t in ("attack", "parry"):
            for c in e["cards"]:
                self.moves[e["seat"]][str(c)] += 1
        elif t == "advance_attack":
            for c in [e["move"]] + list(e["cards"]):
                self.moves[e["seat"]][str(c)] += 1

    def length(self) -> int:
        return self.duels


class CombatTracker(Tracker):
    def length(self) -> int:
        return self.result.get("battles", 0) if self.result else 0


class ParbajTracker(Tracker):
    CARD_EVENTS = ("placed", "evolved", "attached", "field_placed", "coach_placed", "coach_used")

    def event(self, state, seat, action, e):
        t = e["type"]
        if t == "game_start" and e["game"] == 1:
            self.first = e["starter"]
        elif t in self.CARD_EVENTS:
            self.moves[e["seat"]][e["card"]] += 1
        elif t == "declared":
            # The declaring creature is still on the battlefield: a declaration never resolves
            # the round by itself (the other player's pass or declaration comes first).
            self.moves[e["seat"]][state["creatures"][e["creature"]]["card"]] += 1

    def length(self) -> int:
        if not self.result:
            return 0
        return sum(g["rounds"] for g in self.result.get("games", []))


TRACKERS = {"duel": DuelTracker, "duell": DuellTracker, "combat": CombatTracker,
            "parbaj": ParbajTracker}


def _setup_actions(game_id: str, lineup: dict[str, str]) -> list[tuple[str, dict]]:
    """The choices the lab makes for the seats before the bots play."""
    if game_id == "duel":
        return [(s, {"type": "duellist", "duellist": d}) for s, d in lineup.items()]
    if game_id == "parbaj":
        return [(s, {"type": "choose_deck", "deck": d}) for s, d in lineup.items()]
    return []


def outcomes(result: dict, seats: list[str]) -> dict[str, str]:
    """win / loss / draw per seat: a draw when every seat shares first place; otherwise the
    seats in first place win (several, if they tie for it) and the rest lose."""
    places = result["places"]
    if all(places[s] == 1 for s in seats):
        return dict.fromkeys(seats, "draw")
    return {s: "win" if places[s] == 1 else "loss" for s in seats}


def play_one(spec: LabSpec, i: int, options: dict | None = None) -> dict:
    """Play match ``i`` of the run (with ``options`` instead of the spec's, for the compared
    rule set) and return its record."""
    game = get_game(spec.game)
    seats = spec.seat_list()
    levels = spec.bots_for(i)
    bots = {s: get_bot(spec.game, levels[s], spec.budget if levels[s] == "strong" else None)
            for s in seats}
    opts, variant = spec.options_for(i, options)
    lineup = spec.lineup_for(i)
    tracker = TRACKERS[spec.game](seats)
    for s, name in lineup.items():
        tracker.lineup[s] = name
    seed = spec.match_seed(i)
    setup = _setup_actions(spec.game, lineup)
    tracker.setup_left = len(setup)
    state = play_match(game, bots, seed, opts, setup_actions=setup, on_step=tracker.step)
    result = game.result(state)
    tracker.result = result
    return {
        "i": i,
        "seed": seed,
        "variant": variant,
        "bots": levels,
        "lineup": dict(tracker.lineup),
        "outcome": outcomes(result, seats),
        "draw": bool(result["draw"]),
        "reason": result.get("reason"),
        "first": tracker.first,
        "length": tracker.length(),
        "decisions": tracker.decisions,
        "moves": {s: dict(c) for s, c in tracker.moves.items()},
        "actions": {s: dict(c) for s, c in tracker.actions.items()},
    }


def play_chunk(spec_dict: dict, indices: list[int], options: dict | None = None) -> list[dict]:
    """Worker entry point (module level, so a process pool can pickle it)."""
    spec = LabSpec.from_dict(spec_dict)
    return [play_one(spec, i, options) for i in indices]
