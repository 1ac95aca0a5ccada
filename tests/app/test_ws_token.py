"""How a socket presents its token (app/ws_handshake.py, docs/protocol.md): in the subprotocols
``duelhall.v1`` + ``bearer.<token>`` (the server answers ``duelhall.v1``, never the bearer
entry), or ``?token=`` for old clients; the odd offers are refused with ``unauthorized``.
Both sockets, matches and tournaments, follow the same rules. That no token reaches a log:
tests/multiprocess/test_token_logs.py and test_logs.py."""
from __future__ import annotations

import pytest
from starlette.websockets import WebSocketDisconnect

from app.ws_handshake import read_handshake
from tests.app.support import duell_match
from tests.conftest import guest

V1 = "duelhall.v1"


def bearer(player) -> str:
    return f"bearer.{player['token']}"


def forged(token: str) -> str:
    """The token with another signature: JWT-shaped, refused."""
    head, _, sig = token.rpartition(".")
    return f"{head}.{'A' if sig[0] != 'A' else 'B'}{sig[1:]}"


def refused_with(ws, code: str, close_code: int) -> dict:
    err = ws.receive_json()
    assert err["type"] == "error" and err["code"] == code, err
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == close_code
    return err


# ------------------------------------------------------------------ the match socket
def test_the_subprotocol_handshake_seats_the_player_and_answers_duelhall_v1(client):
    mid, p = duell_match(client)
    with client.websocket_connect(f"/ws/matches/{mid}", subprotocols=[V1, bearer(p["B"])]) as ws:
        assert ws.accepted_subprotocol == V1  # never the bearer entry
        first = ws.receive_json()
        assert first["type"] == "view" and first["seat"] == "B"


def test_the_subprotocol_is_answered_whatever_order_and_extra_offers(client):
    mid, p = duell_match(client)
    with client.websocket_connect(f"/ws/matches/{mid}", subprotocols=[bearer(p["A"]), "chat", V1]) as ws:
        assert ws.accepted_subprotocol == V1
        assert ws.receive_json()["seat"] == "A"


def test_duelhall_v1_alone_is_a_spectator_and_no_offer_is_answered_with_none(client):
    mid, p = duell_match(client)
    with client.websocket_connect(f"/ws/matches/{mid}", subprotocols=[V1]) as ws:
        assert ws.accepted_subprotocol == V1 and ws.receive_json()["seat"] is None
    with client.websocket_connect(f"/ws/matches/{mid}?token={p['A']['token']}") as ws:
        assert ws.accepted_subprotocol is None  # an old client: ?token=, no subprotocol
        assert ws.receive_json()["seat"] == "A"


def test_old_clients_query_token_with_the_subprotocol_and_the_same_token_twice(client):
    mid, p = duell_match(client)
    with client.websocket_connect(f"/ws/matches/{mid}?token={p['A']['token']}", subprotocols=[V1]) as ws:
        assert ws.accepted_subprotocol == V1 and ws.receive_json()["seat"] == "A"
    same = f"/ws/matches/{mid}?token={p['B']['token']}"
    with client.websocket_connect(same, subprotocols=[V1, bearer(p["B"])]) as ws:
        assert ws.receive_json()["seat"] == "B"


def test_a_bad_token_in_the_subprotocol_is_unauthorized_and_not_echoed(client):
    mid, p = duell_match(client)
    bad = forged(p["A"]["token"])
    with client.websocket_connect(f"/ws/matches/{mid}", subprotocols=[V1, f"bearer.{bad}"]) as ws:
        assert ws.accepted_subprotocol == V1
        err = refused_with(ws, "unauthorized", 4401)
    assert bad not in err["message"] and bad.split(".")[2] not in err["message"]


@pytest.mark.parametrize("socket", ["match", "tournament"])
def test_bearer_without_duelhall_v1_is_answered_without_a_subprotocol_and_refused(client, socket):
    """The server may not answer a subprotocol the client did not offer, nor echo the bearer
    entry: it answers none (a browser then drops the socket) and says why over the socket."""
    mid, p = duell_match(client)
    path = f"/ws/matches/{mid}" if socket == "match" else "/ws/tournaments/t_any"
    with client.websocket_connect(path, subprotocols=[bearer(p["A"])]) as ws:
        assert ws.accepted_subprotocol is None
        err = refused_with(ws, "unauthorized", 4401)
    assert "duelhall.v1" in err["message"] and p["A"]["token"] not in err["message"]


@pytest.mark.parametrize("socket", ["match", "tournament"])
@pytest.mark.parametrize("offer", ["empty", "two bearers", "header and query differ", "two queries differ"])
def test_ambiguous_or_empty_tokens_are_unauthorized(client, socket, offer):
    mid, p = duell_match(client)
    path = f"/ws/matches/{mid}" if socket == "match" else "/ws/tournaments/t_any"
    protocols, query = {
        "empty": ([V1, "bearer."], ""),
        "two bearers": ([V1, bearer(p["A"]), bearer(p["B"])], ""),
        "header and query differ": ([V1, bearer(p["A"])], f"?token={p['B']['token']}"),
        "two queries differ": ([V1], f"?token={p['A']['token']}&token={p['B']['token']}"),
    }[offer]
    with client.websocket_connect(path + query, subprotocols=protocols) as ws:
        assert ws.accepted_subprotocol == V1
        err = refused_with(ws, "unauthorized", 4401)
    assert p["A"]["token"] not in err["message"] and p["B"]["token"] not in err["message"]


def test_the_rules_as_a_table():
    assert read_handshake([], []) == read_handshake([], [""])  # no token: a spectator
    assert read_handshake([], []).token is None and read_handshake([], []).subprotocol is None
    hs = read_handshake(["Bearer.abc", V1], ["abc"])  # any case is a bearer entry; same token twice
    assert (hs.subprotocol, hs.token, hs.problem) == (V1, "abc", None)
    assert read_handshake(["chat"], ["abc"]).subprotocol is None  # nothing we speak: no answer
    assert read_handshake(["chat"], ["abc"]).token == "abc"


# ------------------------------------------------------------------ the tournament socket
def test_the_tournament_socket_takes_the_token_in_the_subprotocol_too(client):
    ann = guest(client, "Ann")
    # The token is checked (an unknown tournament still answers not_found, not unauthorized).
    with client.websocket_connect("/ws/tournaments/t_nope", subprotocols=[V1, bearer(ann)]) as ws:
        assert ws.accepted_subprotocol == V1
        refused_with(ws, "not_found", 4404)
    with client.websocket_connect("/ws/tournaments/t_nope", subprotocols=[V1]) as ws:
        assert ws.accepted_subprotocol == V1
        refused_with(ws, "not_found", 4404)


@pytest.mark.parametrize("how", ["subprotocol", "query"])
def test_a_bad_token_on_the_tournament_socket_is_unauthorized(client, how):
    bad = forged(guest(client, "Ann")["token"])
    if how == "subprotocol":
        ws = client.websocket_connect("/ws/tournaments/t_nope", subprotocols=[V1, f"bearer.{bad}"])
    else:
        ws = client.websocket_connect(f"/ws/tournaments/t_nope?token={bad}")
    with ws:
        refused_with(ws, "unauthorized", 4401)
