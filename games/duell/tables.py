"""Duell rule tables: the material of the game as data (see docs/rules/duell.md)."""
from __future__ import annotations

# Movement deck: five copies of each value 1..5 (25 cards).
CARD_VALUES = (1, 2, 3, 4, 5)
COPIES_PER_VALUE = 5
MOVEMENT_DECK = tuple(v for v in CARD_VALUES for _ in range(COPIES_PER_VALUE))

HAND_SIZE = 5

# The 8 special cards (Tenzone only). One is turned up before each duel.
SPECIAL_DECK = (
    "three_cards",
    "three_cards",
    "no_retreat",
    "no_retreat",
    "open_hands",
    "ten_cards",
    "starters_choice",
    "starters_choice",
)
# What the starter may pick when "Starter's choice" is turned up (also the order of `legal`).
CHOOSABLE_RULES = ("three_cards", "no_retreat", "open_hands", "ten_cards")
# The rule the clock picks for an absent starter (Ruling (ours): the first of the list).
DEFAULT_CHOICE = CHOOSABLE_RULES[0]

# Rule effects.
HAND_SIZE_BY_RULE = {"three_cards": 3}
TEN_CARDS_PILE = 10  # "Ten cards": the draw pile is cut to this many cards after dealing.

MODES = ("prologo", "tenzone")
DIRECTIONS = ("forward", "back")
