"""The server's seed never leaves the server while the match is live (docs/fairness.md).

Differential, at the wire: one live match, observed twice from the same position, the two worlds
differing only in the server's secret seed (and so in its published hash). Every player, a
spectator and an admin get identical bytes in both worlds once the hash is masked - HTTP views,
summaries, lobby lists, the record's refusal, websocket messages before and after a move, and the
history and admin pages read from SQL - and neither seed string appears in any of them, nor in
the logs, the event lists, the outbox or the SQL rows. After the end the seed is revealed, and
the same comparison tells the worlds apart (so it can fail)."""
from __future__ import annotations

import json
import logging
import secrets
import uuid

from sqlalchemy import select

from app.db.models import Match, MatchAction
from games import fairness as F
from tests.conftest import account, drain, guest

MASK = "<commitment>"


def raw_doc(client, mid) -> str:
    svc = client.app.state.services
    return client.portal.call(svc.redis.get, svc.store.k.match(mid))


def put_raw(client, mid, raw: str) -> None:
    svc = client.app.state.services
    client.portal.call(svc.redis.set, svc.store.k.match(mid), raw)


def with_server_seed(raw: str, server_seed: str) -> str:
    doc = json.loads(raw)
    doc["fairness"]["server_seed"] = server_seed
    doc["fairness"]["server_seed_sha256"] = F.commitment(server_seed)
    return json.dumps(doc)


def text(x) -> str:
    return x if isinstance(x, str) else x.decode()


def sql_rows(client, mid) -> str:
    svc = client.app.state.services

    async def read():
        async with svc.maker() as s:
            m = (await s.execute(select(Match).where(Match.id == mid))).scalar_one()
            acts = (await s.execute(select(MatchAction).where(MatchAction.match_id == mid))).scalars().all()
            cols = [c.name for c in Match.__table__.columns]
            return ({c: getattr(m, c) for c in cols},
                    [{c.name: getattr(a, c.name) for c in MatchAction.__table__.columns} for a in acts])

    row, actions = client.portal.call(read)
    return json.dumps([row, actions], default=str), row


def redis_side_channels(client, mid) -> str:
    """What the server keeps beside the document: the event batches sockets resume from, and
    the outbox of history records on their way to SQL."""
    svc = client.app.state.services
    events = client.portal.call(svc.redis.lrange, svc.store.k.events(mid), 0, -1)
    outbox = client.portal.call(svc.redis.xrange, svc.store.k.outbox)
    return json.dumps([[text(e) for e in events], [{text(k): text(v) for k, v in f.items()} for _, f in outbox]])


def test_two_server_seeds_look_the_same_to_everyone_until_the_end(client, caplog, capfd):
    caplog.set_level(logging.DEBUG)
    a, b = guest(client, "Ann"), guest(client, "Bob")
    spectator = guest(client, "Spec")
    admin = account(client, f"Root{uuid.uuid4().hex[:8]}", role="admin")
    r = client.post("/api/matches", json={"game": "duell", "options": {"clock_seconds": None},
                                          "seed": "a1" * 16}, headers=a["headers"])
    mid = r.json()["id"]
    client.post(f"/api/matches/{mid}/join", json={"seed": "b2" * 16}, headers=b["headers"])
    drain(client)
    players = {"A": a, "B": b}
    start = raw_doc(client, mid)
    first_seed = json.loads(start)["fairness"]["server_seed"]
    second_seed = secrets.token_hex(32)
    seeds = (first_seed, second_seed)
    hashes = tuple(F.commitment(s) for s in seeds)
    v = client.get(f"/api/matches/{mid}/view", headers=a["headers"]).json()
    mover = v["pending"][0]
    other = "B" if mover == "A" else "A"
    move = client.get(f"/api/matches/{mid}/view", headers=players[mover]["headers"]).json()["legal"][0]

    def http_outputs() -> list[str]:
        out = [client.get(f"/api/matches/{mid}/view", headers=p["headers"]).content
               for p in (a, b, spectator, admin)]
        out.append(client.get(f"/api/matches/{mid}/view").content)  # signed out
        out.append(client.get(f"/api/matches/{mid}").content)
        out.append(client.get("/api/matches", params={"status": "live"}).content)
        out.append(client.get(f"/api/matches/{mid}/record", headers=a["headers"]).content)
        out.append(client.get(f"/api/admin/matches/{mid}/live", headers=admin["headers"]).content)
        return [text(x) for x in out]

    def sql_outputs() -> list[str]:
        """Pages read from SQL history (the same rows in both worlds only after the same move)."""
        drain(client)
        out = [client.get(f"/api/admin/matches/{mid}", headers=admin["headers"]).content,
               client.get(f"/api/admin/matches/{mid}/export.json", headers=admin["headers"]).content,
               client.get(f"/api/admin/matches/{mid}/export.txt", headers=admin["headers"]).content,
               client.get("/api/admin/matches", params={"status": "live"}, headers=admin["headers"]).content,
               client.get(f"/api/users/{admin['user']['id']}/matches").content]
        return [text(x) for x in out]

    def observe(server_seed: str) -> list[str]:
        put_raw(client, mid, with_server_seed(start, server_seed))
        out = http_outputs()
        ws = client.websocket_connect
        with ws(f"/ws/matches/{mid}?token={players[mover]['token']}") as wm, \
                ws(f"/ws/matches/{mid}?token={players[other]['token']}") as wo, \
                ws(f"/ws/matches/{mid}?token={spectator['token']}") as wspec, \
                ws(f"/ws/matches/{mid}") as wanon:
            out += [wm.receive_text(), wo.receive_text(), wspec.receive_text(), wanon.receive_text()]
            wm.send_json({"type": "action", "action": move, "client_seq": 1})
            while True:
                m = wm.receive_text()
                out.append(m)
                if json.loads(m)["type"] == "ack":
                    break
            out += [wo.receive_text(), wspec.receive_text(), wanon.receive_text()]
            wm.send_json({"type": "ping"})
            out.append(wm.receive_text())
        out += http_outputs() + sql_outputs()
        # Rewind to the starting position for the other world (the event batch of the move too).
        client.portal.call(client.app.state.services.redis.rpop,
                           client.app.state.services.store.k.events(mid))
        return out

    worlds = [observe(s) for s in seeds]
    assert len(worlds[0]) == len(worlds[1]) >= 25
    # The commitment is shown (the mask below has something to mask) ...
    assert any(hashes[0] in x for x in worlds[0]) and any(hashes[1] in x for x in worlds[1])
    # ... and once it is masked, every byte each viewer got is the same in both worlds. (Both
    # hashes are masked everywhere: SQL keeps the first world's row for the move's version,
    # since a match row only moves forward in version.)
    def masked(x: str) -> str:
        return x.replace(hashes[0], MASK).replace(hashes[1], MASK)

    for i, (x, y) in enumerate(zip(*worlds)):
        assert masked(x) == masked(y), f"output {i} differs"
    # Neither seed string anywhere: outputs, the server's own side channels, SQL, the logs.
    sql_text, row = sql_rows(client, mid)
    assert row["status"] == "live" and row["server_seed"] is None
    logs = caplog.text + "".join(capfd.readouterr())
    assert f"/api/matches/{mid}/view" in logs  # the log capture saw this test's requests
    for seed in seeds:
        for i, x in enumerate(worlds[0] + worlds[1]):
            assert seed not in x, f"the server seed leaked in output {i}"
        assert seed not in redis_side_channels(client, mid)
        assert seed not in sql_text
        assert seed not in logs

    # After the end the seed is revealed, and the same comparison tells the worlds apart.
    client.post(f"/api/matches/{mid}/actions", json={"action": {"type": "resign"}}, headers=b["headers"])
    ended = raw_doc(client, mid)
    revealed = []
    for s in seeds:
        put_raw(client, mid, with_server_seed(ended, s))
        revealed.append(text(client.get(f"/api/matches/{mid}/view", headers=spectator["headers"]).content))
    assert seeds[0] in revealed[0] and seeds[1] in revealed[1]
    assert masked(revealed[0]) != masked(revealed[1])
    drain(client)
    assert sql_rows(client, mid)[1]["server_seed"] == seeds[1]
