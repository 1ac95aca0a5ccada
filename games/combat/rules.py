"""Combat rule tables, as data. The engine reads them; the tests play through them."""
from __future__ import annotations

from typing import Any

# One deck: values 1-10, four of each (40 cards). Option `decks: 2` doubles it.
CARD_VALUES = tuple(range(1, 11))
COPIES_PER_DECK = 4
DECK_SIZE = len(CARD_VALUES) * COPIES_PER_DECK

# Default number of decks by table size (option `decks: null`).
DEFAULT_DECKS = {2: 1, 3: 1, 4: 1, 5: 2, 6: 2}

# Cards laid face down in each round of a war, before the new attack.
WAR_FACE_DOWN = 3

# Attack variants: how many cards an attack turns up, and how they combine.
#   card     - a single card, its value
#   sum      - the sum of the cards
#   subtract - larger minus smaller (a lone card has no defence: its own value)
#   multiply - the product of the cards
VARIANTS: dict[str, dict[str, Any]] = {
    "basic": {"cards": 1, "op": "card"},
    "extra": {"cards": 2, "op": "sum"},
    "advanced": {"cards": None, "op": "sum"},  # None: option `advanced_cards` (3 or 4)
    "versus": {"cards": 2, "op": "subtract"},
    "multiply": {"cards": 2, "op": "multiply"},
}

ENDINGS = ("prisoners", "surrender")

# Piles are stored as strings, one character per card (top of a draw pile = last character):
# immutable, so cloning the state costs nothing per card. "T" is 10.
CARD_CHARS = "123456789T"
CHAR_VALUE = {c: i + 1 for i, c in enumerate(CARD_CHARS)}


def encode(cards) -> str:
    return "".join(CARD_CHARS[c - 1] for c in cards)


def decode(pile: str) -> list[int]:
    return [CHAR_VALUE[c] for c in pile]
