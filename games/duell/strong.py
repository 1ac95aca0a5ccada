"""The strong Duell bot: card counting plus a two-ply look at sampled opponent hands.

It reads only the seat's view document (``games.bots.view_doc``). What it cannot see — the
opponent's hand, the draw pile's order, the cards set aside — it samples from the cards it has
not seen (25 movement cards minus its hand, the discard pile and any open hand): each sample
is one *determinization* of the view (``determinize`` builds the whole engine state of one).

For every legal action and every sample it asks two questions of that sampled world, with the
rules of docs/rules/duell.md written out small (``_kills``):

1. does the action win the duel outright (a hit in Prologo; in Tenzone an attack the sampled
   hand can neither parry nor retreat from)?
2. after it, can the opponent (holding the sampled hand) win the duel on their next turn?

An action's score is P(win now) − P(lose next) over the samples plus small positional terms
(ground gained counts at the end of the deck; holding cards that match likely distances). The
sampled hands are shared by all actions (common random numbers), so the comparison between
actions is sharper than the number of samples suggests.

``budget`` is the number of sampled hands per decision (default 32: a few ms a move).
"""
from __future__ import annotations

import random
from collections import Counter

from . import tables as T

DEFAULT_BUDGET = 32


# ------------------------------------------------------------------------------------------
# What the seat has not seen, and states consistent with its view
# ------------------------------------------------------------------------------------------
def _other(view: dict, seat: str) -> str:
    a, b = view["starts"]
    return b if seat == a else a


def unseen_cards(doc: dict) -> list[int]:
    """The movement cards the seat cannot see: opponent's hand (unless open), draw pile and
    the cards set aside, as one sorted list."""
    view, seat = doc["state"], doc["seat"]
    left = Counter(T.MOVEMENT_DECK)
    left.subtract(view["hand"] or [])
    left.subtract(view["discard"])
    opp = _other(view, seat)
    if view["hands"].get(opp) is not None:
        left.subtract(view["hands"][opp])
    return sorted(left.elements())


def determinize(doc: dict, rnd: random.Random) -> dict:
    """A full Duell state that gives exactly this view document to its seat: the unseen
    cards are shuffled into the opponent's hand, the draw pile and the set-aside pile."""
    view, seat = doc["state"], doc["seat"]
    opp = _other(view, seat)
    pool = unseen_cards(doc)
    rnd.shuffle(pool)
    hands = {seat: list(view["hand"] or [])}
    if view["hands"].get(opp) is not None:
        hands[opp] = list(view["hands"][opp])
    else:
        n = view["hand_sizes"][opp]
        hands[opp] = sorted(pool[:n])
        pool = pool[n:]
    # Before the deal (the starter choosing a special rule) no card is anywhere yet.
    aside = pool[: view["aside_count"]]
    deck = pool[view["aside_count"]: view["aside_count"] + view["deck_count"]]
    assert len(deck) == view["deck_count"], "the view's card counts do not add up"
    att = view["attack"]
    seats = list(view["starts"])
    return {
        "game": "duell",
        "options": dict(doc["options"]),
        "seats": seats,
        "seed": rnd.getrandbits(62),  # future chance (next duels' shuffles) is unknown too
        "rng_n": 0,
        "result": view["result"],
        "timeouts": dict(view["timeouts"]),
        "score": dict(view["score"]),
        "duel": view["duel"],
        "starter": view["starter"],
        "pos": dict(view["positions"]),
        "hands": {s: hands[s] for s in seats},
        "deck": deck,
        "aside": aside,
        "discard": list(view["discard"]),
        "special": view["special"],
        "rule": view["rule"],
        "hand_size": view["hand_limit"],
        "phase": view["phase"],
        "active": view["active"],
        "attack": None if att is None else {"by": att["by"], "value": att["value"],
                                            "count": att["count"], "move": att["move"]},
        "deck_out": view["deck_out"],
        "last_duel": view["last_duel"],
    }


# ------------------------------------------------------------------------------------------
# The rules, small: can the side to move win the duel at once?
# ------------------------------------------------------------------------------------------
def _can_answer(hand: Counter, value: int, count: int, advanced: bool, room: int,
                back_ok: bool) -> bool:
    """Can a defender holding ``hand`` parry (``count`` cards of ``value``) or, against an
    advance-and-attack, retreat (a card no larger than the ``room`` behind it)?"""
    if hand[value] >= count:
        return True
    if advanced and back_ok:
        return any(v <= room for v, n in hand.items() if n)
    return False


def _kills(att: Counter, dfn: Counter, dist: int, dfn_room: int, mode: str, back_ok: bool,
           deck_out: bool) -> bool:
    """Does the attacker (hand ``att``) have a hit the defender (hand ``dfn``, ``dfn_room``
    spaces behind it) cannot answer, at distance ``dist``?"""
    if mode == "prologo":
        return 1 <= dist <= 5 and att[dist] > 0
    if 1 <= dist <= 5 and att[dist] > dfn[dist]:
        return True
    retreat_ok = back_ok and not deck_out
    for m, n in att.items():
        if not n or m >= dist:
            continue
        nd = dist - m
        k = att[nd] - (1 if nd == m else 0)
        if k > 0 and not _can_answer(dfn, nd, k, True, dfn_room, retreat_ok):
            return True
    return False


# ------------------------------------------------------------------------------------------
# The bot
# ------------------------------------------------------------------------------------------
class StrongDuell:
    """``bot(view_doc, rnd) -> action``; see the module docstring."""

    def __init__(self, budget: int | None = None):
        self.budget = max(1, int(budget or DEFAULT_BUDGET))

    def __call__(self, doc: dict, rnd: random.Random) -> dict:
        legal = [a for a in doc["legal"] if a.get("type") != "resign"]
        if len(legal) <= 1:
            return dict(legal[0] if legal else doc["legal"][0])
        view = doc["state"]
        if view["phase"] == "choose_special":
            return self._choose_special(legal)
        samples = self._samples(doc, rnd)
        best, best_score = None, None
        for a in legal:
            s = self._score(doc, a, samples)
            if best_score is None or s > best_score + 1e-9:
                best, best_score = a, s
        assert best is not None  # legal is never empty for a seat that is asked
        return dict(best)

    # Open hands favours the side that counts cards; three cards shortens every exchange.
    _SPECIAL_ORDER = ("open_hands", "no_retreat", "ten_cards", "three_cards")

    def _choose_special(self, legal: list[dict]) -> dict:
        by = {a["card"]: a for a in legal}
        for c in self._SPECIAL_ORDER:
            if c in by:
                return dict(by[c])
        return dict(legal[0])

    def _samples(self, doc: dict, rnd: random.Random) -> list[tuple[Counter, list[int]]]:
        """(opponent hand, draw pile top first) per sample."""
        view, seat = doc["state"], doc["seat"]
        opp = _other(view, seat)
        pool = unseen_cards(doc)
        known = view["hands"].get(opp)
        n = view["hand_sizes"][opp]
        out = []
        for _ in range(self.budget if known is None else 1):
            rnd.shuffle(pool)
            if known is not None:
                rest = list(pool)
                hand = Counter(known)
            else:
                hand = Counter(pool[:n])
                rest = pool[n:]
            # The pile's top cards are a uniform draw of the rest (set-aside cards included:
            # the seat cannot tell them apart).
            out.append((hand, rest[: view["deck_count"]]))
        return out

    def _score(self, doc: dict, a: dict, samples) -> float:
        view, seat = doc["state"], doc["seat"]
        opp = _other(view, seat)
        mode = view["mode"]
        back_ok = view["rule"] != "no_retreat"
        track = view["track_length"]
        first_seat = next(iter(view["starts"]))
        first = seat == first_seat
        mine = Counter(view["hand"] or [])
        pos = dict(view["positions"])
        kind = a["type"]

        def room(s: str, p: dict) -> int:  # spaces behind ``s``: its advance from its start
            return p[s] - 1 if s == first_seat else track - p[s]

        if kind == "parry" or kind == "retreat":
            # We move again at once after either: prefer the parry (it keeps our ground), a
            # retreat that keeps more cards and ground otherwise.
            if kind == "parry":
                return 1.0
            return 0.5 - 0.01 * a["card"]
        new_pos = dict(pos)
        if kind == "move":
            v = a["card"]
            step = v if a["dir"] == "forward" else -v
            new_pos[seat] = pos[seat] + (step if first else -step)
            used = [v]
        elif kind == "attack":
            used = list(a["cards"])
        else:  # advance_attack
            v = a["move"]
            new_pos[seat] = pos[seat] + (v if first else -v)
            used = [v] + list(a["cards"])
        hand = mine.copy()
        for v in used:
            hand[v] -= 1
        dist = abs(new_pos[opp] - new_pos[seat])
        deck_n = view["deck_count"]
        last_draw = deck_n <= len(used)  # our draw empties the pile: the duel is scored
        adv_me, adv_opp = room(seat, new_pos), room(opp, new_pos)

        def deck_out_score(my_hand: Counter, opp_hand: Counter) -> float:
            if mode == "tenzone" and 1 <= dist <= 5 and my_hand[dist] != opp_hand[dist]:
                return 1.0 if my_hand[dist] > opp_hand[dist] else -1.0
            return 1.0 if adv_me > adv_opp else -1.0 if adv_opp > adv_me else 0.0

        total = 0.0
        for opp_hand, pile in samples:
            drawn = Counter(pile[len(pile) - min(len(used), len(pile)):])
            my_hand = hand + drawn
            if kind != "move":  # an attack
                if mode == "prologo":
                    total += 1
                    continue
                value, count = a["cards"][0], len(a["cards"])
                if not _can_answer(opp_hand, value, count, kind == "advance_attack",
                                   room(opp, new_pos), back_ok and not view["deck_out"]
                                   and not last_draw):
                    total += 1
                    continue
                reply = opp_hand.copy()
                if reply[value] >= count:
                    reply[value] -= count
                if last_draw or view["deck_out"]:
                    total += deck_out_score(my_hand, reply)
                elif _kills(reply, my_hand, dist, adv_me, mode, back_ok, False):
                    total -= 1  # parried, and the opponent moves again at once
                continue
            if last_draw:
                total += deck_out_score(my_hand, opp_hand)
            elif _kills(opp_hand, my_hand, dist, adv_me, mode, back_ok, False):
                total -= 1
        score = total / len(samples)
        # Ground gained decides a deck-out; it matters more as the pile runs low.
        score += 0.002 * (adv_me - room(seat, pos)) * (1 + 3 * (deck_n <= 6))
        # A distance the hand can hit next turn if the opponent holds still is good; several
        # cards of one value parry well.
        if 1 <= dist <= 5 and hand[dist]:
            score += 0.01
        score += 0.002 * max(hand.values(), default=0)
        return score


def make_bot(budget: int | None = None) -> StrongDuell:
    return StrongDuell(budget)
