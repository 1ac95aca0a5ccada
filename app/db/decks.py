"""Párbaj decks in SQL: every read and write of the ``decks`` table.

Every function takes the owner's user id; a deck of another user is treated exactly like a
missing one (``None`` / ``False``), so the router answers 404 for both and never reveals that
someone else's deck exists.
"""
from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import delete, func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Deck


class DeckNameTaken(Exception):
    """The owner already has a deck with that name (unique (user_id, name))."""


class TooManyDecks(Exception):
    """The owner already has the most decks allowed."""


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(d: datetime) -> str:
    if d.tzinfo is None:  # SQLite gives naive datetimes back
        d = d.replace(tzinfo=UTC)
    return d.isoformat().replace("+00:00", "Z")


def as_dict(row: Deck) -> dict:
    return {"id": row.id, "name": row.name, "cards": list(row.cards),
            "created_at": _iso(row.created_at), "updated_at": _iso(row.updated_at)}


def new_id() -> str:
    return "dk_" + uuid.uuid4().hex[:16]


async def list_decks(maker: async_sessionmaker, user_id: str) -> list[dict]:
    async with maker() as session:
        rows = (await session.execute(
            select(Deck).where(Deck.user_id == user_id).order_by(Deck.name, Deck.id))).scalars()
        return [as_dict(r) for r in rows]


async def names(maker: async_sessionmaker, user_id: str) -> set[str]:
    async with maker() as session:
        return set((await session.execute(select(Deck.name).where(Deck.user_id == user_id))).scalars())


async def get_deck(maker: async_sessionmaker, user_id: str, deck_id: str) -> dict | None:
    async with maker() as session:
        row = await session.get(Deck, deck_id)
        if row is None or row.user_id != user_id:
            return None
        return as_dict(row)


async def _lock_owner(session: AsyncSession, user_id: str) -> None:
    """Serialise deck creations per owner until the transaction ends. Postgres: an advisory
    lock on the owner's id (guests have no ``users`` row to lock). SQLite lets one writer in
    at a time, so there the insert that follows is the lock."""
    if session.bind.dialect.name == "postgresql":
        await session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"),
                              {"key": f"decks:{user_id}"})


async def create_deck(maker: async_sessionmaker, user_id: str, name: str, cards: list[str],
                      limit: int | None = None) -> dict:
    """Save a new deck. With ``limit``, raises ``TooManyDecks`` when the owner would have
    more: the count is taken inside the inserting transaction, after the owner is locked, so
    concurrent saves cannot pass the limit together."""
    now = _now()
    row = Deck(id=new_id(), user_id=user_id, name=name, cards=list(cards), created_at=now,
               updated_at=now)
    try:
        async with maker() as session, session.begin():
            await _lock_owner(session, user_id)
            session.add(row)
            await session.flush()
            if limit is not None:
                have = (await session.execute(select(func.count()).select_from(Deck).where(
                    Deck.user_id == user_id))).scalar_one()
                if have > limit:
                    raise TooManyDecks(user_id)  # leaving the block rolls the insert back
    except IntegrityError:
        raise DeckNameTaken(name) from None
    return as_dict(row)


async def update_deck(maker: async_sessionmaker, user_id: str, deck_id: str, *,
                      name: str | None = None, cards: list[str] | None = None) -> dict | None:
    try:
        async with maker() as session, session.begin():
            row = await session.get(Deck, deck_id, with_for_update=True)
            if row is None or row.user_id != user_id:
                return None
            if name is not None:
                row.name = name
            if cards is not None:
                row.cards = list(cards)
            row.updated_at = _now()
            await session.flush()
            out = as_dict(row)
    except IntegrityError:
        raise DeckNameTaken(name) from None
    return out


async def delete_deck(maker: async_sessionmaker, user_id: str, deck_id: str) -> bool:
    async with maker() as session, session.begin():
        res = await session.execute(delete(Deck).where(Deck.id == deck_id, Deck.user_id == user_id))
        return res.rowcount > 0
