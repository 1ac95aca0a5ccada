"""Issue #15, hole 8: names that pass for someone else's. Guests and new accounts may not take
a registered account's name or a look-alike of it (same confusable skeleton, app/names.py),
nor a reserved name; the skeleton is unique in SQL, so concurrent registrations cannot race."""
from __future__ import annotations

import asyncio
import os
import uuid
from datetime import UTC, datetime

import httpx
import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.ext.asyncio import create_async_engine

import app.api.auth as auth_api
from app.config import Settings
from app.db.session import alembic_config
from tests.conftest import account

CYRILLIC = str.maketrans({"o": "\u043e", "a": "\u0430", "e": "\u0435", "c": "\u0441", "p": "\u0440"})


def fullwidth(text: str) -> str:
    return "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)


def sfx() -> str:
    # Letters only, none with a look-alike among the others, so the name's own look-alikes are
    # the only ones (hex digits such as 0 and 1 map to O and l).
    return "".join("ghjkmnqrtuvwxyz"[b % 15] for b in uuid.uuid4().bytes[:5])


def refused(r, fragment: str = "") -> None:
    assert r.status_code == 409, r.text
    assert r.json()["error"]["code"] == "name_taken"
    assert fragment in r.json()["error"]["message"]


def test_look_alike_names_share_a_skeleton():
    from app.names import is_reserved, skeleton

    same = ["Root", "ROOT", "root", "R\u043e\u043et", "\uff32\uff4f\uff4f\uff54", "R00T",
            "Root\u3164"]
    assert {skeleton(n) for n in same} == {"root"}
    assert skeleton("Rob") != skeleton("Bob") and skeleton("Ann") != skeleton("Anne")
    assert skeleton("Jos\u00e9") == skeleton("Jose\u0301")  # composed or not, one name
    assert skeleton("Jos\u00e9") != skeleton("Jose")  # an accent is visible
    assert is_reserved("Adm\u0456n") and is_reserved("M\u043ederator") and is_reserved("SYSTEM")
    assert not is_reserved("Rooted") and not is_reserved("Ann")


def test_guests_may_not_take_a_registered_name_or_a_look_alike(client):
    name = "Poco" + sfx()
    account(client, name)
    for taken in (name, name.upper(), name.translate(CYRILLIC), fullwidth(name)):
        refused(client.post("/api/auth/guest", json={"name": taken}), "registered player")
    assert client.post("/api/auth/guest", json={"name": name + "x"}).status_code == 200
    # Guests' names are not unique among guests (as before): two may share one.
    other = "Coco" + sfx()
    assert client.post("/api/auth/guest", json={"name": other}).status_code == 200
    assert client.post("/api/auth/guest", json={"name": other}).status_code == 200


def test_nobody_takes_an_admins_name_beside_them(client):
    name = "Keeper" + sfx()
    account(client, name, role="admin")
    for taken in (name, name.translate(CYRILLIC), fullwidth(name)):
        refused(client.post("/api/auth/guest", json={"name": taken}))
        refused(client.post("/api/auth/register", json={"name": taken, "password": "long enough"}))


@pytest.mark.parametrize("name", ["Root", "R\u043e\u043et", "\uff32\uff4f\uff4f\uff54", "ADMIN",
                                  "Moderator", "system", "Duelhall", "Support"])
def test_reserved_names(client, name):
    refused(client.post("/api/auth/guest", json={"name": name}), "reserved")
    refused(client.post("/api/auth/register", json={"name": name, "password": "long enough"}), "reserved")


def test_registering_a_look_alike_of_an_account_is_refused(client):
    name = "Caper" + sfx()
    account(client, name)
    for taken in (name.translate(CYRILLIC), fullwidth(name), name.lower()):
        refused(client.post("/api/auth/register", json={"name": taken, "password": "long enough"}))


def test_concurrent_look_alike_registrations_make_one_account(client, monkeypatch):
    """Every spelling passes the check before any is stored (each request is held at its
    password hash until all have got there): the unique skeleton in SQL lets one through."""
    name = "Opera" + sfx()
    spellings = [name, name.translate(CYRILLIC), fullwidth(name), name.upper(),
                 name.translate(CYRILLIC).upper()]
    n = len(spellings)
    state = {"hashing": 0}
    release: dict[str, asyncio.Event] = {}
    real_hash = auth_api.hash_password

    async def held_hash(*args, **kwargs):
        state["hashing"] += 1
        if state["hashing"] >= n:
            release["ev"].set()
        await release["ev"].wait()
        return await real_hash(*args, **kwargs)

    monkeypatch.setattr(auth_api, "hash_password", held_hash)

    async def run():
        release["ev"] = asyncio.Event()
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            return await asyncio.gather(*(http.post("/api/auth/register",
                                                    json={"name": s, "password": "long enough"})
                                          for s in spellings))

    responses = client.portal.call(run)
    assert state["hashing"] == n  # all of them passed the check before any was stored
    assert sorted(r.status_code for r in responses) == [200] + [409] * (n - 1), [r.text for r in responses]
    assert all(r.json()["error"]["code"] == "name_taken" for r in responses if r.status_code == 409)


def test_create_admin_refuses_a_look_alike(settings):
    from app.cli import create_admin

    name = "Warder" + sfx()
    assert asyncio.run(create_admin(settings, name, "a long password")).startswith("created admin")
    with pytest.raises(ValueError, match="looks just like"):
        asyncio.run(create_admin(settings, name.translate(CYRILLIC), "a long password"))
    # The operator may still make an admin called Root: reserved names keep others from it.
    out = asyncio.run(create_admin(settings, "Root", "a long password"))
    assert "Root" in out and "admin" in out


# ------------------------------------------------------------------ migration 0006
def _url_and_cleanup(tmp_path):
    """A database of its own: a SQLite file, or beside DATABASE_URL's Postgres database a
    scratch one named after it (dropped afterwards)."""
    url = os.environ.get("DATABASE_URL")
    if not url or not url.startswith("postgres"):
        return f"sqlite:///{tmp_path}/names.sqlite3", None
    base, _, dbname = url.rpartition("/")
    scratch = f"{dbname.split('?')[0]}_mig_{uuid.uuid4().hex[:8]}"

    async def admin_sql(sql):
        engine = create_async_engine(Settings(database_url=url).sqlalchemy_url(),
                                     isolation_level="AUTOCOMMIT")
        async with engine.connect() as conn:
            await conn.execute(sa.text(sql))
        await engine.dispose()

    asyncio.run(admin_sql(f'CREATE DATABASE "{scratch}"'))
    return f"{base}/{scratch}", lambda: asyncio.run(admin_sql(f'DROP DATABASE "{scratch}"'))


async def _sql(url: str, *statements, fetch: str | None = None):
    engine = create_async_engine(Settings(database_url=url).sqlalchemy_url())
    try:
        async with engine.begin() as conn:
            for stmt, params in statements:
                await conn.execute(sa.text(stmt), params)
            if fetch:
                return (await conn.execute(sa.text(fetch))).all()
    finally:
        await engine.dispose()


def _user(uid, name, name_key, minute):
    return (("INSERT INTO users (id, name, role, is_guest, is_bot, created_at, name_key, suspended, token_gen) "
             "VALUES (:id, :name, 'player', :guest, false, :at, :key, false, 0)"),
            {"id": uid, "name": name, "guest": name_key is None, "key": name_key,
             "at": datetime(2026, 1, 1, 0, minute, tzinfo=UTC)})


def test_migration_0006_fills_skeletons_oldest_first_and_goes_down_and_up(tmp_path):
    url, cleanup = _url_and_cleanup(tmp_path)
    try:
        cfg = alembic_config(Settings(database_url=url))
        command.upgrade(cfg, "0005")
        cyr = "R\u043e\u043et"
        asyncio.run(_sql(url, _user("u1", "Root", "root", 1), _user("u2", cyr, cyr.casefold(), 2),
                         _user("u3", "Ann", "ann", 3), _user("g1", "Root", None, 4)))
        command.upgrade(cfg, "head")
        rows = dict(asyncio.run(_sql(url, fetch="SELECT id, name_skeleton FROM users")))
        # The older Root keeps the skeleton; the later look-alike and the guest have none.
        assert rows == {"u1": "root", "u2": None, "u3": "ann", "g1": None}
        with pytest.raises(sa.exc.IntegrityError):
            asyncio.run(_sql(url, ("UPDATE users SET name_skeleton = 'root' WHERE id = 'u3'", {})))
        command.downgrade(cfg, "0005")
        row = asyncio.run(_sql(url, fetch="SELECT * FROM users WHERE id = 'u1'"))[0]
        assert "name_skeleton" not in row._fields and row.name == "Root"
        command.upgrade(cfg, "head")
        assert dict(asyncio.run(_sql(url, fetch="SELECT id, name_skeleton FROM users")))["u1"] == "root"
    finally:
        if cleanup:
            cleanup()
