"""Párbaj deck builder: the card pool, the starter decks and each user's saved decks.

Public: ``GET /api/parbaj/cards`` and ``GET /api/parbaj/starter-decks``. Everything under
``/api/decks`` needs a token; a user sees and changes only their own decks (someone else's deck
is answered exactly like a missing one: 404). Decks are validated on every save with
``games.parbaj.validate_deck``; a deck that cannot be played is refused with 422
``invalid_deck``, the reasons as sentences in the message and as data in ``error.problems``.
"""
from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query
from pydantic import Field, field_validator

from app.api.schemas import ERRORS, Strict
from app.auth import User, current_user
from app.db import decks as db
from app.errors import ApiError
from app.services import Services, get_services
from games.parbaj.cardpool import POOL, card_text
from games.parbaj.decks import (
    DeckTextError,
    Problem,
    deck_from_text,
    deck_to_text,
    sort_key,
    validate_deck,
)

router = APIRouter(tags=["parbaj decks"], responses=ERRORS)

MAX_DECKS_PER_USER = 100
MAX_LIST = 200        # card ids in one request (a legal deck has at most 15)
MAX_TEXT = 20_000     # characters of deck text to import
NAME_MAX = 40

Kind = Literal["creature", "field", "coach", "ability"]
Element = Literal["fire", "water", "earth", "air", "light", "shadow", "neutral"]
Keyword = Literal["damage", "heal", "armor", "boost", "poison", "area", "assassin", "token",
                  "stun", "shroud"]


# ------------------------------------------------------------------------------------------
# Bodies
# ------------------------------------------------------------------------------------------
def _clean_name(v: str) -> str:
    v = " ".join(v.split())
    if not v:
        raise ValueError("a deck needs a name")
    if len(v) > NAME_MAX:
        raise ValueError(f"a deck name has at most {NAME_MAX} characters")
    if any(not ch.isprintable() for ch in v):
        raise ValueError("a deck name cannot hold control characters")
    return v


class CardsIn(Strict):
    cards: list[str] = Field(max_length=MAX_LIST, description="Card ids, one entry per copy")

    @field_validator("cards")
    @classmethod
    def _ids(cls, v: list[str]) -> list[str]:
        if any(len(c) > 60 for c in v):
            raise ValueError("card ids are at most 60 characters")
        return v


class DeckIn(CardsIn):
    name: str = Field(max_length=200, description=f"1-{NAME_MAX} characters, unique per user")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return _clean_name(v)


class DeckUpdateIn(Strict):
    name: str | None = Field(default=None, max_length=200)
    cards: list[str] | None = Field(default=None, max_length=MAX_LIST)

    @field_validator("name")
    @classmethod
    def _name(cls, v):
        return None if v is None else _clean_name(v)

    @field_validator("cards")
    @classmethod
    def _ids(cls, v):
        if v is not None and any(len(c) > 60 for c in v):
            raise ValueError("card ids are at most 60 characters")
        return v


class ImportIn(Strict):
    text: str = Field(max_length=MAX_TEXT, description="One 'N× Card Name' line per card")


class CopyStarterIn(Strict):
    starter: str = Field(max_length=60, description="A starter deck id (GET /api/parbaj/starter-decks)")
    name: str | None = Field(default=None, max_length=200,
                             description="Name of the copy (default: the starter's name)")

    @field_validator("name")
    @classmethod
    def _name(cls, v):
        return None if v is None else _clean_name(v)


# ------------------------------------------------------------------------------------------
# Errors and shapes
# ------------------------------------------------------------------------------------------
class InvalidDeck(ApiError):
    """422 invalid_deck: the sentences in ``message``, the same problems as data in ``problems``."""

    def __init__(self, problems: list[Problem]):
        self.problems = [p.to_dict() for p in problems]
        super().__init__("invalid_deck", "This deck cannot be played: "
                         + " ".join(p.message for p in problems))

    def body(self) -> dict:
        body = super().body()
        body["error"]["problems"] = self.problems
        return body


def _not_found() -> ApiError:
    return ApiError("not_found", "There is no such deck among yours.")


def _name_taken(name: str) -> ApiError:
    return ApiError("deck_name_taken", f"You already have a deck called '{name}'; pick another name.")


def _problems(cards) -> list[dict]:
    return [p.to_dict() for p in validate_deck(cards)]


def _deck_out(d: dict) -> dict:
    problems = _problems(d["cards"])  # the pool may change after a deck was saved
    return {**d, "size": len(d["cards"]), "ok": not problems, "problems": problems}


def _sorted(cards: list[str]) -> list[str]:
    known = [c for c in cards if c in POOL.cards]
    return sorted(known, key=sort_key) + [c for c in cards if c not in POOL.cards]


def _card_out(card: dict) -> dict:
    out = dict(card)
    out["text"] = card_text(card)
    if card["kind"] == "creature":
        out["evolves_into"] = sorted(c["id"] for c in POOL.cards.values()
                                     if c["kind"] == "creature" and c["evolves_from"] == card["id"])
    return out


def _abilities(card: dict) -> list[dict]:
    if card["kind"] == "creature":
        return card["abilities"]
    if card["kind"] == "coach":
        return [card["active"]]
    if card["kind"] == "ability":
        return [card["ability"]]
    return []


def _matches(card: dict, element, level, kind, keyword, q) -> bool:
    if kind and card["kind"] != kind:
        return False
    if element:
        if card["kind"] == "creature":
            if card["type"] != element:
                return False
        elif card["kind"] == "field":
            if element not in card["types"]:
                return False
        else:
            return False
    if level is not None and (card["kind"] != "creature" or card["level"] != level):
        return False
    if keyword:
        abil = _abilities(card)
        passive = card.get("passive") if card["kind"] == "coach" else None
        if not (any(ab.get(keyword) for ab in abil) or (passive and passive.get(keyword))):
            return False
    if q:
        needle = q.lower()
        if needle not in card["name"].lower() and needle not in card_text(card).lower():
            return False
    return True


async def _unused_name(svc: Services, user: User, wanted: str) -> str:
    taken = await db.names(svc.maker, user.id)
    if wanted not in taken:
        return wanted
    for n in range(2, MAX_DECKS_PER_USER + 2):
        suffix = f" ({n})"
        candidate = wanted[:NAME_MAX - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
    raise _name_taken(wanted)


async def _create(svc: Services, user: User, name: str, cards: list[str]) -> dict:
    problems = validate_deck(cards)
    if problems:
        raise InvalidDeck(problems)
    try:
        return _deck_out(await db.create_deck(svc.maker, user.id, name, _sorted(cards),
                                              limit=MAX_DECKS_PER_USER))
    except db.DeckNameTaken:
        raise _name_taken(name) from None
    except db.TooManyDecks:
        raise ApiError("too_many_decks", f"You can keep at most {MAX_DECKS_PER_USER} decks; "
                                         f"delete one first.") from None


# ------------------------------------------------------------------------------------------
# The card pool (public)
# ------------------------------------------------------------------------------------------
@router.get("/api/parbaj/cards", summary="The Párbaj card pool with generated card text")
async def list_cards(element: Element | None = Query(None, description="Creature type or field element"),
                     level: int | None = Query(None, ge=1, le=3, description="Creature level"),
                     kind: Kind | None = None,
                     keyword: Keyword | None = Query(None, description="An ability keyword"),
                     q: str | None = Query(None, max_length=40, description="Text in name or card text")):
    cards = [c for c in POOL.cards.values() if _matches(c, element, level, kind, keyword, q)]
    return [_card_out(c) for c in sorted(cards, key=lambda c: sort_key(c["id"]))]


@router.get("/api/parbaj/starter-decks", summary="The prebuilt starter decks")
async def list_starters():
    return [{**d, "cards": _sorted(d["cards"]), "size": len(d["cards"]),
             "text": deck_to_text(d["cards"])} for d in POOL.decks.values()]


# ------------------------------------------------------------------------------------------
# My decks
# ------------------------------------------------------------------------------------------
@router.get("/api/decks", summary="My saved decks")
async def my_decks(user: User = Depends(current_user), svc: Services = Depends(get_services)):
    return [_deck_out(d) for d in await db.list_decks(svc.maker, user.id)]


@router.post("/api/decks", status_code=201, summary="Save a new deck (validated)")
async def create_deck(body: DeckIn, user: User = Depends(current_user),
                      svc: Services = Depends(get_services)):
    return await _create(svc, user, body.name, body.cards)


@router.post("/api/decks/validate", summary="Check a deck without saving it")
async def validate(body: CardsIn, user: User = Depends(current_user)):
    problems = _problems(body.cards)
    return {"ok": not problems, "size": len(body.cards), "problems": problems}


@router.post("/api/decks/import", summary="Read a deck from text ('N× Card Name' per line)")
async def import_text(body: ImportIn, user: User = Depends(current_user)):
    """Lines that cannot be read are reported one by one, with their ``line`` number (the
    other lines are still read); the cards read are then checked against the deck rules.
    Nothing is saved."""
    cards: list[str] = []
    problems: list[dict] = []
    for no, line in enumerate(body.text.splitlines(), 1):
        # Parse one line at a time (padded so the messages keep their line numbers).
        try:
            cards += deck_from_text("\n" * (no - 1) + line)
        except DeckTextError as e:
            problems += [{**p.to_dict(), "line": no} for p in e.problems]
    problems += _problems(cards)
    size = len(cards)
    # The rules are checked on everything read; a silly count is not echoed back in full.
    return {"ok": not problems, "cards": _sorted(cards)[:MAX_LIST], "size": size,
            "problems": problems}


@router.post("/api/decks/copy-starter", status_code=201, summary="Save a copy of a starter deck")
async def copy_starter(body: CopyStarterIn, user: User = Depends(current_user),
                       svc: Services = Depends(get_services)):
    starter = POOL.decks.get(body.starter)
    if starter is None:
        raise ApiError("not_found", f"There is no starter deck '{body.starter}'.")
    name = body.name if body.name is not None else await _unused_name(svc, user, starter["name"])
    return await _create(svc, user, name, list(starter["cards"]))


@router.get("/api/decks/{deck_id}", summary="One of my decks")
async def get_deck(deck_id: str, user: User = Depends(current_user),
                   svc: Services = Depends(get_services)):
    d = await db.get_deck(svc.maker, user.id, deck_id)
    if d is None:
        raise _not_found()
    return _deck_out(d)


@router.put("/api/decks/{deck_id}", summary="Rename a deck and/or replace its cards (validated)")
async def update_deck(deck_id: str, body: DeckUpdateIn, user: User = Depends(current_user),
                      svc: Services = Depends(get_services)):
    if body.name is None and body.cards is None:
        raise ApiError("invalid_message", "Invalid request: send 'name', 'cards' or both.")
    if await db.get_deck(svc.maker, user.id, deck_id) is None:
        raise _not_found()
    if body.cards is not None:
        problems = validate_deck(body.cards)
        if problems:
            raise InvalidDeck(problems)
    try:
        d = await db.update_deck(svc.maker, user.id, deck_id, name=body.name,
                                 cards=None if body.cards is None else _sorted(body.cards))
    except db.DeckNameTaken:
        raise _name_taken(body.name) from None
    if d is None:
        raise _not_found()
    return _deck_out(d)


@router.delete("/api/decks/{deck_id}", status_code=204, summary="Delete one of my decks")
async def delete_deck(deck_id: str, user: User = Depends(current_user),
                      svc: Services = Depends(get_services)):
    if not await db.delete_deck(svc.maker, user.id, deck_id):
        raise _not_found()


@router.get("/api/decks/{deck_id}/export", summary="A deck as text ('N× Card Name' per line)")
async def export_deck(deck_id: str, user: User = Depends(current_user),
                      svc: Services = Depends(get_services)):
    d = await db.get_deck(svc.maker, user.id, deck_id)
    if d is None:
        raise _not_found()
    known = [c for c in d["cards"] if c in POOL.cards]
    return {"id": d["id"], "name": d["name"], "text": deck_to_text(known)}
