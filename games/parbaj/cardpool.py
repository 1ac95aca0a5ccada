"""The Párbaj card pool: YAML files in ``cards/`` validated by hand against the schema at load
time, and the card text generated from the data (so text and rules never disagree).

Errors name the file, the card and the field::

    creatures_fire.yaml: card 'ember_pup': field 'endurance': must be a whole number from 1 to 40
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from games.parbaj import rules as R

CARDS_DIR = Path(__file__).with_name("cards")
ID_RE = re.compile(r"^[a-z][a-z0-9_]{1,40}$")

FILE_KINDS = ("creature", "field", "coach", "ability")


@dataclass(frozen=True)
class CardError:
    file: str
    card: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.card is not None:
            where += f": card '{self.card}'"
        if self.field is not None:
            where += f": field '{self.field}'"
        return f"{where}: {self.message}"


class CardDataError(ValueError):
    def __init__(self, errors: list[CardError]):
        self.errors = list(errors)
        super().__init__("Card data is invalid:\n" + "\n".join(f"  {e}" for e in self.errors))


class _Collector:
    def __init__(self, file: str):
        self.file = file
        self.card: str | None = None
        self.errors: list[CardError] = []

    def err(self, field: str | None, message: str) -> None:
        self.errors.append(CardError(self.file, self.card, field, message))

    def errors_for_card(self) -> bool:
        return any(e.card == self.card for e in self.errors)


# ------------------------------------------------------------------------------------------
# Field checkers. Each returns the normalized value or None after recording an error.
# ------------------------------------------------------------------------------------------
def _int(c: _Collector, field: str, v: Any, lo: int, hi: int) -> int | None:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        c.err(field, f"must be a whole number from {lo} to {hi} (got {v!r})")
        return None
    return v


def _str(c: _Collector, field: str, v: Any) -> str | None:
    if not isinstance(v, str) or not v.strip():
        c.err(field, f"must be a non-empty text (got {v!r})")
        return None
    return v.strip()


def _choice(c: _Collector, field: str, v: Any, allowed: tuple, nullable: bool = False):
    if v is None and nullable:
        return None
    if v not in allowed:
        c.err(field, f"must be one of {', '.join(allowed)}{' or null' if nullable else ''} (got {v!r})")
        return None
    return v


def _keys(c: _Collector, field_prefix: str, d: dict, required: tuple, optional: tuple) -> bool:
    ok = True
    for k in required:
        if k not in d:
            c.err(f"{field_prefix}{k}", "is missing")
            ok = False
    for k in d:
        if k not in required and k not in optional:
            c.err(f"{field_prefix}{k}", "is not a known field")
            ok = False
    return ok


def _cost(c: _Collector, field: str, v: Any, allowed_types: tuple) -> dict | None:
    if v is None:
        return {}
    if not isinstance(v, dict):
        c.err(field, "must be a mapping of token type to number, e.g. {fire: 1, any: 1}")
        return None
    out = {}
    for k, n in v.items():
        if k not in allowed_types:
            c.err(f"{field}.{k}", f"token type must be one of {', '.join(allowed_types)}")
            continue
        n = _int(c, f"{field}.{k}", n, *R.NUMBER_RANGE)
        if n is not None:
            out[k] = n
    return {k: out[k] for k in R.COST_KEYS if k in out}


def _effects(c: _Collector, prefix: str, raw: dict, kind: str) -> dict | None:
    """Normalize keyword fields of an ability (all keywords present, ints 0 / flags False)."""
    allowed = R.ALLOWED[kind]
    eff: dict[str, Any] = dict.fromkeys(R.INT_KEYWORDS, 0)
    eff.update(dict.fromkeys(R.FLAG_KEYWORDS, False))
    ok = True
    for k in R.KEYWORDS:
        if k not in raw:
            continue
        if k not in allowed:
            c.err(f"{prefix}{k}", f"a {kind} ability cannot have '{k}' "
                                  f"(allowed: {', '.join(allowed)})")
            ok = False
            continue
        v = raw[k]
        if k in R.INT_KEYWORDS:
            n = _int(c, f"{prefix}{k}", v, *R.NUMBER_RANGE)
            ok = ok and n is not None
            eff[k] = n or 0
        else:
            if not isinstance(v, bool):
                c.err(f"{prefix}{k}", f"must be true or false (got {v!r})")
                ok = False
            eff[k] = bool(v)
    if not ok:
        return None
    if not any(eff[k] for k in R.KEYWORDS):
        c.err(prefix.rstrip(".") or None, "has no effect (give it at least one keyword)")
        return None
    if eff["area"] and eff["assassin"]:
        c.err(f"{prefix}assassin", "cannot be combined with 'area' (area never reaches the reserve)")
        return None
    if kind == "attack":
        if not (eff["damage"] or eff["poison"] or eff["stun"]):
            c.err(prefix.rstrip(".") or None, "an attack needs damage, poison or stun")
            return None
        if eff["boost"] and not eff["damage"]:
            c.err(f"{prefix}boost", "an attack's boost needs base damage to add to")
            return None
        if (eff["area"] or eff["assassin"]) and not (eff["damage"] or eff["poison"] or eff["stun"]):
            c.err(f"{prefix}area", "needs something to deliver")
            return None
    if kind in ("support", "coach") and eff["area"] and not (
        eff["heal"] or eff["armor"] or eff["boost"] or eff["shroud"]
    ):
        c.err(f"{prefix}area", "needs heal, armor, boost or shroud to spread")
        return None
    return eff


ABILITY_FIELDS = ("name", "kind", "cost") + R.KEYWORDS


def _ability(c: _Collector, prefix: str, raw: Any, cost_types: tuple, kind: str | None = None):
    if not isinstance(raw, dict):
        c.err(prefix.rstrip("."), "must be a mapping (name, kind, cost, keywords)")
        return None
    fields = tuple(f for f in ABILITY_FIELDS if not (kind and f == "kind"))
    if not _keys(c, prefix, raw, ("name",) if kind else ("name", "kind"), fields):
        return None
    name = _str(c, f"{prefix}name", raw["name"])
    k = kind or _choice(c, f"{prefix}kind", raw["kind"], R.ABILITY_KINDS)
    cost = _cost(c, f"{prefix}cost", raw.get("cost"), cost_types)
    if name is None or k is None or cost is None:
        return None
    eff = _effects(c, prefix, raw, k)
    if eff is None:
        return None
    return {"name": name, "kind": "support" if k == "coach" else k, "cost": cost, **eff}


# ------------------------------------------------------------------------------------------
# Card kinds
# ------------------------------------------------------------------------------------------
def _head(c: _Collector, raw: dict) -> tuple[str | None, str | None]:
    cid = raw.get("id")
    if not isinstance(cid, str) or not ID_RE.match(cid):
        c.err("id", f"must be a lower-case id like 'ember_pup' (got {cid!r})")
        cid = None
    name = _str(c, "name", raw.get("name")) if "name" in raw else None
    return cid, name


def _creature(c: _Collector, raw: dict) -> dict | None:
    fields = ("id", "name", "type", "level", "evolves_from", "endurance", "weakness",
              "immunity", "abilities")
    ok = _keys(c, "", raw, ("id", "name", "type", "level", "endurance", "abilities"), fields)
    cid, name = _head(c, raw)
    if not ok:
        return None
    ctype = _choice(c, "type", raw["type"], R.TYPES)
    level = _int(c, "level", raw["level"], 1, 3)
    endurance = _int(c, "endurance", raw["endurance"], *R.ENDURANCE_RANGE)
    weakness = _choice(c, "weakness", raw.get("weakness"), R.ELEMENTS, nullable=True)
    immunity = _choice(c, "immunity", raw.get("immunity"), R.ELEMENTS, nullable=True)
    if weakness is not None and weakness == immunity:
        c.err("immunity", "cannot be the same type as the weakness")
    evo = raw.get("evolves_from")
    if level is not None:
        if level == 1 and evo is not None:
            c.err("evolves_from", "a level I creature evolves from nothing (leave it out)")
        if level > 1 and not isinstance(evo, str):
            c.err("evolves_from", f"a level {R.ROMAN[level]} creature must name the creature it evolves from")
    abilities = raw["abilities"]
    out_ab = []
    if not isinstance(abilities, list) or not 1 <= len(abilities) <= 3:
        c.err("abilities", "must be a list of 1 to 3 abilities")
    elif ctype is not None:
        cost_types = (R.ANY,) if ctype == R.NEUTRAL else (ctype, R.ANY)
        for i, a in enumerate(abilities):
            ab = _ability(c, f"abilities[{i}].", a, cost_types)
            if ab is not None:
                out_ab.append(ab)
    if c.errors_for_card():
        return None
    return {"id": cid, "name": name, "kind": "creature", "type": ctype, "level": level,
            "evolves_from": evo, "endurance": endurance, "weakness": weakness,
            "immunity": immunity, "abilities": out_ab}


def _field(c: _Collector, raw: dict) -> dict | None:
    ok = _keys(c, "", raw, ("id", "name", "types"), ("id", "name", "types"))
    cid, name = _head(c, raw)
    if not ok:
        return None
    types = raw["types"]
    if (not isinstance(types, list) or len(types) != 2 or len(set(map(str, types))) != 2
            or any(t not in R.ELEMENTS for t in types)):
        c.err("types", f"must be a list of two different elements from {', '.join(R.ELEMENTS)}")
        return None
    if c.errors_for_card():
        return None
    return {"id": cid, "name": name, "kind": "field", "types": list(types)}


def _coach(c: _Collector, raw: dict) -> dict | None:
    ok = _keys(c, "", raw, ("id", "name", "active"), ("id", "name", "active", "passive"))
    cid, name = _head(c, raw)
    if not ok:
        return None
    active = _ability(c, "active.", raw["active"], R.COST_KEYS, kind="coach")
    passive = None
    if raw.get("passive") is not None:
        p = raw["passive"]
        if not isinstance(p, dict):
            c.err("passive", "must be a mapping like {name: ..., to: frontline, armor: 1}")
        elif _keys(c, "passive.", p, ("name", "to"), ("name", "to") + R.COACH_PASSIVE_KEYWORDS):
            pname = _str(c, "passive.name", p["name"])
            to = _choice(c, "passive.to", p["to"], R.COACH_PASSIVE_TO)
            eff = {}
            for k in R.COACH_PASSIVE_KEYWORDS:
                if k in p:
                    eff[k] = _int(c, f"passive.{k}", p[k], *R.NUMBER_RANGE) or 0
                else:
                    eff[k] = 0
            if not any(eff.values()):
                c.err("passive", f"needs one of {', '.join(R.COACH_PASSIVE_KEYWORDS)}")
            passive = {"name": pname, "to": to, **eff}
    if c.errors_for_card():
        return None
    return {"id": cid, "name": name, "kind": "coach", "active": active, "passive": passive}


def _ability_card(c: _Collector, raw: dict) -> dict | None:
    if not isinstance(raw, dict):
        return None
    ok = _keys(c, "", raw, ("id", "name", "kind"), ("id",) + ABILITY_FIELDS)
    cid, name = _head(c, raw)
    if not ok:
        return None
    ab = _ability(c, "", {k: v for k, v in raw.items() if k != "id"}, R.COST_KEYS)
    if ab is None or c.errors_for_card():
        return None
    return {"id": cid, "name": name, "kind": "ability", "ability": ab}


_PARSERS = {"creature": _creature, "field": _field, "coach": _coach, "ability": _ability_card}


# ------------------------------------------------------------------------------------------
# Pool
# ------------------------------------------------------------------------------------------
@dataclass
class Pool:
    cards: dict[str, dict]
    by_name: dict[str, str]       # lower-case name -> id
    decks: dict[str, dict]        # starter deck id -> {id, name, idea, cards: [ids]}
    files: dict[str, str]         # card id -> file name

    def get(self, cid: str) -> dict | None:
        return self.cards.get(cid)

    def of_kind(self, kind: str) -> list[dict]:
        return [c for c in self.cards.values() if c["kind"] == kind]


def _read_yaml(path: Path, errors: list[CardError]) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        errors.append(CardError(path.name, None, None, f"is not valid YAML: {exc}"))
    except OSError as exc:
        errors.append(CardError(path.name, None, None, f"cannot be read: {exc}"))
    return None


def load_pool(directory: str | Path | None = None) -> Pool:
    """Load and validate every ``*.yaml`` in ``directory`` (default: the shipped cards).

    Each card file is ``{kind: creature|field|coach|ability, cards: [...]}``; ``decks.yaml`` is
    ``{decks: [{id, name, idea, cards: {card_id: count}}]}``. Raises :class:`CardDataError`
    listing every problem found (file, card, field, message)."""
    directory = Path(directory) if directory is not None else CARDS_DIR
    errors: list[CardError] = []
    cards: dict[str, dict] = {}
    files: dict[str, str] = {}
    names: dict[str, str] = {}
    deck_raw = None
    paths = sorted(directory.glob("*.yaml"))
    if not paths:
        raise CardDataError([CardError(str(directory), None, None, "holds no card files")])
    for path in paths:
        data = _read_yaml(path, errors)
        if data is None:
            if not any(e.file == path.name for e in errors):
                errors.append(CardError(path.name, None, None, "is empty"))
            continue
        if path.name == "decks.yaml":
            deck_raw = data
            continue
        c = _Collector(path.name)
        if not isinstance(data, dict) or set(data) != {"kind", "cards"}:
            c.err(None, "must be a mapping with exactly 'kind' and 'cards'")
            errors += c.errors
            continue
        kind = data["kind"]
        if kind not in FILE_KINDS:
            c.err("kind", f"must be one of {', '.join(FILE_KINDS)} (got {kind!r})")
            errors += c.errors
            continue
        if not isinstance(data["cards"], list):
            c.err("cards", "must be a list of cards")
            errors += c.errors
            continue
        for i, raw in enumerate(data["cards"]):
            c.card = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else f"#{i + 1}"
            if not isinstance(raw, dict):
                c.err(None, "must be a mapping")
                continue
            card = _PARSERS[kind](c, raw)
            if card is None:
                continue
            if card["id"] in cards:
                c.err("id", f"is already used in {files[card['id']]}")
                continue
            low = card["name"].lower()
            if low in names:
                c.err("name", f"'{card['name']}' is already the name of '{names[low]}'")
                continue
            cards[card["id"]] = card
            files[card["id"]] = path.name
            names[low] = card["id"]
        errors += c.errors
    # Cross references: evolution lines.
    for cid, card in cards.items():
        if card["kind"] != "creature" or card["level"] == 1:
            continue
        base = cards.get(card["evolves_from"])
        where = CardError
        if base is None or base["kind"] != "creature":
            errors.append(where(files[cid], cid, "evolves_from",
                                f"names '{card['evolves_from']}', which is not a creature"))
        elif base["level"] != card["level"] - 1:
            errors.append(where(files[cid], cid, "evolves_from",
                                f"'{base['id']}' is level {R.ROMAN[base['level']]}; a level "
                                f"{R.ROMAN[card['level']]} creature evolves from level "
                                f"{R.ROMAN[card['level'] - 1]}"))
        elif base["type"] != card["type"]:
            errors.append(where(files[cid], cid, "evolves_from",
                                f"'{base['id']}' is {base['type']}; an evolution keeps its type "
                                f"({card['type']})"))
    pool = Pool(cards, names, {}, files)
    if not errors and deck_raw is not None:
        pool.decks = _load_decks(deck_raw, pool, errors)
    if errors:
        raise CardDataError(errors)
    return pool


def _load_decks(data: Any, pool: Pool, errors: list[CardError]) -> dict[str, dict]:
    from games.parbaj.decks import validate_deck  # late: decks imports this module

    c = _Collector("decks.yaml")
    out: dict[str, dict] = {}
    if not isinstance(data, dict) or set(data) != {"decks"} or not isinstance(data["decks"], list):
        c.err(None, "must be a mapping with a 'decks' list")
        errors += c.errors
        return out
    for i, raw in enumerate(data["decks"]):
        c.card = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else f"#{i + 1}"
        if not isinstance(raw, dict):
            c.err(None, "must be a mapping")
            continue
        if not _keys(c, "", raw, ("id", "name", "idea", "cards"), ("id", "name", "idea", "cards")):
            continue
        did, name = _head(c, raw)
        idea = _str(c, "idea", raw["idea"])
        cards_raw = raw["cards"]
        ids: list[str] = []
        if not isinstance(cards_raw, dict):
            c.err("cards", "must be a mapping of card id to count")
        else:
            for cid, n in cards_raw.items():
                if cid not in pool.cards:
                    c.err(f"cards.{cid}", "is not a known card id")
                    continue
                n = _int(c, f"cards.{cid}", n, 1, R.MAX_DECK)
                ids += [cid] * (n or 0)
        if c.errors_for_card():
            continue
        for p in validate_deck(ids, pool):
            c.err("cards", p.message)
        if did in out:
            c.err("id", "is already used by another deck")
        if c.errors_for_card():
            continue
        assert did is not None  # a bad id was reported above, so the deck was skipped
        out[did] = {"id": did, "name": name, "idea": idea, "cards": ids}
    errors += c.errors
    return out


# ------------------------------------------------------------------------------------------
# Card text, generated from the data
# ------------------------------------------------------------------------------------------
_CARD_NAMES: dict[str, str] = {}


def cost_text(cost: dict) -> str:
    if not cost:
        return "free"
    return ", ".join(f"{n} {k}" for k, n in cost.items())


def _cost_phrase(cost: dict) -> str:
    return "free" if not cost else "cost " + cost_text(cost)


def ability_text(ab: dict, dmg_type: str | None = None) -> str:
    """One sentence per keyword. ``dmg_type`` is the user's type (None: "this creature's")."""
    t = dmg_type or "this creature's type"
    kind = ab["kind"]
    parts: list[str] = []
    if kind == "attack":
        if ab["area"]:
            tgt = "the enemy frontline (area: never reaches the reserve; shroud blocks it)"
        elif ab["assassin"]:
            tgt = "the enemy frontline or, assassin, any enemy reserve creature"
        else:
            tgt = "the enemy frontline"
        if ab["damage"]:
            s = f"Deal {ab['damage']} {t} base damage to {tgt}"
            if ab["boost"]:
                s += f", +{ab['boost']} boost (not doubled or cancelled by weakness/immunity)"
            parts.append(s + ".")
        else:
            parts.append(f"Target: {tgt}.")
        if ab["poison"]:
            parts.append(f"Poison {ab['poison']}: the target takes {ab['poison']} damage at the end of "
                         f"each of the next {R.POISON_ROUNDS} rounds.")
        if ab["stun"]:
            parts.append("Stun: the target uses no ability next round.")
    else:
        plural = kind != "passive" and ab["area"]
        if kind == "passive":
            who = "This creature"
        elif plural:
            who = "All your creatures (area: frontline and reserve)"
        else:
            who = "One of your creatures"
        get, heal = ("get", "heal") if plural else ("gets", "heals")
        gets = []
        if ab["heal"]:
            gets.append(f"{heal} {ab['heal']}")
        if ab["armor"]:
            gets.append(f"{get} armor {ab['armor']} this round")
        if ab["boost"]:
            gets.append(f"{get} boost {ab['boost']} (attack damage +{ab['boost']} this round)")
        if ab["shroud"]:
            gets.append(f"{get} shroud this round (area abilities cannot affect "
                        f"{'them' if plural else 'it'})")
        if gets:
            parts.append(f"{who} " + ", ".join(gets) + ".")
    if ab["token"]:
        parts.append("Gain 1 token of a type your fields provide.")
    return " ".join(parts)


def card_text(card: dict) -> str:
    kind = card["kind"]
    lines: list[str] = []
    if kind == "creature":
        head = f"{card['name']} — {card['type'].capitalize()} creature, level {R.ROMAN[card['level']]}"
        if card["evolves_from"]:
            base = _CARD_NAMES.get(card["evolves_from"], card["evolves_from"])
            head += f" (evolves from {base})"
        lines.append(head + ".")
        stats = f"Endurance {card['endurance']}."
        if card["weakness"]:
            stats += f" Weakness: {card['weakness']} (base damage ×2)."
        if card["immunity"]:
            stats += f" Immunity: {card['immunity']} (base damage 0)."
        lines.append(stats)
        for ab in card["abilities"]:
            lines.append(f"• {ab['name']} ({ab['kind']}, {_cost_phrase(ab['cost'])}): "
                         f"{ability_text(ab, card['type'])}")
    elif kind == "field":
        lines.append(f"{card['name']} — token field: provides {card['types'][0]} and {card['types'][1]} tokens.")
        lines.append(f"Needs a {card['types'][0]}, {card['types'][1]} or neutral creature on your "
                     "battlefield to be placed.")
    elif kind == "coach":
        a = card["active"]
        lines.append(f"{card['name']} — coach.")
        lines.append(f"• Active, once per preparation phase: {a['name']} ({_cost_phrase(a['cost'])}): "
                     f"{ability_text(a)}")
        p = card["passive"]
        if p:
            who = "Your frontline creature" if p["to"] == "frontline" else "Each of your creatures"
            gets = [f"heals {p['heal']}" if p["heal"] else "", f"has armor {p['armor']}" if p["armor"] else "",
                    f"has boost {p['boost']}" if p["boost"] else ""]
            lines.append(f"• Passive: {p['name']}: {who} " + ", ".join(g for g in gets if g) + " every round.")
    elif kind == "ability":
        a = card["ability"]
        use = {"attack": "frontline", "support": "reserve", "passive": "frontline or reserve"}[a["kind"]]
        lines.append(f"{card['name']} — ability card ({a['kind']}, used from the {use}).")
        lines.append("Attach to one of your creatures without an ability card; it gains this ability.")
        lines.append(f"• {a['name']} ({_cost_phrase(a['cost'])}): {ability_text(a)}")
    return "\n".join(lines)


POOL = load_pool()
CARDS = POOL.cards
_CARD_NAMES.update({cid: c["name"] for cid, c in CARDS.items()})
