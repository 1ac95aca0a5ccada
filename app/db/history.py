"""Match history in SQL: the outbox writer's upserts and the reads of finished matches.

Records may arrive twice (a retried batch) or out of order (several writer processes); every
write is idempotent and a match row only moves forward in version.
"""
from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete, func, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Match, MatchAction, MatchSeat, Rating, User
from app.db.session import json_text


def _ts(t: float | None) -> datetime | None:
    return None if t is None else datetime.fromtimestamp(t, tz=UTC)


def _iso(d: datetime | None) -> str | None:
    if d is None:
        return None
    if d.tzinfo is None:  # SQLite gives naive datetimes back
        d = d.replace(tzinfo=UTC)
    return d.isoformat().replace("+00:00", "Z")


def _insert(session: AsyncSession, model):
    dialect = session.bind.dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(model)


async def write_batch(maker: async_sessionmaker, records: list[dict]) -> None:
    """Write history records in one transaction (all or nothing), with a handful of statements
    whatever the batch size: executemany of cached statements, not one statement per record
    (that cost ~8 ms of CPU per record and starved the event loop; see docs/performance.md).

    Per batch: the newest header per match (an upsert that only moves a row forward in version),
    then, for the matches whose row now holds this batch's version and whose seats may have
    changed (a lobby change, a finish) or were never written (records arriving out of order),
    their users (insert, ignore existing) and seats (rewritten), ratings for those that
    finished, and the actions (insert, ignore existing). A plain move in a live match costs one
    match row and one action row: its seats are those written when the match started."""
    if not records:
        return
    latest: dict[str, dict] = {}
    seats_changed: set[str] = set()
    actions: dict[tuple, dict] = {}
    for rec in records:
        h = rec["match"]
        cur = latest.get(h["id"])
        if cur is None or h["version"] > cur["version"]:
            latest[h["id"]] = h
        if rec["kind"] in ("action", "timeout", "resign"):
            actions.setdefault((h["id"], h["version"]), dict(
                match_id=h["id"], version=h["version"], seat=rec["seat"], user_id=rec.get("user_id"),
                kind=rec["kind"], payload=rec.get("action"), events=rec.get("events"),
                created_at=rec["at"]))
        else:  # a lobby record (create, join, leave, start, bots, end from outside)
            seats_changed.add(h["id"])
    for mid, h in latest.items():
        if h["status"] != "live":  # finished (places) or aborted
            seats_changed.add(mid)
    async with maker() as session, session.begin():
        table = Match.__table__
        postgres = session.bind.dialect.name == "postgresql"
        if postgres:
            await session.execute(_PG_UPSERT_MATCHES,
                                  _columns(map(_with_fairness, latest.values()), _PG_MATCH_FIELDS))
        else:
            rows = [dict(id=h["id"], game=h["game"], status=h["status"], version=h["version"],
                         options=h["options"], seed=h["seed"], host_id=h["host"], result=h["result"],
                         created_at=_ts(h["created_at"]), started_at=_ts(h["started_at"]),
                         finished_at=_ts(h["finished_at"]),
                         **_fairness_columns(h)) for h in latest.values()]
            up = _insert(session, table)
            up = up.on_conflict_do_update(
                index_elements=["id"],
                set_={k: getattr(up.excluded, k) for k in rows[0] if k != "id"},
                where=table.c.version < up.excluded.version)
            await session.execute(up, rows)          # executemany of one cached statement
        seats_t = MatchSeat.__table__
        now_held = (await session.execute(
            select(table.c.id, table.c.version, func.count(seats_t.c.seat))
            .outerjoin(seats_t, seats_t.c.match_id == table.c.id)
            .where(table.c.id.in_(list(latest))).group_by(table.c.id, table.c.version))).all()
        moved = [mid for mid, version, n_seats in now_held
                 if version == latest[mid]["version"] and (mid in seats_changed or n_seats == 0)]
        if moved:
            users: dict[str, dict] = {}
            seats = []
            for mid in moved:
                h = latest[mid]
                places = (h.get("result") or {}).get("places", {})
                for s in h["seats"]:
                    u = s["user"]
                    if u and u["id"] not in users:
                        users[u["id"]] = dict(id=u["id"], name=u["name"], role="player",
                                              is_guest=True, is_bot=bool(u.get("bot")),
                                              created_at=_ts(h["created_at"]))
                    seats.append(dict(match_id=mid, seat=s["seat"],
                                      user_id=u["id"] if u else None, place=places.get(s["seat"])))
            if users:
                await session.execute(
                    _insert(session, User.__table__).on_conflict_do_nothing(index_elements=["id"]),
                    list(users.values()))
            await session.execute(delete(seats_t).where(seats_t.c.match_id.in_(moved)))
            if seats:
                await session.execute(_insert(session, seats_t), seats)
            for mid in moved:
                h = latest[mid]
                if h["status"] == "finished" and h.get("result"):
                    await _rate(session, h)
        if actions and postgres:
            await session.execute(_PG_INSERT_ACTIONS, _columns(actions.values(), _PG_ACTION_FIELDS))
        elif actions:
            await session.execute(
                _insert(session, MatchAction.__table__).on_conflict_do_nothing(
                    index_elements=["match_id", "version"]),
                [{**a, "created_at": _ts(a["created_at"])} for a in actions.values()])


def _fairness_columns(h: dict) -> dict:
    """The header's ``fairness`` block as the match row's columns (the server seed is in the
    header only once the match is over: ``app.live.store.public_fairness``)."""
    f = h.get("fairness") or {}
    return dict(server_seed_sha256=f.get("server_seed_sha256"), server_seed=f.get("server_seed"),
                player_seeds=f.get("player_seeds"))


def _with_fairness(h: dict) -> dict:
    return {**h, **_fairness_columns(h)}


# On Postgres the two statements every move reaches take whole columns as arrays (unnest):
# one statement and one parameter set per batch, encoded by asyncpg in C, instead of
# SQLAlchemy's per-row parameter processing (most of the history writer's CPU). JSON goes as
# text, times as epoch seconds. Column lists: (parameter, header or action key, encode).
def _json_or_null(value):
    return None if value is None else json_text(value)


_PG_MATCH_FIELDS = (("id", "id", None), ("game", "game", None), ("status", "status", None),
                    ("version", "version", None), ("options", "options", _json_or_null),
                    ("seed", "seed", None), ("host", "host", None), ("result", "result", _json_or_null),
                    ("created", "created_at", None), ("started", "started_at", None),
                    ("finished", "finished_at", None),
                    ("commitment", "server_seed_sha256", None), ("server_seed", "server_seed", None),
                    ("player_seeds", "player_seeds", _json_or_null))
_PG_UPSERT_MATCHES = text("""
INSERT INTO matches (id, game, status, version, options, seed, host_id, result,
                     created_at, started_at, finished_at, flagged, rated,
                     server_seed_sha256, server_seed, player_seeds)
SELECT u.id, u.game, u.status, u.version, u.options::json, u.seed, u.host, u.result::json,
       to_timestamp(u.created), to_timestamp(u.started), to_timestamp(u.finished), false, false,
       u.commitment, u.server_seed, u.player_seeds::json
FROM unnest(CAST(:id AS text[]), CAST(:game AS text[]), CAST(:status AS text[]),
            CAST(:version AS integer[]), CAST(:options AS text[]), CAST(:seed AS bigint[]),
            CAST(:host AS text[]), CAST(:result AS text[]), CAST(:created AS float8[]),
            CAST(:started AS float8[]), CAST(:finished AS float8[]),
            CAST(:commitment AS text[]), CAST(:server_seed AS text[]), CAST(:player_seeds AS text[]))
     AS u(id, game, status, version, options, seed, host, result, created, started, finished,
          commitment, server_seed, player_seeds)
ON CONFLICT (id) DO UPDATE SET
    game = excluded.game, status = excluded.status, version = excluded.version,
    options = excluded.options, seed = excluded.seed, host_id = excluded.host_id,
    result = excluded.result, created_at = excluded.created_at,
    started_at = excluded.started_at, finished_at = excluded.finished_at,
    server_seed_sha256 = excluded.server_seed_sha256, server_seed = excluded.server_seed,
    player_seeds = excluded.player_seeds
WHERE matches.version < excluded.version
""")
_PG_ACTION_FIELDS = (("match", "match_id", None), ("version", "version", None), ("seat", "seat", None),
                     ("user", "user_id", None), ("kind", "kind", None),
                     ("payload", "payload", _json_or_null), ("at", "created_at", None),
                     ("events", "events", _json_or_null))
_PG_INSERT_ACTIONS = text("""
INSERT INTO match_actions (match_id, version, seat, user_id, kind, payload, created_at, events)
SELECT u.match, u.version, u.seat, u."user", u.kind, u.payload::json, to_timestamp(u.at),
       u.events::json
FROM unnest(CAST(:match AS text[]), CAST(:version AS integer[]), CAST(:seat AS text[]),
            CAST(:user AS text[]), CAST(:kind AS text[]), CAST(:payload AS text[]),
            CAST(:at AS float8[]), CAST(:events AS text[]))
     AS u(match, version, seat, "user", kind, payload, at, events)
ON CONFLICT (match_id, version) DO NOTHING
""")


def _columns(items, fields) -> dict[str, list]:
    items = list(items)
    return {param: [enc(i[key]) if enc else i[key] for i in items] for param, key, enc in fields}


async def _rate(session: AsyncSession, h: dict) -> None:
    """Update openskill ratings once per finished match, in the transaction that records the
    finish. Only matches between accounts (bots included) are rated: a guest has no lasting
    identity to carry a rating."""
    from openskill.models import PlackettLuce

    m = await session.get(Match, h["id"])
    if m is None or m.rated:
        return
    m.rated = True
    places = h["result"].get("places", {})
    seats = [s for s in h["seats"] if s["user"] and s["seat"] in places]
    users = [await session.get(User, s["user"]["id"]) for s in seats]
    if len(seats) < 2 or any(u is None or u.is_guest for u in users):
        return
    model = PlackettLuce()
    now = datetime.now(UTC)
    rows = []
    for s in seats:
        r = await session.get(Rating, (s["user"]["id"], h["game"]))
        if r is None:
            r = Rating(user_id=s["user"]["id"], game=h["game"], mu=model.mu, sigma=model.sigma,
                       matches=0, wins=0, updated_at=now)
            session.add(r)
        rows.append(r)
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in rows]
    new = model.rate(teams, ranks=[places[s["seat"]] for s in seats])
    draw = bool(h["result"].get("draw"))
    for r, s, team in zip(rows, seats, new):
        r.mu, r.sigma = team[0].mu, team[0].sigma
        r.matches += 1
        r.wins += int(places[s["seat"]] == 1 and not draw)
        r.updated_at = now


async def match_summary(maker: async_sessionmaker, match_id: str) -> dict | None:
    """The match's public summary from history (a secret option shows as hidden)."""
    async with maker() as session:
        m = await session.get(Match, match_id)
        if m is None:
            return None
        seats = (await session.execute(
            select(MatchSeat, User).outerjoin(User, User.id == MatchSeat.user_id)
            .where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)
        )).all()
        return _summary(m, seats)


def _summary(m: Match, seats) -> dict:
    return {
        "id": m.id, "game": m.game, "status": m.status, "version": m.version,
        "options": _public_options(m.game, m.options), "host": m.host_id,
        "seats": [{"seat": s.seat, "user": _seat_user(u) if u else None,
                   "place": s.place} for s, u in seats],
        "created_at": _iso(m.created_at), "started_at": _iso(m.started_at),
        "finished_at": _iso(m.finished_at), "result": m.result,
        "fairness": _fairness(m),
    }


def _fairness(m: Match) -> dict | None:
    """The match's ``fairness`` block (docs/fairness.md); None for a match from before it.
    The server seed column is written only once the match is over; the status check is a
    second lock on the same door."""
    if m.server_seed_sha256 is None:
        return None
    over = m.status in ("finished", "aborted")
    return {"server_seed_sha256": m.server_seed_sha256, "player_seeds": m.player_seeds or {},
            "server_seed": m.server_seed if over else None,
            "match_seed": str(m.seed) if over and m.server_seed and m.seed is not None else None}


def _public_options(game_id: str, options: dict | None) -> dict | None:
    """Options as anybody may see them (a secret option, e.g. fixed decks, is hidden)."""
    from games.registry import get_game

    game = get_game(game_id)
    return game.public_options(options) if game and options else options


def _seat_user(u: User) -> dict:
    """A seat's user as history shows it; a computer player (docs/bots.md) carries ``bot``: its
    level, read from its id ``bot-<level>-<n>`` (true for a bot id of another shape)."""
    if not u.is_bot:
        return {"id": u.id, "name": u.name}
    head, _, tail = u.id.rpartition("-")
    level = head[len("bot-"):] if head.startswith("bot-") and tail.isdigit() else ""
    return {"id": u.id, "name": u.name, "bot": level or True}


async def match_record(maker: async_sessionmaker, match_id: str) -> dict | None:
    """Everything needed to replay the match: options (as stored: secret ones included, so
    every match replays), seats, seed and every engine step. The omniscient copy, for admins
    and the server; a player gets ``app.secret_options.record_for`` of it."""
    async with maker() as session:
        m = await session.get(Match, match_id)
        if m is None:
            return None
        seats = (await session.execute(
            select(MatchSeat, User).outerjoin(User, User.id == MatchSeat.user_id)
            .where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)
        )).all()
        actions = (await session.execute(
            select(MatchAction).where(MatchAction.match_id == match_id).order_by(MatchAction.version)
        )).scalars().all()
        record = _summary(m, seats)
        record["options"] = m.options
        record["seed"] = m.seed
        record["actions"] = [
            {"version": a.version, "seat": a.seat, "kind": a.kind, "action": a.payload,
             "user_id": a.user_id, "at": _iso(a.created_at), "events": a.events}
            for a in actions
        ]
        return record


async def list_matches(maker: async_sessionmaker, *, user_id: str | None = None,
                       game: str | None = None, status: str | None = None,
                       limit: int = 50) -> list[dict]:
    async with maker() as session:
        q = select(Match).order_by(Match.created_at.desc()).limit(limit)
        if game:
            q = q.where(Match.game == game)
        if status:
            q = q.where(Match.status == status)
        if user_id:
            q = q.where(Match.id.in_(select(MatchSeat.match_id).where(MatchSeat.user_id == user_id)))
        matches = (await session.execute(q)).scalars().all()
        out = []
        for m in matches:
            seats = (await session.execute(
                select(MatchSeat, User).outerjoin(User, User.id == MatchSeat.user_id)
                .where(MatchSeat.match_id == m.id).order_by(MatchSeat.seat)
            )).all()
            out.append(_summary(m, seats))
        return out


async def ping(maker: async_sessionmaker) -> bool:
    async with maker() as session:
        return (await session.execute(select(func.count()).select_from(select(1).subquery()))).scalar() == 1
