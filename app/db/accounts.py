"""SQL for accounts, ratings, reports, notes and the audit log.

A change that is audited takes the caller's session, and so does :func:`audit`: the caller opens
one transaction (``async with maker.begin() as session``) for the change and its audit entry,
which are then written together or not at all (``app/admin_actions.py``)."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.history import _iso, _summary
from app.db.models import AuditEntry, Match, MatchNote, MatchSeat, Rating, Report, User
from app.names import skeleton


def utcnow() -> datetime:
    return datetime.now(UTC)


def _like(text: str) -> str:
    """A LIKE pattern matching ``text`` literally (names may contain _)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _utc(d: datetime | None) -> datetime | None:
    """Compare instants in UTC (SQLite stores naive UTC)."""
    if d is None:
        return None
    if d.tzinfo is None:
        return d.replace(tzinfo=UTC)
    return d.astimezone(UTC)


class NameTaken(Exception):
    """The name, or a look-alike of it (same skeleton, app/names.py), belongs to an account."""


def user_dict(u: User) -> dict:
    return {"id": u.id, "name": u.name, "role": u.role, "guest": u.is_guest, "bot": u.is_bot,
            "suspended": u.suspended, "created_at": _iso(u.created_at)}


async def create_account(maker: async_sessionmaker, user_id: str, name: str, password_hash: str,
                         role: str = "player", bot: bool = False) -> User:
    async with maker() as session:
        user = User(id=user_id, name=name, name_key=name.casefold(), name_skeleton=skeleton(name),
                    role=role, is_guest=False, is_bot=bot, password_hash=password_hash,
                    created_at=utcnow(), suspended=False, token_gen=0)
        session.add(user)
        try:
            await session.commit()
        except IntegrityError:
            raise NameTaken(name) from None
        return user


async def by_name(maker: async_sessionmaker, name: str) -> User | None:
    async with maker() as session:
        return (await session.execute(select(User).where(User.name_key == name.casefold()))).scalar_one_or_none()


async def name_in_use(maker: async_sessionmaker, name: str) -> bool:
    """Whether an account has this name or one that looks like it (the same skeleton)."""
    async with maker() as session:
        found = await session.execute(
            select(User.id).where(or_(User.name_skeleton == skeleton(name),
                                      User.name_key == name.casefold())).limit(1))
        return found.first() is not None


async def by_id(maker: async_sessionmaker, user_id: str) -> User | None:
    async with maker() as session:
        return await session.get(User, user_id)


async def update_user(session: AsyncSession, user_id: str, **values: Any) -> User | None:
    """Set ``values`` on the user's row in the caller's transaction; None if there is none."""
    user = await session.get(User, user_id)
    if user is None:
        return None
    for k, v in values.items():
        setattr(user, k, v)
    await session.flush()
    return user


async def ensure_user(maker: async_sessionmaker, user_id: str, name: str, guest: bool) -> User:
    """A row for a user an admin acts on before they ever played (guests have none)."""
    async with maker() as session, session.begin():
        user = await session.get(User, user_id)
        if user is None:
            user = User(id=user_id, name=name, role="player", is_guest=guest, is_bot=False,
                        created_at=utcnow(), suspended=False, token_gen=0)
            session.add(user)
    return user


async def search_users(maker: async_sessionmaker, q: str | None, limit: int = 50) -> list[dict]:
    async with maker() as session:
        stmt = select(User).order_by(User.created_at.desc()).limit(limit)
        if q:
            stmt = stmt.where(or_(User.name.ilike(f"%{_like(q)}%", escape="\\"), User.id == q))
        return [user_dict(u) for u in (await session.execute(stmt)).scalars()]


# ------------------------------------------------------------------ audit
async def audit(session: AsyncSession, actor_id: str, action: str, target: str,
                details: dict | None = None) -> None:
    """An audit entry, in the transaction of the change it records."""
    session.add(AuditEntry(actor_id=actor_id, action=action, target=target, details=details,
                           created_at=utcnow()))
    await session.flush()


async def audit_log(maker: async_sessionmaker, limit: int = 200) -> list[dict]:
    async with maker() as session:
        rows = (await session.execute(
            select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit))).scalars()
        return [{"id": a.id, "actor_id": a.actor_id, "action": a.action, "target": a.target,
                 "details": a.details, "at": _iso(a.created_at)} for a in rows]


# ------------------------------------------------------------------ ratings
async def ratings_for(maker: async_sessionmaker, user_id: str) -> list[dict]:
    async with maker() as session:
        rows = (await session.execute(select(Rating).where(Rating.user_id == user_id))).scalars()
        return [rating_dict(r) for r in rows]


def rating_dict(r: Rating) -> dict:
    # The ordinal (mu - 3 sigma) is what leaderboards sort by: a conservative skill estimate.
    return {"game": r.game, "mu": round(r.mu, 3), "sigma": round(r.sigma, 3),
            "ordinal": round(r.mu - 3 * r.sigma, 3), "matches": r.matches, "wins": r.wins}


async def leaderboard(maker: async_sessionmaker, game: str, limit: int = 50) -> list[dict]:
    async with maker() as session:
        rows = (await session.execute(
            select(Rating, User).join(User, User.id == Rating.user_id)
            .where(Rating.game == game, User.suspended.is_(False))
            .order_by((Rating.mu - 3 * Rating.sigma).desc()).limit(limit))).all()
        return [{"rank": i + 1, "user": {"id": u.id, "name": u.name, "bot": u.is_bot}, **rating_dict(r)}
                for i, (r, u) in enumerate(rows)]


# ------------------------------------------------------------------ player history
async def user_matches(maker: async_sessionmaker, user_id: str, game: str | None = None,
                       result: str | None = None, opponent: str | None = None,
                       limit: int = 50) -> list[dict]:
    async with maker() as session:
        mine = select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.place).where(
            MatchSeat.user_id == user_id).subquery()
        stmt = (select(Match, mine.c.seat, mine.c.place).join(mine, mine.c.match_id == Match.id)
                .order_by(Match.created_at.desc()).limit(limit))
        if game:
            stmt = stmt.where(Match.game == game)
        if result == "win":
            stmt = stmt.where(Match.status == "finished", mine.c.place == 1)
        elif result == "loss":
            stmt = stmt.where(Match.status == "finished", mine.c.place > 1)
        elif result == "draw":
            # Everyone first: nobody placed above 1.
            stmt = stmt.where(Match.status == "finished", mine.c.place == 1,
                              ~Match.id.in_(select(MatchSeat.match_id).where(MatchSeat.place > 1)))
        if opponent:
            opp = select(MatchSeat.match_id).join(User, User.id == MatchSeat.user_id).where(
                User.name.ilike(_like(opponent), escape="\\"),
                MatchSeat.user_id != user_id)
            stmt = stmt.where(Match.id.in_(opp))
        out = []
        for m, seat, place in (await session.execute(stmt)).all():
            seats = (await session.execute(
                select(MatchSeat, User).outerjoin(User, User.id == MatchSeat.user_id)
                .where(MatchSeat.match_id == m.id).order_by(MatchSeat.seat))).all()
            s = _summary(m, seats)
            s["my_seat"], s["my_place"] = seat, place
            if result == "win" and (m.result or {}).get("draw"):
                continue
            out.append(s)
        return out


# ------------------------------------------------------------------ reports and notes
async def add_report(maker: async_sessionmaker, match_id: str, user_id: str, reason: str) -> dict:
    async with maker() as session, session.begin():
        r = Report(match_id=match_id, user_id=user_id, reason=reason, status="open", created_at=utcnow())
        session.add(r)
        await session.flush()
        return report_dict(r)


def report_dict(r: Report) -> dict:
    return {"id": r.id, "match_id": r.match_id, "user_id": r.user_id, "reason": r.reason,
            "status": r.status, "created_at": _iso(r.created_at), "resolved_by": r.resolved_by,
            "resolved_at": _iso(r.resolved_at)}


async def reports(maker: async_sessionmaker, status: str | None = "open", match_id: str | None = None) -> list[dict]:
    async with maker() as session:
        stmt = select(Report).order_by(Report.id)
        if status:
            stmt = stmt.where(Report.status == status)
        if match_id:
            stmt = stmt.where(Report.match_id == match_id)
        return [report_dict(r) for r in (await session.execute(stmt)).scalars()]


async def resolve_report(session: AsyncSession, report_id: int, admin_id: str) -> dict | None:
    r = await session.get(Report, report_id)
    if r is None:
        return None
    r.status, r.resolved_by, r.resolved_at = "resolved", admin_id, utcnow()
    await session.flush()
    return report_dict(r)


async def add_note(session: AsyncSession, match_id: str, author_id: str, text: str) -> dict:
    n = MatchNote(match_id=match_id, author_id=author_id, text=text, created_at=utcnow())
    session.add(n)
    await session.flush()
    return {"id": n.id, "author_id": author_id, "text": text, "at": _iso(n.created_at)}


async def notes(maker: async_sessionmaker, match_id: str) -> list[dict]:
    async with maker() as session:
        rows = (await session.execute(select(MatchNote).where(MatchNote.match_id == match_id)
                                      .order_by(MatchNote.id))).scalars()
        return [{"id": n.id, "author_id": n.author_id, "text": n.text, "at": _iso(n.created_at)} for n in rows]


async def set_flag(session: AsyncSession, match_id: str, flagged: bool) -> bool:
    res = await session.execute(update(Match).where(Match.id == match_id).values(flagged=flagged))
    return res.rowcount > 0


def _seconds_between(dialect: str, start, end):
    """``end - start`` in seconds as SQL (no portable datetime difference: Postgres subtracts
    timestamps; SQLite stores them as text, and a difference of Julian days, exact to the
    millisecond, is rounded back to it)."""
    if dialect == "postgresql":
        return func.extract("epoch", end - start)
    return func.round((func.julianday(end) - func.julianday(start)) * 86400.0, 3)


async def search_matches(maker: async_sessionmaker, *, game=None, player=None, since=None,
                         until=None, status=None, result=None, min_duration=None,
                         max_duration=None, reported=None, flagged=None, limit=100) -> list[dict]:
    """The newest ``limit`` matches that pass every filter. Every filter is in the SQL, so a
    page is never cut short by filtering after the limit; seats and report counts come in one
    query each for the whole page."""
    async with maker() as session:
        dialect = session.bind.dialect.name
        conds = []
        if game:
            conds.append(Match.game == game)
        if status:
            conds.append(Match.status == status)
        if since:
            conds.append(Match.created_at >= _utc(since))
        if until:
            conds.append(Match.created_at <= _utc(until))
        if flagged is not None:
            conds.append(Match.flagged.is_(flagged))
        if player:
            conds.append(Match.id.in_(select(MatchSeat.match_id).join(User, User.id == MatchSeat.user_id)
                                      .where(or_(User.name.ilike(_like(player), escape="\\"), User.id == player))))
        if reported is not None:
            sub = select(Report.match_id)
            conds.append(Match.id.in_(sub) if reported else ~Match.id.in_(sub))
        duration = _seconds_between(dialect, Match.started_at, Match.finished_at)
        if min_duration is not None or max_duration is not None:
            conds += [Match.started_at.is_not(None), Match.finished_at.is_not(None)]
        if min_duration is not None:
            conds.append(duration >= min_duration)
        if max_duration is not None:
            conds.append(duration <= max_duration)
        if result is not None:
            # A finished match's result always says whether it was a draw (Game.finish); an
            # aborted or unfinished one has no result, so it is neither.
            conds.append(Match.result["draw"].as_boolean().is_(result == "draw"))
        stmt = select(Match).order_by(Match.created_at.desc(), Match.id).limit(limit)
        if conds:
            stmt = stmt.where(and_(*conds))
        matches = list((await session.execute(stmt)).scalars())
        ids = [m.id for m in matches]
        seats: dict[str, list] = {mid: [] for mid in ids}
        reports: dict[str, int] = {}
        if ids:
            for seat, user in (await session.execute(
                    select(MatchSeat, User).outerjoin(User, User.id == MatchSeat.user_id)
                    .where(MatchSeat.match_id.in_(ids)).order_by(MatchSeat.match_id, MatchSeat.seat))).all():
                seats[seat.match_id].append((seat, user))
            reports = dict((await session.execute(
                select(Report.match_id, func.count()).where(Report.match_id.in_(ids))
                .group_by(Report.match_id))).all())
        out = []
        for m in matches:
            s = _summary(m, seats[m.id])
            s["duration_seconds"] = ((m.finished_at - m.started_at).total_seconds()
                                     if m.started_at and m.finished_at else None)
            s["flagged"], s["reports"] = m.flagged, reports.get(m.id, 0)
            out.append(s)
        return out


async def match_flags(maker: async_sessionmaker, match_id: str) -> dict:
    async with maker() as session:
        m = await session.get(Match, match_id)
        return {"flagged": bool(m and m.flagged)}


async def is_guest(session: AsyncSession, user_id: str) -> bool:
    u = await session.get(User, user_id)
    return u is None or u.is_guest
