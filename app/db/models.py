"""History schema. Alembic owns it (migrations/); these models mirror the migrations."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(40), index=True)
    role: Mapped[str] = mapped_column(String(16), default="player")
    is_guest: Mapped[bool] = mapped_column(Boolean, default=True)
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # Accounts (migration 0003). name_key: the case-folded name, unique among accounts.
    name_key: Mapped[str | None] = mapped_column(String(40), nullable=True, unique=True)
    suspended: Mapped[bool] = mapped_column(Boolean, default=False)
    # Bumped on password change and suspension: tokens carrying an older value stop working.
    token_gen: Mapped[int] = mapped_column(Integer, default=0)
    # Accounts (migration 0006): the name's confusable skeleton (app/names.py), unique among
    # accounts, so no two accounts (nor a guest and an account) can look alike. NULL for guests.
    name_skeleton: Mapped[str | None] = mapped_column(String(255), nullable=True, unique=True)


class Match(Base):
    __tablename__ = "matches"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    game: Mapped[str] = mapped_column(String(20), index=True)
    status: Mapped[str] = mapped_column(String(12), index=True)
    # Latest live version this row reflects; older records never overwrite newer ones.
    version: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict] = mapped_column(JSON)
    # The engine's seed: derived when the match starts (docs/fairness.md), empty before.
    seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    host_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    result: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    # Ratings applied (once, in the same transaction that recorded the finish).
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    # Provably fair chance (migration 0007): the commitment and the players' seeds
    # ({seat: hex}) from creation on; the server seed only once the match is over.
    server_seed_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    server_seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    player_seeds: Mapped[dict | None] = mapped_column(JSON, nullable=True)


class MatchSeat(Base):
    __tablename__ = "match_seats"
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[str] = mapped_column(String(2), primary_key=True)
    user_id: Mapped[str | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    place: Mapped[int | None] = mapped_column(Integer, nullable=True)


class MatchAction(Base):
    __tablename__ = "match_actions"
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    # The match version this action produced: unique, so a record written twice lands once.
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[str] = mapped_column(String(2))
    user_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    kind: Mapped[str] = mapped_column(String(12))  # action | timeout | resign
    payload: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The step's events as the engine made them, visibility included (migration 0007);
    # shown in the record once the match is over, for ``duelhall verify``.
    events: Mapped[list | None] = mapped_column(JSON, nullable=True)


# (No index of its own: the primary key (match_id, version) serves reads by match; migration 0005.)


class Deck(Base):
    """A Párbaj deck saved by a user (migration 0002). ``user_id`` is the token's ``sub``: guests
    are not rows in ``users`` until they play, so there is no foreign key."""
    __tablename__ = "decks"
    __table_args__ = (UniqueConstraint("user_id", "name", name="uq_decks_user_name"),)
    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(40), index=True)
    name: Mapped[str] = mapped_column(String(40))
    cards: Mapped[list] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Rating(Base):
    """openskill rating per user and game (migration 0003)."""
    __tablename__ = "ratings"
    user_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    game: Mapped[str] = mapped_column(String(20), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    matches: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Report(Base):
    __tablename__ = "reports"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(String(40), index=True)
    user_id: Mapped[str] = mapped_column(String(40))
    reason: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(12), default="open", index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    resolved_by: Mapped[str | None] = mapped_column(String(40), nullable=True)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class MatchNote(Base):
    __tablename__ = "match_notes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(String(40), index=True)
    author_id: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AuditEntry(Base):
    """Every admin action, append-only."""
    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    actor_id: Mapped[str] = mapped_column(String(40), index=True)
    action: Mapped[str] = mapped_column(String(40))
    target: Mapped[str] = mapped_column(String(80))
    details: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


from sqlalchemy import Text, TypeDecorator  # noqa: E402  (tournaments, appended below)


class JsonText(TypeDecorator):
    """JSON kept as text and (de)serialised with orjson: for the tournament state, read and
    written whole on every change and never queried inside (several times faster than the JSON
    type's json module on half-megabyte documents; the same TEXT column on SQLite and Postgres)."""
    impl = Text
    cache_ok = True

    def process_bind_param(self, value, dialect):
        import orjson

        return None if value is None else orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()

    def process_result_value(self, value, dialect):
        import orjson

        return None if value is None else orjson.loads(value)


class Tournament(Base):
    """A tournament (migration 0004): the event's settings and entrants, the tournament core's
    JSON state once it runs (``app/tournaments/core.py``) and the service's bookkeeping
    (``meta``: each pairing's matches, timers, disputes). ``revision`` goes up by one with every
    change, and every change is ``UPDATE ... WHERE revision = :read`` (``app/db/tournaments.py``)."""
    __tablename__ = "tournaments"
    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(20), index=True)
    format: Mapped[str] = mapped_column(String(24))
    status: Mapped[str] = mapped_column(String(16), index=True)
    organiser_id: Mapped[str] = mapped_column(String(40), index=True)
    organiser_name: Mapped[str] = mapped_column(String(40))
    settings: Mapped[dict] = mapped_column(JSON)
    entrants: Mapped[list] = mapped_column(JsonText)
    state: Mapped[dict | None] = mapped_column(JsonText, nullable=True)
    meta: Mapped[dict] = mapped_column(JsonText)
    revision: Mapped[int] = mapped_column(Integer)
    # The Redis key prefix its live matches are created under: a deployment's sweep looks after
    # its own tournaments only (several test runs or deployments may share one database).
    redis_prefix: Mapped[str] = mapped_column(String(40), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class TournamentStandings(Base):
    """The standings after each round of a tournament (migration 0004), written in the same
    transaction as the change that closed the round; kept out of the event row, which every
    change reads and writes whole."""
    __tablename__ = "tournament_standings"
    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    standings: Mapped[list] = mapped_column(JsonText)
