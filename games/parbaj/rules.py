"""Rule tables for Párbaj (data, no logic). Everything the engine, the card schema and the deck
validator need to agree on lives here."""
from __future__ import annotations

ELEMENTS = ("fire", "water", "earth", "air", "light", "shadow")
NEUTRAL = "neutral"
TYPES = ELEMENTS + (NEUTRAL,)
ANY = "any"  # cost part payable with a token of any type
COST_KEYS = ELEMENTS + (ANY,)

LEVELS = (1, 2, 3)
ROMAN = {1: "I", 2: "II", 3: "III"}

# Deck building
MAX_DECK = 15
MAX_FIELDS = 2
MAX_COACHES = 1

# Battlefield
RESERVE_SLOTS = 4
MAX_FIELDS_IN_PLAY = 2

# Poison N: N damage at the end of each of the next POISON_ROUNDS rounds (Ruling (ours)).
POISON_ROUNDS = 2
DIE_SIDES = 6

# Ability kinds and where they may be used from.
ABILITY_KINDS = ("attack", "support", "passive")
USABLE_FROM = {"front": ("attack", "passive"), "reserve": ("support", "passive")}

# Effect keywords. int keywords take a number (>= 1 when present), flags are true/false.
INT_KEYWORDS = ("damage", "heal", "armor", "boost", "poison")
FLAG_KEYWORDS = ("area", "assassin", "token", "stun", "shroud")
KEYWORDS = INT_KEYWORDS + FLAG_KEYWORDS

# Which keywords each kind of ability may carry (Ruling (ours): attacks hurt the enemy,
# supports help one of your creatures, passives help the user itself).
ALLOWED = {
    "attack": ("damage", "area", "assassin", "boost", "poison", "stun", "token"),
    "support": ("heal", "armor", "boost", "shroud", "token", "area"),
    "passive": ("heal", "armor", "shroud", "token"),
    "coach": ("heal", "armor", "boost", "shroud", "token", "area"),
}
COACH_PASSIVE_KEYWORDS = ("heal", "armor", "boost")
COACH_PASSIVE_TO = ("frontline", "all")

ENDURANCE_RANGE = (1, 40)
NUMBER_RANGE = (1, 9)  # for keyword numbers and cost parts

# Match options
MAX_ROUNDS_DEFAULT = 40
BEST_OF = (1, 3, 5)
