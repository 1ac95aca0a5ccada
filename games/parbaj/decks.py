"""Deck building: validation with messages a player understands, and text import/export
("N× Card Name" per line)."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from games.parbaj import rules as R


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    cards: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "cards": list(self.cards)}


def _pool(pool):
    if pool is None:
        from games.parbaj.cardpool import POOL

        return POOL
    return pool


def _names(ids, cards) -> str:
    return ", ".join(cards[i]["name"] for i in ids)


def validate_deck(card_ids, pool=None) -> list[Problem]:
    """Every reason the deck cannot be played, in a fixed order. Empty list: the deck is legal."""
    pool = _pool(pool)
    cards = pool.cards
    if not isinstance(card_ids, list) or not all(isinstance(c, str) for c in card_ids):
        return [Problem("not_a_list", "A deck is a list of card ids.")]
    problems: list[Problem] = []
    unknown = sorted({c for c in card_ids if c not in cards})
    for u in unknown:
        problems.append(Problem("unknown_card", f"'{u}' is not a Párbaj card.", (u,)))
    known = [c for c in card_ids if c in cards]
    if len(card_ids) > R.MAX_DECK:
        problems.append(Problem(
            "too_many_cards",
            f"The deck has {len(card_ids)} cards; at most {R.MAX_DECK} are allowed "
            f"(creatures, token fields, ability cards and the coach all count)."))
    # The rule limits different fields (kinds), not field cards: a second Volcano is legal.
    fields = list(dict.fromkeys(c for c in known if cards[c]["kind"] == "field"))
    if len(fields) > R.MAX_FIELDS:
        problems.append(Problem(
            "too_many_fields",
            f"The deck has {len(fields)} different token fields ({_names(fields, cards)}); at "
            f"most {R.MAX_FIELDS} are allowed — remove the extra ones.", tuple(fields)))
    coaches = [c for c in known if cards[c]["kind"] == "coach"]
    if len(coaches) > R.MAX_COACHES:
        problems.append(Problem(
            "too_many_coaches",
            f"The deck has {len(coaches)} coaches ({_names(coaches, cards)}); only one coach "
            f"is allowed.", tuple(coaches)))
    present = set(known)
    for cid in sorted(present, key=lambda c: (cards[c].get("level", 0), c)):
        card = cards[cid]
        if card["kind"] == "creature" and card["level"] > 1 and card["evolves_from"] not in present:
            base = cards[card["evolves_from"]]
            problems.append(Problem(
                "missing_base",
                f"{card['name']} (level {R.ROMAN[card['level']]}) evolves from {base['name']}, "
                f"which is not in the deck, so it could never be played.", (cid,)))
    level_one = [c for c in known if cards[c]["kind"] == "creature" and cards[c]["level"] == 1]
    l1_types = {cards[c]["type"] for c in level_one}
    for fid in sorted(fields):
        f = cards[fid]
        if R.NEUTRAL not in l1_types and not l1_types & set(f["types"]):
            a, b = f["types"]
            problems.append(Problem(
                "field_without_creature",
                f"Token field {f['name']} ({a}/{b}) can only be placed when a {a}, {b} or "
                f"neutral creature is on your battlefield, and the deck has no level I creature "
                f"of those types.", (fid,)))
    if not level_one:
        problems.append(Problem(
            "no_level_one",
            "The deck has no level I creature, so nothing could be placed on the battlefield "
            "(you need at least one for the frontline)."))
    return problems


# ------------------------------------------------------------------------------------------
# Text import / export
# ------------------------------------------------------------------------------------------
class DeckTextError(ValueError):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(p.message for p in problems))


_KIND_ORDER = {"coach": 0, "field": 1, "creature": 2, "ability": 3}


def sort_key(cid: str, pool=None):
    card = _pool(pool).cards[cid]
    typ = R.TYPES.index(card["type"]) if card["kind"] == "creature" else 0
    return (_KIND_ORDER[card["kind"]], typ, card.get("level", 0), card["name"])


def deck_to_text(card_ids, pool=None) -> str:
    """One "N× Card Name" line per distinct card: coach, fields, creatures, ability cards."""
    pool = _pool(pool)
    counts = Counter(card_ids)
    return "".join(f"{n}× {pool.cards[c]['name']}\n"
                   for c, n in sorted(counts.items(), key=lambda kv: sort_key(kv[0], pool)))


_LINE = re.compile(r"^(?:(\d+)\s*(?:×|\*|[xX](?=\s))?\s*)?(\S.*?)\s*$")


def deck_from_text(text: str, pool=None) -> list[str]:
    """Parse "N× Card Name" lines ("2x", "2 x", "2" and no count also work; names are
    case-insensitive, card ids are accepted; blank lines and lines starting with # are skipped).
    Raises DeckTextError naming every line it could not read. It does not check deck rules:
    call validate_deck on the result."""
    pool = _pool(pool)
    if not isinstance(text, str):
        raise DeckTextError([Problem("bad_text", "A deck text must be text.")])
    ids: list[str] = []
    problems: list[Problem] = []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            problems.append(Problem("bad_line", f"Line {no}: cannot read '{line}'."))
            continue
        n = int(m.group(1)) if m.group(1) else 1
        name = m.group(2)
        cid = pool.by_name.get(name.lower()) or (name if name in pool.cards else None)
        if cid is None:
            problems.append(Problem("unknown_card", f"Line {no}: there is no card named '{name}'.",
                                    (name,)))
            continue
        if not 1 <= n <= R.MAX_DECK * 4:
            problems.append(Problem("bad_line", f"Line {no}: {n} copies of {name} is not a count."))
            continue
        ids += [cid] * n
    if problems:
        raise DeckTextError(problems)
    return ids


def starter_decks(pool=None) -> dict[str, dict]:
    return _pool(pool).decks
