"""Deploys that drain, in one process (app/drain.py, Services.drain, Hub.close_all, app/ws.py):
readiness 503 at once, sockets closed with 1012 after the move in hand, new sockets closed
straight away, and the SIGTERM hook that runs the drain before the server's own handler.
The same with a real server process and SIGTERM: tests/multiprocess/test_drain.py."""
from __future__ import annotations

import asyncio
import os
import signal
import threading

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app import drain
from app import ws as ws_module
from app.main import create_app
from tests.app.support import duell_match
from tests.app.test_websocket import connect, recv_until
from tests.support import async_wait_for


@pytest.fixture
def draining_client(settings):
    settings = settings.model_copy(update={"drain_seconds": 0})
    with TestClient(create_app(settings, run_migrations=False)) as c:
        yield c


def closed_with(ws) -> int:
    """Read until the server closes the socket; its close code."""
    while True:
        try:
            ws.receive_json()
        except WebSocketDisconnect as closed:
            return closed.code


def test_drain_closes_idle_sockets_with_1012_and_a_busy_one_after_its_move(draining_client, monkeypatch):
    client = draining_client
    svc = client.app.state.services
    mid, p = duell_match(client)
    # The move is held inside the socket's handler until the test lets it go.
    entered, gate = threading.Event(), asyncio.Event()
    real_act = ws_module.act

    async def held_act(*args, **kwargs):
        entered.set()
        await gate.wait()
        return await real_act(*args, **kwargs)

    monkeypatch.setattr(ws_module, "act", held_act)
    assert client.get("/readyz").status_code == 200
    with connect(client, mid, p["A"]) as wa, connect(client, mid, p["B"]) as wb:
        va, vb = wa.receive_json(), wb.receive_json()
        mover = va["pending"][0]
        ws_m, v_m, ws_o = (wa, va, wb) if mover == "A" else (wb, vb, wa)
        ws_m.send_json({"type": "action", "action": v_m["legal"][0], "client_seq": 1})
        assert entered.wait(10), "the move never reached the handler (patch not in effect)"

        drained = client.portal.start_task_soon(svc.drain)
        # Out of rotation at once; the other calls are still served.
        r = client.get("/readyz")
        assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"
        assert client.get("/healthz").status_code == 200
        # The idle socket is closed with 1012 while the move is still in hand...
        assert closed_with(ws_o) == 1012
        assert not drained.done() and not gate.is_set()
        # ...and the mover's socket gets the view of its move and its ack, then 1012.
        client.portal.call(gate.set)
        ack, before = recv_until(ws_m, "ack")
        assert ack["client_seq"] == 1 and ack["duplicate"] is False
        assert [m["version"] for m in before if m["type"] == "view"] == [v_m["version"] + 1]
        assert closed_with(ws_m) == 1012
        drained.result(10)

        # The move was applied exactly once, and the background loops have stopped.
        assert svc.stopping.is_set() and all(t.done() for t in svc.tasks)
        # A socket opened after the drain is told to go elsewhere at once.
        with connect(client, mid, p["A"]) as late:
            assert late.receive_json()["version"] == v_m["version"] + 1
            assert closed_with(late) == 1012
    assert client.get("/readyz").status_code == 503


def test_a_message_that_arrives_as_the_socket_closes_is_left_for_the_client_to_resend(
        draining_client, monkeypatch):
    """A drain marks every socket closing first: a message taken after that is not applied
    (the client has no ack for it and re-sends it after reconnecting, same client_seq)."""
    client = draining_client
    svc = client.app.state.services
    mid, p = duell_match(client)
    applied = []
    real_act = ws_module.act

    async def counting_act(*args, **kwargs):
        applied.append(args)
        return await real_act(*args, **kwargs)

    monkeypatch.setattr(ws_module, "act", counting_act)
    mover = client.get(f"/api/matches/{mid}/view", headers=p["A"]["headers"]).json()["pending"][0]
    with connect(client, mid, p[mover]) as ws:
        v = ws.receive_json()

        async def ask_to_close():  # what close_all does first, for every socket
            for group in svc.hub.conns.values():
                for conn in group:
                    conn.closing = True

        client.portal.call(ask_to_close)
        ws.send_json({"type": "action", "action": v["legal"][0], "client_seq": 1})
        assert closed_with(ws) == 1012
    assert applied == []
    after = client.get(f"/api/matches/{mid}/view", headers=p[mover]["headers"]).json()
    assert after["version"] == v["version"] and after["client_seq"] == 0


async def test_sigterm_runs_the_drain_first_and_a_second_one_goes_to_the_server_at_once():
    """app/drain.py in front of a server's handler (uvicorn's, installed before the app
    starts): the first SIGTERM drains and then hands the signal on; the second goes straight
    on. Runs on the main thread, as uvicorn does."""
    assert threading.current_thread() is threading.main_thread()
    handed_on, drains = [], []
    release = asyncio.Event()

    def server_handler(sig, frame):
        handed_on.append(sig)

    class FakeServices:
        draining = False

        async def drain(self):
            drains.append(1)
            await release.wait()

    previous = signal.signal(signal.SIGTERM, server_handler)
    try:
        undo = drain.install(FakeServices())
        assert signal.getsignal(signal.SIGTERM) is not server_handler
        os.kill(os.getpid(), signal.SIGTERM)
        await async_wait_for(lambda: drains, message="the drain did not start")
        assert handed_on == []  # the server is not told while the drain runs
        release.set()
        await async_wait_for(lambda: handed_on, message="the signal was not handed on")
        assert handed_on == [signal.SIGTERM] and drains == [1]
        os.kill(os.getpid(), signal.SIGTERM)  # a second one: straight to the server
        await async_wait_for(lambda: len(handed_on) == 2, message="the second signal was held")
        assert drains == [1]
        undo()
        assert signal.getsignal(signal.SIGTERM) is server_handler
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_the_drain_hook_stays_out_of_a_test_clients_thread(settings):
    """TestClient runs the lifespan off the main thread: no handler is installed there (and
    none could be)."""
    before = signal.getsignal(signal.SIGTERM)
    with TestClient(create_app(settings, run_migrations=False)) as c:
        assert c.get("/readyz").status_code == 200
        assert signal.getsignal(signal.SIGTERM) is before
