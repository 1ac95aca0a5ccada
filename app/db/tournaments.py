"""Tournaments in SQL: every read and write of the ``tournaments`` table.

An event is handed around as a plain dict (``as_event``). Writes are compare-and-set on
``revision``: ``save`` runs ``UPDATE ... WHERE id = :id AND revision = :read`` and reports whether
it won; the caller re-reads and recomputes when it did not. ``save`` takes the caller's session:
the UPDATE is the transaction's first statement, so SQLite (WAL) and Postgres (read committed)
both evaluate the WHERE on the newest committed row, and the change's audit entries
(``app.db.accounts.audit``) and standings (``put_standings``) go into the same transaction
(``app/tournaments/writes.py``).
"""
from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Tournament, TournamentStandings

# Columns a change may write (id, game, format, organiser and created_at never change).
WRITABLE = ("name", "status", "settings", "entrants", "state", "meta")


def utcnow() -> datetime:
    return datetime.now(UTC)


def _iso(d: datetime | None) -> str | None:
    if d is None:
        return None
    if d.tzinfo is None:  # SQLite gives naive datetimes back
        d = d.replace(tzinfo=UTC)
    return d.isoformat().replace("+00:00", "Z")


def _dt(iso: str | None) -> datetime | None:
    if iso is None:
        return None
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def as_event(row: Tournament) -> dict:
    return {
        "id": row.id, "name": row.name, "game": row.game, "format": row.format,
        "status": row.status, "organiser": {"id": row.organiser_id, "name": row.organiser_name},
        "settings": row.settings, "entrants": row.entrants, "state": row.state, "meta": row.meta,
        "revision": row.revision, "created_at": _iso(row.created_at),
        "updated_at": _iso(row.updated_at), "started_at": _iso(row.started_at),
        "finished_at": _iso(row.finished_at),
    }


async def insert(maker: async_sessionmaker, ev: dict) -> dict:
    now = utcnow()
    row = Tournament(
        id=ev["id"], name=ev["name"], game=ev["game"], format=ev["format"], status=ev["status"],
        organiser_id=ev["organiser"]["id"], organiser_name=ev["organiser"]["name"],
        settings=ev["settings"], entrants=ev["entrants"], state=ev["state"], meta=ev["meta"],
        revision=ev["revision"], redis_prefix=ev["redis_prefix"], created_at=now, updated_at=now,
        started_at=None, finished_at=None,
    )
    async with maker() as session, session.begin():
        session.add(row)
    return as_event(row)


async def get(maker: async_sessionmaker, tournament_id: str) -> dict | None:
    async with maker() as session:
        row = await session.get(Tournament, tournament_id)
        return None if row is None else as_event(row)


async def save(session: AsyncSession, ev: dict, read_revision: int) -> bool:
    """Write ``ev`` if the stored revision is still ``read_revision`` (then it becomes
    ``read_revision + 1``, and ``ev["revision"]`` with it); False if somebody else wrote first.
    The caller's transaction (``async with maker.begin() as session``) carries what must be
    written with the change (its audit entries, ``put_standings``); this UPDATE must be its
    first statement."""
    now = utcnow()
    values = {k: ev[k] for k in WRITABLE}
    values.update(revision=read_revision + 1, updated_at=now,
                  started_at=_dt(ev.get("started_at")), finished_at=_dt(ev.get("finished_at")))
    res = await session.execute(
        update(Tournament)
        .where(Tournament.id == ev["id"], Tournament.revision == read_revision)
        .values(**values))
    if res.rowcount != 1:
        return False
    ev["revision"] = read_revision + 1
    ev["updated_at"] = _iso(now)
    return True


async def put_standings(session: AsyncSession, tournament_id: str, standings: dict[int, list]) -> None:
    """Round -> the standings after it, replacing what was stored for those rounds."""
    await session.execute(delete(TournamentStandings).where(
        TournamentStandings.tournament_id == tournament_id,
        TournamentStandings.round.in_(list(standings))))
    session.add_all([TournamentStandings(tournament_id=tournament_id, round=r, standings=rows)
                     for r, rows in standings.items()])


async def standings_after(maker: async_sessionmaker, tournament_id: str,
                          rounds: list[int] | None = None) -> dict[int, list]:
    """Round -> the standings after it (every round that has closed, or those asked for)."""
    stmt = select(TournamentStandings.round, TournamentStandings.standings).where(
        TournamentStandings.tournament_id == tournament_id)
    if rounds is not None:
        stmt = stmt.where(TournamentStandings.round.in_(rounds))
    async with maker() as session:
        return dict((await session.execute(stmt)).all())


async def list_events(maker: async_sessionmaker, *, status: str | None = None,
                      game: str | None = None, drafts_of: str | None = None,
                      all_drafts: bool = False, limit: int = 100) -> list[dict]:
    """Newest first, without the core state. Drafts are left out unless ``all_drafts`` (admins)
    or they belong to ``drafts_of`` (their organiser)."""
    cols = (Tournament.id, Tournament.name, Tournament.game, Tournament.format, Tournament.status,
            Tournament.organiser_id, Tournament.organiser_name, Tournament.settings,
            Tournament.entrants, Tournament.revision, Tournament.created_at, Tournament.started_at,
            Tournament.finished_at)
    stmt = select(*cols).order_by(Tournament.created_at.desc(), Tournament.id).limit(limit)
    if status:
        stmt = stmt.where(Tournament.status == status)
    if game:
        stmt = stmt.where(Tournament.game == game)
    if not all_drafts:
        if drafts_of:
            stmt = stmt.where((Tournament.status != "draft") | (Tournament.organiser_id == drafts_of))
        else:
            stmt = stmt.where(Tournament.status != "draft")
    async with maker() as session:
        rows = (await session.execute(stmt)).all()
    return [{
        "id": r.id, "name": r.name, "game": r.game, "format": r.format, "status": r.status,
        "organiser": {"id": r.organiser_id, "name": r.organiser_name}, "settings": r.settings,
        "entrants": r.entrants, "revision": r.revision, "created_at": _iso(r.created_at),
        "started_at": _iso(r.started_at), "finished_at": _iso(r.finished_at),
    } for r in rows]


async def ids_with_status(maker: async_sessionmaker, status: str, redis_prefix: str,
                          limit: int = 1000) -> list[str]:
    """Tournaments in ``status`` whose matches live under ``redis_prefix``, oldest first."""
    async with maker() as session:
        return list((await session.execute(
            select(Tournament.id)
            .where(Tournament.status == status, Tournament.redis_prefix == redis_prefix)
            .order_by(Tournament.created_at).limit(limit))).scalars())
