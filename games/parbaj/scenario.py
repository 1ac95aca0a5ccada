"""Helpers to reach a given battlefield through the real ``apply`` path (tests, bots, demos).

    st = start(["ember_pup", "tide_otter"], ["pebble_golem"], fields_a=["volcano"])
    # -> round 1, preparation, A to act; A has Ember Pup in reserve and Tide Otter in front.

Decks are built automatically from what is placed plus ``hand_a``/``hand_b`` (extra cards kept in
hand), and passed through the ``decks`` option (so they are validated like any deck)."""
from __future__ import annotations

from games.base import filter_events
from games.parbaj.engine import GAME


def step(state: dict, seat: str, action: dict, log: list | None = None) -> dict:
    new, events = GAME.apply(state, seat, action)
    if log is not None:
        log.extend(filter_events(events, "omniscient"))
    return new


def start(place_a: list[str], place_b: list[str], *, fields_a=(), fields_b=(), coach_a=None,
          coach_b=None, hand_a=(), hand_b=(), starter: str = "A", seed: int = 0,
          options: dict | None = None, log: list | None = None) -> dict:
    """Place ``place_x`` (reserve first, the last one in front), the fields and coaches, and stop
    at round 1's preparation phase. ``starter`` starts the game (and so round 1)."""
    deck_a = list(place_a) + list(fields_a) + ([coach_a] if coach_a else []) + list(hand_a)
    deck_b = list(place_b) + list(fields_b) + ([coach_b] if coach_b else []) + list(hand_b)
    opts = dict(options or {})
    opts["decks"] = {"A": deck_a, "B": deck_b}
    st = GAME.setup(opts, ["A", "B"], seed)
    st = step(st, st["die_winner"], {"type": "choose_first", "seat": starter}, log)
    todo = {"A": list(place_a), "B": list(place_b)}
    while st["phase"] == "place":
        seat = st["active"]
        card = todo[seat].pop(0)
        slot = "frontline" if not todo[seat] else "reserve"
        st = step(st, seat, {"type": "place", "card": card, "slot": slot}, log)
    extra = {"A": (fields_a, coach_a), "B": (fields_b, coach_b)}
    while st["phase"] == "cards":
        seat = st["active"]
        fields, coach = extra[seat]
        for f in fields:
            st = step(st, seat, {"type": "place_field", "card": f}, log)
        if coach:
            st = step(st, seat, {"type": "place_coach", "card": coach}, log)
        st = step(st, seat, {"type": "done"}, log)
    return st


def give_tokens(state: dict, seat: str, tokens: dict) -> dict:
    """Test setup shortcut: add tokens to a seat's pool (returns a changed copy)."""
    from games.base import clone

    st = clone(state)
    pool = st["players"][seat]["tokens"]
    for t, n in tokens.items():
        pool[t] = pool.get(t, 0) + n
    return st


def prep_done(state: dict, log: list | None = None, token: dict | None = None) -> dict:
    """Finish the preparation phase for both seats (taking the first token type, or
    ``token[seat]``) and return the state at the start of combat."""
    st = state
    while st["phase"] == "prep":
        seat = st["active"]
        if not st["players"][seat]["took_token"]:
            legal = GAME.legal(st, seat)
            t = (token or {}).get(seat, legal[0]["token"])
            st = step(st, seat, {"type": "take_token", "token": t}, log)
        st = step(st, seat, {"type": "done"}, log)
    return st


def combat(state: dict, declares: dict, log: list | None = None, bonus: dict | None = None) -> dict:
    """Play the combat phase: ``declares[seat]`` is a list of declare actions (without "type");
    each seat then passes (with ``bonus[seat]`` as the bonus token when it declared nothing)."""
    st = state
    while st["phase"] == "combat":
        seat = st["active"]
        for d in declares.get(seat, []):
            full = {"type": "declare", "target": None, "token": None, **d}
            st = step(st, seat, full, log)
        p = st["players"][seat]
        if not p["declared"] and p["fields"]:
            t = (bonus or {}).get(seat) or GAME.legal(st, seat)[-1]["token"]
            st = step(st, seat, {"type": "pass", "token": t}, log)
        else:
            st = step(st, seat, {"type": "pass"}, log)
    return st


def uid_of(state: dict, seat: str, card: str) -> str:
    """The battlefield id of ``seat``'s creature whose current card is ``card``."""
    for uid, cr in state["creatures"].items():
        if uid[0] == seat and cr["card"] == card:
            return uid
    raise KeyError(f"{seat} has no {card} on the battlefield")


def of_type(events: list, kind: str) -> list:
    return [e for e in events if e["type"] == kind]
