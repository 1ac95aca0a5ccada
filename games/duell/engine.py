"""Duell (Reiner Knizia's fencing card game): Prologo and Tenzone, with the 8 special cards.

The rules as implemented are in docs/rules/duell.md (the project's shared rulings win where
they differ). State layout (JSON only):

    pos         {seat: space}          seats[0] starts on 1 and faces up, seats[1] on L, down
    hands       {seat: [int]}          always sorted (order carries no information)
    deck        [int]                  draw pile, the top is the END of the list
    aside       [int]                  cards set aside by "Ten cards" (never shown)
    discard     [int]                  cards played this duel, in order
    special     str | None             special card turned up for this duel
    rule        str | None             rule in force (None while the starter chooses)
    hand_size   int
    phase       "choose_special" | "play" | "defend" | "over"
    active      seat                   who decides now
    attack      None | {by, value, count, move}   the attack waiting for an answer
    deck_out    bool                   the last card was drawn; only a parry may follow
    duel, starter, score, last_duel
"""
from __future__ import annotations

from games.base import (
    CLOCK_OPTION,
    MAX_TIMEOUTS_OPTION,
    OMNISCIENT,
    SPECTATOR,
    Event,
    Game,
    IllegalAction,
    Option,
    State,
    clone,
    event,
    rng,
)

from . import tables as T

OPTIONS = (
    Option("mode", str, "prologo", "prologo (light) or tenzone (full).", choices=T.MODES),
    Option("duels_to_win", int, 5, "Duels needed to win the match.", 1, 9),
    Option("track_length", int, 23, "Spaces on the track.", 15, 31),
    Option("special_cards", bool, True, "Tenzone: turn up a special card before each duel."),
    CLOCK_OPTION,
    MAX_TIMEOUTS_OPTION,
)

ACTION_FIELDS = {
    "move": {"type", "card", "dir"},
    "attack": {"type", "cards"},
    "advance_attack": {"type", "move", "cards"},
    "parry": {"type"},
    "retreat": {"type", "card"},
    "choose_special": {"type", "card"},
}


# ------------------------------------------------------------------------------------------
# Small helpers
# ------------------------------------------------------------------------------------------
def _other(state: State, seat: str) -> str:
    a, b = state["seats"]
    return b if seat == a else a


def _distance(state: State) -> int:
    a, b = state["seats"]
    return state["pos"][b] - state["pos"][a]


def _advance(state: State, seat: str) -> int:
    """How far ``seat``'s fencer stands from its own starting square."""
    if seat == state["seats"][0]:
        return state["pos"][seat] - 1
    return state["options"]["track_length"] - state["pos"][seat]


def _target(state: State, seat: str, card: int, direction: str) -> int | None:
    """Where a move lands, or None when it leaves the track or reaches/passes the opponent."""
    first = seat == state["seats"][0]
    step = card if direction == "forward" else -card
    here = state["pos"][seat]
    to = here + step if first else here - step
    if to < 1 or to > state["options"]["track_length"]:
        return None
    opp = state["pos"][_other(state, seat)]
    if (first and to >= opp) or (not first and to <= opp):
        return None
    return to


def _back_allowed(state: State) -> bool:
    return state["rule"] != "no_retreat"


def _int(value) -> bool:
    return type(value) is int


def _card_list(value, what: str) -> list[int]:
    if not isinstance(value, list) or not value:
        raise IllegalAction(f"'{what}' must be a non-empty list of card values.")
    for v in value:
        if not _int(v) or not 1 <= v <= 5:
            raise IllegalAction(f"'{what}' must contain card values from 1 to 5.")
    return value


def _check_fields(action: dict) -> None:
    kind = action["type"]
    want = ACTION_FIELDS.get(kind)
    if want is None:
        raise IllegalAction(f"Unknown action type '{kind}'.")
    have = set(action)
    if have != want:
        missing = sorted(want - have)
        extra = sorted(have - want)
        parts = []
        if missing:
            parts.append("missing " + ", ".join(f"'{m}'" for m in missing))
        if extra:
            parts.append("unexpected " + ", ".join(f"'{x}'" for x in extra))
        raise IllegalAction(f"'{kind}' action: {'; '.join(parts)}.")


def _take(hand: list[int], cards: list[int]) -> None:
    """Remove ``cards`` from ``hand`` or raise without touching it."""
    for v in set(cards):
        if hand.count(v) < cards.count(v):
            n = cards.count(v)
            raise IllegalAction(
                f"You do not hold {n} card{'s' if n > 1 else ''} of value {v}."
            )
    for v in cards:
        hand.remove(v)


# ------------------------------------------------------------------------------------------
# The engine
# ------------------------------------------------------------------------------------------
class Duell(Game):
    # ---- setup and duel lifecycle ------------------------------------------------------
    def _setup(self, state: State) -> None:
        seats = state["seats"]
        state.update(
            {
                "score": dict.fromkeys(seats, 0),
                "duel": 0,
                "starter": None,
                "pos": {},
                "hands": {s: [] for s in seats},
                "deck": [],
                "aside": [],
                "discard": [],
                "special": None,
                "rule": None,
                "hand_size": T.HAND_SIZE,
                "phase": "play",
                "active": None,
                "attack": None,
                "deck_out": False,
                "last_duel": None,
            }
        )
        # The first duel's starter is drawn at random. Setup events are not kept: the first
        # view shows everything they would say.
        self._start_duel(state, rng(state).choice(seats), [])

    def _start_duel(self, state: State, starter: str, events: list[Event]) -> None:
        opts = state["options"]
        a, b = state["seats"]
        state["duel"] += 1
        state["starter"] = starter
        state["pos"] = {a: 1, b: opts["track_length"]}
        state["hands"] = {a: [], b: []}
        state["discard"] = []
        state["aside"] = []
        state["deck"] = []
        state["attack"] = None
        state["deck_out"] = False
        special = None
        if opts["mode"] == "tenzone" and opts["special_cards"]:
            special = rng(state).choice(T.SPECIAL_DECK)
        state["special"] = special
        state["rule"] = None if special == "starters_choice" else special
        state["active"] = starter
        events.append(
            event("duel_start", duel=state["duel"], starter=starter, special=special,
                  score=dict(state["score"]))
        )
        if special == "starters_choice":
            # Ruling (ours): the starter chooses before the cards are dealt.
            state["phase"] = "choose_special"
            return
        self._deal(state, events)

    def _deal(self, state: State, events: list[Event]) -> None:
        rule = state["rule"]
        state["hand_size"] = T.HAND_SIZE_BY_RULE.get(rule, T.HAND_SIZE)
        deck = list(T.MOVEMENT_DECK)
        rng(state).shuffle(deck)
        starter = state["starter"]
        order = (starter, _other(state, starter))
        for seat in order:
            n = state["hand_size"]
            cards = sorted(deck[-n:])
            del deck[-n:]
            state["hands"][seat] = cards
            self._card_events(state, events, "deal", seat, cards, len(deck))
        if rule == "ten_cards":
            state["aside"] = deck[: -T.TEN_CARDS_PILE]
            deck = deck[-T.TEN_CARDS_PILE :]
            events.append(
                event("set_aside", count=len(state["aside"]), deck_count=len(deck))
            )
        state["deck"] = deck
        self._begin_turn(state, starter, events)

    def _card_events(
        self, state: State, events: list[Event], kind: str, seat: str, cards: list[int], left: int
    ) -> None:
        """A deal or draw: the drawer sees the cards, the others a count (all under Open hands)."""
        if state["rule"] == "open_hands":
            events.append(event(kind, seat=seat, count=len(cards), cards=cards, deck_count=left))
            return
        events.append(
            event(kind, vis=[seat], seat=seat, count=len(cards), cards=cards, deck_count=left)
        )
        events.append(
            event(kind, vis=[_other(state, seat), SPECTATOR], seat=seat, count=len(cards),
                  deck_count=left)
        )

    def _draw(self, state: State, seat: str, events: list[Event]) -> bool:
        """Refill ``seat``'s hand (as many cards as it played). True when the last card went."""
        hand = state["hands"][seat]
        deck = state["deck"]
        n = min(state["hand_size"] - len(hand), len(deck))
        if n <= 0:
            return False
        cards = sorted(deck[-n:])
        del deck[-n:]
        hand.extend(cards)
        hand.sort()
        self._card_events(state, events, "draw", seat, cards, len(deck))
        return not deck

    def _begin_turn(self, state: State, seat: str, events: list[Event]) -> None:
        state["phase"] = "play"
        state["active"] = seat
        if not self._has_play(state, seat):
            events.append(event("no_legal_play", seat=seat))
            self._end_duel(state, _other(state, seat), "no_legal_play", events)

    def _end_duel(self, state: State, winner: str | None, reason: str, events: list[Event],
                  **extra) -> None:
        score = state["score"]
        if winner is not None:
            score[winner] += 1
        info = {"duel": state["duel"], "winner": winner, "reason": reason, **extra}
        state["last_duel"] = info
        state["attack"] = None
        events.append(event("duel_end", score=dict(score), **info))
        if winner is not None and score[winner] >= state["options"]["duels_to_win"]:
            state["phase"] = "over"
            state["active"] = None
            places = {s: (1 if s == winner else 2) for s in state["seats"]}
            events.append(self.finish(state, places, "duels", score=dict(score)))
            return
        if winner is not None:
            starter = _other(state, winner)  # the loser starts the next duel
        else:
            starter = _other(state, state["starter"])  # no winner: the starter alternates
        self._start_duel(state, starter, events)

    def _deck_out(self, state: State, events: list[Event]) -> None:
        """The last card was drawn and nothing is left to answer: score the duel."""
        seats = state["seats"]
        d = _distance(state)
        adv = {s: _advance(state, s) for s in seats}
        if state["options"]["mode"] == "prologo":
            a, b = seats
            winner = a if adv[a] > adv[b] else b if adv[b] > adv[a] else None
            self._end_duel(state, winner, "deck_out", events, decided_by="advance",
                           advance=adv, distance=d)
            return
        hands = {s: list(state["hands"][s]) for s in seats}
        events.append(event("reveal", hands=hands, distance=d))
        a, b = seats
        counts = {s: hands[s].count(d) if 1 <= d <= 5 else 0 for s in seats}
        if 1 <= d <= 5 and counts[a] != counts[b]:
            winner = a if counts[a] > counts[b] else b
            decided_by = "cards"
        else:
            winner = a if adv[a] > adv[b] else b if adv[b] > adv[a] else None
            decided_by = "advance"
        self._end_duel(state, winner, "deck_out", events, decided_by=decided_by,
                       advance=adv, distance=d, counts=counts, hands=hands)

    # ---- what can be played ------------------------------------------------------------
    def _has_play(self, state: State, seat: str) -> bool:
        hand = state["hands"][seat]
        if _distance(state) in hand:
            return True
        back = _back_allowed(state)
        for v in set(hand):
            if _target(state, seat, v, "forward") is not None:
                return True
            if back and _target(state, seat, v, "back") is not None:
                return True
        return False

    def _defence_options(self, state: State, seat: str) -> list[dict]:
        att = state["attack"]
        hand = state["hands"][seat]
        out: list[dict] = []
        if hand.count(att["value"]) >= att["count"]:
            out.append({"type": "parry"})
        if att["move"] is not None and _back_allowed(state) and not state["deck_out"]:
            for v in sorted(set(hand)):
                if _target(state, seat, v, "back") is not None:
                    out.append({"type": "retreat", "card": v})
        return out

    def _play_options(self, state: State, seat: str) -> list[dict]:
        hand = state["hands"][seat]
        values = sorted(set(hand))
        back = _back_allowed(state)
        out: list[dict] = []
        for v in values:
            if back and _target(state, seat, v, "back") is not None:
                out.append({"type": "move", "card": v, "dir": "back"})
            if _target(state, seat, v, "forward") is not None:
                out.append({"type": "move", "card": v, "dir": "forward"})
        d = _distance(state)
        have = hand.count(d)
        if state["options"]["mode"] == "prologo":
            if have:
                out.append({"type": "attack", "cards": [d]})
            return out
        for k in range(1, have + 1):
            out.append({"type": "attack", "cards": [d] * k})
        for m in values:
            if _target(state, seat, m, "forward") is None:
                continue
            nd = d - m
            k_max = hand.count(nd) - (1 if nd == m else 0)
            for k in range(1, k_max + 1):
                out.append({"type": "advance_attack", "move": m, "cards": [nd] * k})
        return out

    # ---- contract hooks ----------------------------------------------------------------
    def _pending(self, state: State) -> dict[str, str]:
        if state["phase"] == "over" or state["active"] is None:
            return {}
        return {state["active"]: state["phase"]}

    def _legal(self, state: State, seat: str) -> list[dict]:
        phase = state["phase"]
        if phase == "choose_special":
            return [{"type": "choose_special", "card": c} for c in T.CHOOSABLE_RULES]
        if phase == "defend":
            return self._defence_options(state, seat)
        if phase == "play":
            return self._play_options(state, seat)
        return []

    def default_action(self, state: State, seat: str) -> dict:
        """The clock's move: parry if defending (else the smallest retreat); on a turn the
        smallest card backwards, else the smallest forwards; never an attack while a move
        exists. When an attack is the only legal play, the smallest one (no passing)."""
        phase = state["phase"]
        if phase == "choose_special":
            return {"type": "choose_special", "card": T.DEFAULT_CHOICE}
        legal = self._legal(state, seat)
        if phase == "defend":
            return legal[0]  # parry comes first, then retreats by card value
        moves = [a for a in legal if a["type"] == "move"]
        back = [a for a in moves if a["dir"] == "back"]
        if back:
            return min(back, key=lambda a: a["card"])
        if moves:
            return min(moves, key=lambda a: a["card"])
        return min(legal, key=lambda a: len(a["cards"]))

    def _apply(self, state: State, seat: str, action: dict) -> list[Event]:
        _check_fields(action)
        kind = action["type"]
        phase = state["phase"]
        events: list[Event] = []
        if phase == "choose_special":
            if kind != "choose_special":
                raise IllegalAction("First choose the special rule for this duel.")
            self._do_choose(state, seat, action, events)
        elif phase == "defend":
            if kind == "parry":
                self._do_parry(state, seat, events)
            elif kind == "retreat":
                self._do_retreat(state, seat, action, events)
            else:
                raise IllegalAction("You are under attack: parry, or retreat where allowed.")
        else:
            if kind == "move":
                self._do_move(state, seat, action, events)
            elif kind == "attack":
                self._do_attack(state, seat, action, events)
            elif kind == "advance_attack":
                self._do_advance_attack(state, seat, action, events)
            elif kind == "choose_special":
                raise IllegalAction("The special rule for this duel is already set.")
            else:
                raise IllegalAction("There is no attack to answer: move or attack.")
        return events

    # ---- actions -----------------------------------------------------------------------
    def _do_choose(self, state: State, seat: str, action: dict, events: list[Event]) -> None:
        card = action["card"]
        if not isinstance(card, str) or card not in T.CHOOSABLE_RULES:
            raise IllegalAction(
                "Choose one of: " + ", ".join(T.CHOOSABLE_RULES) + "."
            )
        state["rule"] = card
        events.append(event("special_chosen", seat=seat, rule=card))
        self._deal(state, events)

    def _check_move(self, state: State, seat: str, card, direction) -> int:
        if not _int(card) or not 1 <= card <= 5:
            raise IllegalAction("'card' must be a card value from 1 to 5.")
        if direction not in T.DIRECTIONS:
            raise IllegalAction("'dir' must be 'forward' or 'back'.")
        if card not in state["hands"][seat]:
            raise IllegalAction(f"You do not hold a {card}.")
        if direction == "back" and not _back_allowed(state):
            raise IllegalAction("No retreat is in force: you may not move backwards.")
        to = _target(state, seat, card, direction)
        if to is None:
            if direction == "back":
                raise IllegalAction(f"Moving back {card} would leave the track.")
            raise IllegalAction(
                f"Moving forward {card} would land on or pass your opponent."
            )
        return to

    def _do_move(self, state: State, seat: str, action: dict, events: list[Event]) -> None:
        card, direction = action["card"], action["dir"]
        to = self._check_move(state, seat, card, direction)
        frm = state["pos"][seat]
        state["hands"][seat].remove(card)
        state["discard"].append(card)
        state["pos"][seat] = to
        events.append(event("move", seat=seat, card=card, dir=direction, to=to, **{"from": frm}))
        self._end_turn(state, seat, events)

    def _end_turn(self, state: State, seat: str, events: list[Event]) -> None:
        """Draw back up; the last card ends the duel, else the opponent's turn begins."""
        if self._draw(state, seat, events):
            state["deck_out"] = True
            events.append(event("deck_empty", seat=seat))
            self._deck_out(state, events)
            return
        self._begin_turn(state, _other(state, seat), events)

    def _do_attack(self, state: State, seat: str, action: dict, events: list[Event]) -> None:
        cards = _card_list(action["cards"], "cards")
        d = _distance(state)
        prologo = state["options"]["mode"] == "prologo"
        if prologo and len(cards) != 1:
            raise IllegalAction("In Prologo a hit is exactly one card.")
        if any(v != d for v in cards):
            raise IllegalAction(
                f"Every attacking card must equal the distance to your opponent ({d})."
            )
        _take(state["hands"][seat], cards)
        state["discard"].extend(cards)
        events.append(event("attack", seat=seat, cards=list(cards), distance=d))
        if prologo:
            self._end_duel(state, seat, "hit", events)
            return
        state["attack"] = {"by": seat, "value": d, "count": len(cards), "move": None}
        self._after_attack(state, seat, events)

    def _do_advance_attack(self, state: State, seat: str, action: dict,
                           events: list[Event]) -> None:
        if state["options"]["mode"] != "tenzone":
            raise IllegalAction("Advance-and-attack is played in Tenzone only.")
        m = action["move"]
        if not _int(m) or not 1 <= m <= 5:
            raise IllegalAction("'move' must be a card value from 1 to 5.")
        cards = _card_list(action["cards"], "cards")
        # (state is base's private copy: a later IllegalAction discards these changes)
        _take(state["hands"][seat], [m] + cards)
        to = _target(state, seat, m, "forward")
        if to is None:
            raise IllegalAction(f"Moving forward {m} would land on or pass your opponent.")
        nd = abs(state["pos"][_other(state, seat)] - to)
        if any(v != nd for v in cards):
            raise IllegalAction(
                f"After moving {m} the distance is {nd}: every attacking card must equal it."
            )
        frm = state["pos"][seat]
        state["discard"].append(m)
        state["discard"].extend(cards)
        state["pos"][seat] = to
        events.append(event("advance_attack", seat=seat, move=m, to=to, cards=list(cards),
                            distance=nd, **{"from": frm}))
        state["attack"] = {"by": seat, "value": nd, "count": len(cards), "move": m}
        self._after_attack(state, seat, events)

    def _after_attack(self, state: State, seat: str, events: list[Event]) -> None:
        """The attacker's turn ends (draw); the defender must answer or is hit."""
        if self._draw(state, seat, events):
            state["deck_out"] = True
            events.append(event("deck_empty", seat=seat))
        defender = _other(state, seat)
        if not self._defence_options(state, defender):
            self._end_duel(state, seat, "hit", events)
            return
        state["phase"] = "defend"
        state["active"] = defender

    def _do_parry(self, state: State, seat: str, events: list[Event]) -> None:
        att = state["attack"]
        cards = [att["value"]] * att["count"]
        hand = state["hands"][seat]
        if hand.count(att["value"]) < att["count"]:
            raise IllegalAction(
                f"To parry you need {att['count']} card(s) of value {att['value']}."
            )
        _take(hand, cards)
        state["discard"].extend(cards)
        state["attack"] = None
        events.append(event("parry", seat=seat, cards=cards))
        if state["deck_out"]:
            self._deck_out(state, events)
            return
        # The exchange goes on: the defender's own turn, drawing for the parry at its end.
        self._begin_turn(state, seat, events)

    def _do_retreat(self, state: State, seat: str, action: dict, events: list[Event]) -> None:
        att = state["attack"]
        if att["move"] is None:
            raise IllegalAction("You may retreat only from an advance-and-attack.")
        if not _back_allowed(state):
            raise IllegalAction("No retreat is in force: you must parry.")
        if state["deck_out"]:
            raise IllegalAction("The draw pile is empty: no more moves, you must parry.")
        card = action["card"]
        to = self._check_move(state, seat, card, "back")
        frm = state["pos"][seat]
        state["hands"][seat].remove(card)
        state["discard"].append(card)
        state["pos"][seat] = to
        state["attack"] = None
        events.append(event("retreat", seat=seat, card=card, to=to, **{"from": frm}))
        self._begin_turn(state, seat, events)

    # ---- results and views -------------------------------------------------------------
    def _forfeit(self, state: State, seat: str, reason: str) -> list[Event]:
        places = {s: (2 if s == seat else 1) for s in state["seats"]}
        state["phase"] = "over"
        state["active"] = None
        return [
            event("forfeit", seat=seat, reason=reason),
            self.finish(state, places, reason, score=dict(state["score"])),
        ]

    def _view(self, state: State, viewer: str) -> dict:
        seats = state["seats"]
        omni = viewer == OMNISCIENT
        open_hands = state["rule"] == "open_hands"
        hands = {
            s: (list(h) if (omni or open_hands or s == viewer) else None)
            for s, h in state["hands"].items()
        }
        att = state["attack"]
        opts = state["options"]
        view = {
            "mode": opts["mode"],
            "track_length": opts["track_length"],
            "duels_to_win": opts["duels_to_win"],
            "duel": state["duel"],
            "score": dict(state["score"]),
            "starter": state["starter"],
            "positions": dict(state["pos"]),
            "starts": {seats[0]: 1, seats[1]: opts["track_length"]},
            "distance": _distance(state),
            "hand": hands.get(viewer),
            "hands": hands,
            "hand_sizes": {s: len(h) for s, h in state["hands"].items()},
            "hand_limit": state["hand_size"],
            "deck_count": len(state["deck"]),
            "aside_count": len(state["aside"]),
            "discard": list(state["discard"]),
            "special": state["special"],
            "rule": state["rule"],
            "phase": state["phase"],
            "active": state["active"],
            "attack": None if att is None else {
                "by": att["by"], "cards": [att["value"]] * att["count"],
                "value": att["value"], "count": att["count"], "move": att["move"],
            },
            "deck_out": state["deck_out"],
            "last_duel": clone(state["last_duel"]),
            "timeouts": dict(state["timeouts"]),
            "result": clone(state["result"]),
        }
        if omni:
            view["deck"] = list(state["deck"])
            view["aside"] = list(state["aside"])
            view["seed"] = state["seed"]
        return view

