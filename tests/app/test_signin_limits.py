"""Issue #15, hole 4: sign-in limits that hold under concurrency, cannot be dodged with a
forged X-Forwarded-For, cannot lock a known device out, also guard the password change, and
bound the argon2 work that wrong passwords cost."""
from __future__ import annotations

import asyncio
import threading
import uuid

import httpx
import pytest
from fastapi.testclient import TestClient

import app.api.auth as auth_api
import app.auth
from app.config import Settings
from app.main import create_app
from tests.conftest import account

# The documented limits (docs/accounts.md), checked against app/signin.py below.
FAILS_PER_NAME, FAILS_PER_ADDRESS, FAILS_PER_DEVICE = 5, 30, 10


def test_the_documented_limits_are_the_code_s():
    from app import signin

    assert (signin.FAILS_PER_NAME, signin.FAILS_PER_ADDRESS, signin.FAILS_PER_DEVICE,
            signin.FAIL_WINDOW) == (FAILS_PER_NAME, FAILS_PER_ADDRESS, FAILS_PER_DEVICE, 900)


def sfx() -> str:
    return uuid.uuid4().hex[:6]


def code(r) -> str:
    return r.json()["error"]["code"]


async def _gather_logins(app, bodies, headers=None, client_addr=("127.0.0.1", 5000), on_done=None):
    transport = httpx.ASGITransport(app=app, client=client_addr)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        async def one(body, extra):
            try:
                return await http.post("/api/auth/login", json=body, headers=extra or {})
            finally:
                if on_done:
                    on_done()
        return await asyncio.gather(*(one(b, (headers or [None] * len(bodies))[i])
                                      for i, b in enumerate(bodies)))


# ------------------------------------------------------------------ atomic per-name limit
def test_concurrent_wrong_passwords_get_no_more_checks_than_the_limit(client, monkeypatch):
    """25 wrong passwords for one name at once: only FAILS_PER_NAME passwords are checked,
    the rest are refused before any hashing. Each checked attempt is held until every
    request has either reached the check or been answered, so all 25 really overlap."""
    name = "Conc" + sfx()
    account(client, name)
    n = 25
    state = {"checked": 0, "answered": 0}
    release: dict[str, asyncio.Event] = {}
    real_verify = auth_api.verify_password

    def progress():
        if state["checked"] + state["answered"] >= n:
            release["ev"].set()

    async def held_verify(*args, **kwargs):
        state["checked"] += 1
        progress()
        await release["ev"].wait()
        return await real_verify(*args, **kwargs)

    monkeypatch.setattr(auth_api, "verify_password", held_verify)

    def answered():
        state["answered"] += 1
        progress()

    async def run():
        release["ev"] = asyncio.Event()
        return await _gather_logins(client.app, [{"name": name, "password": "wrong password"}] * n,
                                    on_done=answered)

    responses = client.portal.call(run)
    statuses = sorted(r.status_code for r in responses)
    assert state["checked"] == FAILS_PER_NAME, f"{state['checked']} passwords checked"
    assert statuses == [401] * FAILS_PER_NAME + [429] * (n - FAILS_PER_NAME)
    assert all(code(r) == "rate_limited" for r in responses if r.status_code == 429)


def test_the_counter_helper_counts_all_quotas_or_none(client):
    from app import ratelimit
    from app.ratelimit import Quota

    svc = client.app.state.services
    p = svc.store.k.p + "rl-test:" + sfx()
    a, b = Quota(p + "a", 2, 60), Quota(p + "b", 3, 60)

    async def run():
        assert await ratelimit.take(svc.redis, a, b) is None
        assert await ratelimit.take(svc.redis, a, b) is None
        spent = await ratelimit.take(svc.redis, a, b)  # a is spent: b is not counted either
        counts = (await ratelimit.used(svc.redis, a), await ratelimit.used(svc.redis, b))
        ttl = await svc.redis.ttl(a.key)
        await ratelimit.give_back(svc.redis, a, b)
        back = (await ratelimit.used(svc.redis, a), await ratelimit.used(svc.redis, b))
        await ratelimit.clear(svc.redis, a)
        await ratelimit.give_back(svc.redis, a)  # never below zero, never a key of its own
        return spent, counts, ttl, back, await svc.redis.exists(a.key)

    spent, counts, ttl, back, exists = client.portal.call(run)
    assert spent == a and counts == (2, 2) and 0 < ttl <= 60
    assert back == (1, 1) and exists == 0


# ------------------------------------------------------------------ device tokens
def test_a_known_device_signs_in_while_the_name_is_locked_out(client, settings):
    from app import device_tokens

    name = "Dev" + sfx()
    acc = account(client, name)
    first = client.post("/api/auth/login", json={"name": name, "password": acc["password"]})
    assert first.status_code == 200
    device = first.json()["device_token"]
    assert device_tokens.read(device, settings, name) is not None
    # An attacker's guesses lock the name for anyone without a device token ...
    for _ in range(FAILS_PER_NAME):
        assert client.post("/api/auth/login", json={"name": name, "password": "guess guess"}).status_code == 401
    r = client.post("/api/auth/login", json={"name": name, "password": acc["password"]})
    assert r.status_code == 429 and code(r) == "rate_limited"
    # ... but the owner's browser, which signed in before, gets in with the right password.
    r = client.post("/api/auth/login", json={"name": name, "password": acc["password"],
                                             "device_token": device})
    assert r.status_code == 200 and r.json()["user"]["id"] == acc["user"]["id"]
    renewed = device_tokens.read(r.json()["device_token"], settings, name)
    assert renewed.device_id == device_tokens.read(device, settings, name).device_id
    # The name stays locked for everyone else.
    assert client.post("/api/auth/login", json={"name": name, "password": acc["password"]}).status_code == 429


def test_device_tokens_that_do_not_vouch_for_this_name(client, settings):
    from app import device_tokens

    name, other = "Vic" + sfx(), "Oth" + sfx()
    acc, oth = account(client, name), account(client, other)
    assert oth["device_token"]  # registering also trusts the device
    for _ in range(FAILS_PER_NAME):
        client.post("/api/auth/login", json={"name": name, "password": "guess guess"})
    forged = device_tokens.issue(Settings(secret_key="another-key-0123456789abcdef0123456789"),
                                 acc["user"]["id"], name)
    expired = device_tokens.issue(settings.model_copy(update={"device_token_ttl_seconds": -10}),
                                  acc["user"]["id"], name)
    for token in (oth["device_token"], forged, expired, acc["token"], "not a token"):
        r = client.post("/api/auth/login", json={"name": name, "password": acc["password"],
                                                 "device_token": token})
        assert r.status_code == 429, token  # treated as an unknown device: the name is locked
    # Nor does a device token pass for a session.
    r = client.get("/api/me", headers={"Authorization": f"Bearer {oth['device_token']}"})
    assert r.status_code == 401


def test_a_known_device_has_a_limit_of_its_own(client):
    name = "Own" + sfx()
    acc = account(client, name)
    device = acc["device_token"]
    for _ in range(FAILS_PER_DEVICE):
        r = client.post("/api/auth/login", json={"name": name, "password": "typo typo",
                                                 "device_token": device})
        assert r.status_code == 401
    # Past its own limit the device is unknown again: the name's limit applies (not yet spent).
    for _ in range(FAILS_PER_NAME):
        assert client.post("/api/auth/login", json={"name": name, "password": "typo typo",
                                                    "device_token": device}).status_code == 401
    r = client.post("/api/auth/login", json={"name": name, "password": acc["password"],
                                             "device_token": device})
    assert r.status_code == 429


# ------------------------------------------------------------------ password change
def test_the_current_password_is_checked_under_the_sign_in_limits(client):
    name = "Pwd" + sfx()
    acc = account(client, name)
    for _ in range(FAILS_PER_NAME):
        r = client.post("/api/auth/password", json={"old_password": "guess guess",
                                                    "new_password": "brand new pass"},
                        headers=acc["headers"])
        assert r.status_code == 403 and code(r) == "wrong_password"
    r = client.post("/api/auth/password", json={"old_password": acc["password"],
                                                "new_password": "brand new pass"},
                    headers=acc["headers"])
    assert r.status_code == 429 and code(r) == "rate_limited"
    # The same budget as sign-in by name: those guesses locked the name there too.
    assert client.post("/api/auth/login", json={"name": name, "password": acc["password"]}).status_code == 429


def test_concurrent_wrong_current_passwords_get_no_more_checks_than_the_limit(client, monkeypatch):
    name = "Cpw" + sfx()
    acc = account(client, name)
    n = 12
    state = {"checked": 0, "answered": 0}
    release: dict[str, asyncio.Event] = {}
    real_verify = auth_api.verify_password

    def progress():
        if state["checked"] + state["answered"] >= n:
            release["ev"].set()

    async def held_verify(*args, **kwargs):
        state["checked"] += 1
        progress()
        await release["ev"].wait()
        return await real_verify(*args, **kwargs)

    monkeypatch.setattr(auth_api, "verify_password", held_verify)

    async def run():
        release["ev"] = asyncio.Event()
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            async def one():
                try:
                    return await http.post("/api/auth/password", headers=acc["headers"],
                                           json={"old_password": "guess guess", "new_password": "whatever new"})
                finally:
                    state["answered"] += 1
                    progress()
            return await asyncio.gather(*(one() for _ in range(n)))

    responses = client.portal.call(run)
    assert state["checked"] == FAILS_PER_NAME
    assert sorted(r.status_code for r in responses) == [403] * FAILS_PER_NAME + [429] * (n - FAILS_PER_NAME)


# ------------------------------------------------------------------ client address
@pytest.fixture
def behind_proxy(settings):
    s = settings.model_copy(update={"trusted_proxies": ["127.0.0.1"]})
    with TestClient(create_app(s, run_migrations=False)) as c:
        yield c


def test_the_address_limit_keys_on_the_address_the_trusted_proxy_saw(behind_proxy):
    """Through a trusted proxy (127.0.0.1 here), a client writing its own X-Forwarded-For
    entries gets nothing: the proxy appends the real address, and that one is counted."""
    c = behind_proxy
    bodies = [{"name": f"Nobody{i}x{sfx()}", "password": "wrong password"} for i in range(FAILS_PER_ADDRESS + 1)]
    # What the proxy forwards: the client's own header, then the address it connected from.
    spoofed = [{"X-Forwarded-For": f"198.51.100.{i}, 203.0.113.7"} for i in range(len(bodies))]

    async def run():
        out = []
        for body, h in zip(bodies, spoofed):  # one at a time: this is about the key, not races
            out += await _gather_logins(c.app, [body], headers=[h])
        other = await _gather_logins(c.app, [{"name": "Someone" + sfx(), "password": "wrong password"}],
                                     headers=[{"X-Forwarded-For": "203.0.113.8"}])
        direct = await _gather_logins(c.app, [{"name": "Someone" + sfx(), "password": "wrong password"}],
                                      headers=[{"X-Forwarded-For": "203.0.113.7"}],
                                      client_addr=("192.0.2.50", 5000))
        return out, other[0], direct[0]

    out, other, direct = c.portal.call(run)
    assert [r.status_code for r in out] == [401] * FAILS_PER_ADDRESS + [429]
    assert other.status_code == 401  # another real client is not limited
    # A request from an address that is not a trusted proxy: its header is ignored (its own
    # address, 192.0.2.50, is counted, not the 203.0.113.7 it claims).
    assert direct.status_code == 401


def test_without_trusted_proxies_forwarded_headers_are_ignored(client):
    async def run():
        out = []
        for i in range(FAILS_PER_ADDRESS + 1):
            out += await _gather_logins(client.app, [{"name": f"Nobody{i}y{sfx()}", "password": "wrong password"}],
                                        headers=[{"X-Forwarded-For": f"198.51.100.{i}"}])
        return out

    assert [r.status_code for r in client.portal.call(run)] == [401] * FAILS_PER_ADDRESS + [429]


@pytest.mark.parametrize("value", ["*", "nginx", "10.0.0.0/33"])
def test_trusted_proxies_must_be_addresses_or_networks(value):
    with pytest.raises(ValueError):
        Settings(trusted_proxies=value)


def test_trusted_proxies_from_the_environment(monkeypatch):
    monkeypatch.setenv("TRUSTED_PROXIES", "172.28.0.10, 10.1.0.0/16")
    assert Settings().trusted_proxies == ["172.28.0.10", "10.1.0.0/16"]
    monkeypatch.setenv("TRUSTED_PROXIES", '["::1"]')
    assert Settings().trusted_proxies == ["::1"]
    monkeypatch.delenv("TRUSTED_PROXIES")
    assert Settings().trusted_proxies == []  # the default: nobody's forwarded headers are read


# ------------------------------------------------------------------ bounded hashing
@pytest.fixture
def narrow_gate(settings):
    s = settings.model_copy(update={"password_hash_concurrency": 1, "password_hash_queue": 2})
    with TestClient(create_app(s, run_migrations=False)) as c:
        yield c


def test_a_flood_of_wrong_passwords_queues_bounded_hashing_and_spares_known_devices(narrow_gate, monkeypatch):
    """Hashing held busy by a flood from unknown devices (1 running, 2 waiting): further
    unknown-device sign-ins are refused at once with rate_limited, no hash run for them,
    and a sign-in from a known device still goes through on its own lane."""
    c = narrow_gate
    name = "Lane" + sfx()
    acc = account(c, name)
    hasher = app.auth._password_hash()
    real_verify = hasher.verify
    lock, release = threading.Lock(), threading.Event()
    held = {"running": 0, "most": 0, "calls": 0}

    def verify(password, hashed):
        if not password.startswith("flood"):
            return real_verify(password, hashed)
        with lock:
            held["calls"] += 1
            held["running"] += 1
            held["most"] = max(held["most"], held["running"])
        try:
            release.wait(60)
            return real_verify(password, hashed)
        finally:
            with lock:
                held["running"] -= 1

    # The server's dummy hash (what an unknown name is checked against) exists before the
    # flood, so each flooder's only argon2 step is the one held below.
    assert c.post("/api/auth/login", json={"name": "Warmup" + sfx(), "password": "flood warm"}).status_code == 401
    assert app.auth._DUMMY
    monkeypatch.setattr(hasher, "verify", verify)
    n, admitted = 8, 1 + 2
    refused = asyncio.Event

    async def run():
        done = {"n": 0}
        enough = refused()

        def answered():
            done["n"] += 1
            if done["n"] >= n - admitted:
                enough.set()

        bodies = [{"name": f"Flood{i}z{sfx()}", "password": f"flood {i} guess"} for i in range(n)]
        flood = asyncio.ensure_future(_gather_logins(c.app, bodies, on_done=answered))
        await asyncio.wait_for(enough.wait(), 60)  # the refusals come without any hashing
        gate = c.app.state.services.passwords.untrusted
        busy = (gate.running, gate.waiting, gate.refused)
        unknown = await _gather_logins(c.app, [{"name": name, "password": acc["password"]}])
        known = await _gather_logins(c.app, [{"name": name, "password": acc["password"],
                                              "device_token": acc["device_token"]}])
        release.set()
        return await flood, busy, unknown[0], known[0]

    flood, busy, unknown, known = c.portal.call(run)
    statuses = sorted(r.status_code for r in flood)
    assert statuses == [401] * admitted + [429] * (n - admitted)
    assert all(code(r) == "rate_limited" for r in flood if r.status_code == 429)
    assert busy == (1, 2, n - admitted)
    assert held["most"] == 1 and held["calls"] == admitted  # patched hasher really ran, once at a time
    assert unknown.status_code == 429 and code(unknown) == "rate_limited"
    assert known.status_code == 200
