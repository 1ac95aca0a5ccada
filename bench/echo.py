#!/usr/bin/env python3
"""Baseline for bench/live.py: a bare websocket "pair" server with the same client protocol
and no Redis, no engine, no SQL, no validation.

Each match is a pair of sockets in this process's memory. An action message bumps the pair's
version and broadcasts a view of the same size and shape as Duelhall's to both sockets, then
acks the sender (unless the socket asked for ``ack=view``): the same messages, sizes and order
the real server produces, with nothing behind them. Seats alternate (A, B, A, ...) and a match
finishes after ``ECHO_MATCH_ACTIONS`` actions (230, about a Duell match to 9 duels), so the
client's match turnover is the same.

The server is ``bench/echo.py``'s ``app`` (``uvicorn --app-dir bench echo:app``). Running this
file runs the same load as bench/live.py against it:

    .venv/bin/python bench/echo.py                  # == bench/live.py --baseline
    .venv/bin/python bench/echo.py --matches 200 --duration 20 --no-deflate
"""
from __future__ import annotations

import os
import sys
import uuid

import orjson
from fastapi import FastAPI, WebSocket, WebSocketDisconnect

MATCH_ACTIONS = int(os.environ.get("ECHO_MATCH_ACTIONS", "230"))
LEGAL = [{"type": "move", "card": c, "dir": "forward"} for c in (1, 2, 3, 4, 5)]


def dumps(value) -> str:
    return orjson.dumps(value).decode()  # as the real server does


class Pair:
    def __init__(self, mid: str, host: dict):
        self.id = mid
        self.players = [{"seat": "A", "user": host}]  # Duelhall sends {seat, user{id,name,role}}
        self.version = 2
        self.status = "open"
        self.socks: dict[str, WebSocket] = {}
        self.actions = 0

    def pending(self) -> list[str]:
        if self.status != "live":
            return []
        return ["A" if self.version % 2 else "B"]

    def view(self, seat: str) -> str:
        pending = self.pending()
        # The same keys as Duelhall's view document and about the same size (~1.3 kB).
        return dumps({
            "type": "view", "match": self.id, "game": "duell", "version": self.version,
            "seq": self.version, "seat": seat, "status": self.status, "players": self.players,
            "options": {"mode": "prologo", "duels_to_win": 9, "track_length": 23,
                        "special_cards": True, "clock_seconds": None, "max_timeouts": 3},
            "pending": pending, "legal": LEGAL if seat in pending else [],
            "state": {"mode": "prologo", "track_length": 23, "duels_to_win": 9, "duel": 3,
                      "score": {"A": 2, "B": 0}, "starter": "B", "positions": {"A": 9, "B": 23},
                      "starts": {"A": 1, "B": 23}, "distance": 14, "hand": [3, 3, 4, 4, 5],
                      "hands": {"A": [3, 3, 4, 4, 5], "B": None}, "hand_sizes": {"A": 5, "B": 5},
                      "hand_limit": 5, "deck_count": 5, "aside_count": 0,
                      "discard": [5, 3, 3, 2, 5, 1, 2, 4, 5, 2], "special": None, "rule": None,
                      "phase": "play", "active": pending[0] if pending else None, "attack": None,
                      "deck_out": False,
                      "last_duel": {"duel": 2, "winner": "A", "reason": "deck_out",
                                    "decided_by": "advance", "advance": {"A": 3, "B": 2},
                                    "distance": 17},
                      "timeouts": {"A": 0, "B": 0}, "result": None},
            "events": [{"type": "move", "seat": "A", "card": 2, "dir": "forward", "to": 9, "from": 7,
                        "version": self.version},
                       {"type": "draw", "seat": "A", "count": 1, "cards": [5], "deck_count": 5,
                        "version": self.version}],
            "result": None, "deadline": None, "deadlines": {}, "client_seq": self.actions // 2,
        })


app = FastAPI(title="echo pairs")
pairs: dict[str, Pair] = {}


def _user(name: str) -> dict:
    return {"id": "u_" + uuid.uuid4().hex[:20], "name": name, "role": "player"}


@app.get("/healthz")
async def healthz():
    return {"status": "ok"}


@app.post("/api/auth/guest")
async def guest(body: dict):
    user = _user(str(body.get("name", "guest")))
    return {"token": user["id"], "user": user}  # the token is the user id: no crypto here


@app.post("/api/matches")
async def create(body: dict):
    mid = uuid.uuid4().hex[:12]
    pairs[mid] = Pair(mid, {"id": "u_" + uuid.uuid4().hex[:20], "name": "L12A", "role": "player"})
    return {"id": mid, "status": "open", "version": 1}


@app.post("/api/matches/{mid}/join")
async def join(mid: str):
    p = pairs[mid]
    p.players.append({"seat": "B", "user": {"id": "u_" + uuid.uuid4().hex[:20], "name": "L12B",
                                            "role": "player"}})
    p.status = "live"
    p.version = 3
    return {"id": mid, "status": "live", "version": p.version}


@app.websocket("/ws/matches/{mid}")
async def pair_socket(ws: WebSocket, mid: str, token: str | None = None, ack: str | None = None):
    await ws.accept()
    p = pairs.get(mid)
    if p is None:
        await ws.close(code=4404)
        return
    seat = "A" if "A" not in p.socks else "B"
    p.socks[seat] = ws
    try:
        await ws.send_text(p.view(seat))
        while True:
            data = orjson.loads(await ws.receive_text())
            if data.get("type") != "action":
                continue
            if seat not in p.pending():
                await ws.send_text(dumps({"type": "error", "code": "not_your_turn",
                                          "message": "It is not your turn.",
                                          "client_seq": data.get("client_seq")}))
                continue
            p.version += 1
            p.actions += 1
            if p.actions >= MATCH_ACTIONS:
                p.status = "finished"
            for s, sock in list(p.socks.items()):
                try:
                    await sock.send_text(p.view(s))
                except Exception:
                    p.socks.pop(s, None)
            if ack != "view":  # as Duelhall: with ?ack=view the view is the acknowledgment
                await ws.send_text(dumps({"type": "ack", "client_seq": data.get("client_seq"),
                                          "version": p.version, "duplicate": False}))
    except WebSocketDisconnect:
        pass
    finally:
        p.socks.pop(seat, None)
        if not p.socks and p.status == "finished":
            pairs.pop(mid, None)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import live

    sys.exit(live.main(sys.argv[1:], baseline_default=True))
