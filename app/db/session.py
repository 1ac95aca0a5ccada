"""Database engine and migrations."""
from __future__ import annotations

import json

import orjson
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from app.config import ROOT, Settings


def json_text(value) -> str:
    """JSON columns as orjson writes them (the history writer serialises options, results and
    every action's payload; json.dumps was a tenth of its CPU)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # what orjson refuses (integers beyond 64 bits), json still writes
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def make_engine(settings: Settings) -> AsyncEngine:
    url = settings.sqlalchemy_url()
    json_kw = {"json_serializer": json_text, "json_deserializer": orjson.loads}
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30}, **json_kw)

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _):  # WAL: readers don't block the history writer
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_async_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10,
                               connect_args=pooler_connect_args(settings), **json_kw)


def pooler_connect_args(settings: Settings) -> dict:
    """Driver arguments for the connection pooler in front of Postgres (DATABASE_POOLER).

    PgBouncer in transaction mode hands each transaction whichever server connection is free.
    A prepared statement lives on one server connection, so statements cached across
    transactions (asyncpg's own cache and SQLAlchemy's) would be looked for where they do not
    exist, and asyncpg's numbered names (``__asyncpg_stmt_1__``) would collide between clients
    sharing a server connection. So: no caches, and a fresh name for each statement SQLAlchemy
    prepares (it prepares and runs it inside one transaction, on one server connection)."""
    if settings.database_pooler != "pgbouncer":
        return {}
    import uuid

    return {"statement_cache_size": 0, "prepared_statement_cache_size": 0,
            "prepared_statement_name_func": lambda: f"__asyncpg_{uuid.uuid4().hex}__"}


def sessionmaker(engine: AsyncEngine) -> async_sessionmaker:
    return async_sessionmaker(engine, expire_on_commit=False)


def alembic_config(settings: Settings):
    from alembic.config import Config

    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.set_main_option("sqlalchemy.url", settings.sqlalchemy_url())
    return cfg


def migrate(settings: Settings) -> None:
    """Bring the schema to the newest migration (synchronous; call before serving)."""
    from alembic import command

    command.upgrade(alembic_config(settings), "head")
