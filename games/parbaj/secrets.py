"""What a Párbaj viewer may not know, for the contract suite's differential no-leak check
(tests/games/test_contract.py): the other seat's hand and deck list (before the game starts,
its whole deck), its deck's name and its promotion choice while both have not chosen."""
from __future__ import annotations

import random
from collections import Counter

from games.base import OMNISCIENT, clone

from .cardpool import CARDS

_ALL_IDS = sorted(CARDS)


def _hand(p: dict) -> list[str]:
    return p["hand"].split(",") if p["hand"] else []


def _perturb(st: dict, seat: str, rnd: random.Random) -> None:
    """``seat``'s hidden cards changed in place: other hand contents (same size) and its deck
    list changed to match; before the game starts, the whole deck."""
    if st["decks"][seat] is None:
        return
    p = st["players"][seat]
    hand = _hand(p)
    deck = Counter(st["decks"][seat].split(","))
    if not hand and (st["phase"] == "deck" or p["front"] is None):
        st["decks"][seat] = ",".join(rnd.choice(_ALL_IDS) for _ in range(sum(deck.values())))
    else:
        new = [rnd.choice(_ALL_IDS) for _ in hand]
        deck.subtract(Counter(hand))
        deck.update(Counter(new))
        st["decks"][seat] = ",".join(sorted(deck.elements()))
        p["hand"] = ",".join(sorted(new))
    st["deck_names"][seat] = rnd.choice(["Other", None, "Custom deck"])


def secret_variant(state: dict, viewer: str, rnd: random.Random) -> dict | None:
    if viewer == OMNISCIENT or state["result"] is not None:
        return None
    other = clone(state)
    for s in state["seats"]:
        if s != viewer:
            _perturb(other, s, rnd)
    return other if other != state else None


def reveals(event: dict, viewer: str) -> bool:
    """No event shows a hidden card by itself: a card comes out when it is played, and then
    it was in the hand of both worlds (a move the other hand cannot make ends the comparison).
    The deck lists open when the match is over (``open_deck_lists``)."""
    return False
