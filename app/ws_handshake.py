"""How a websocket client presents its token, for every socket (matches and tournaments).

The token travels in the handshake's ``Sec-WebSocket-Protocol`` header: the client offers the
subprotocols ``duelhall.v1`` and ``bearer.<token>``, and the server accepts with
``duelhall.v1`` (a bearer entry is never echoed: the answer is a header too, and proxies log
headers). ``?token=<token>`` stays accepted for old clients, but a URL's query string is what
access logs print, so our own clients never put the token there.

The rules (docs/protocol.md, "How a socket presents its token"): the socket is accepted
(with ``duelhall.v1`` when offered) and then refused with ``unauthorized`` (close 4401), so
that a client learns why over the socket, when it offers ``bearer.<token>`` without
``duelhall.v1``, more than one ``bearer.`` entry, an empty ``bearer.``, or two different
tokens (header and query, or two ``?token=``). The same token in the header and the query is
accepted (an old URL kept by a new client); an empty ``?token=`` alone is no token (a spectator).

A refused handshake (HTTP 4xx before accepting) would say less: browsers do not show its body,
and uvicorn logs an ERROR for every denial response (Kludex/uvicorn#3138).
"""
from __future__ import annotations

from dataclasses import dataclass

from fastapi import WebSocket

from app.errors import ApiError

SUBPROTOCOL = "duelhall.v1"
BEARER_PREFIX = "bearer."


@dataclass(frozen=True)
class Handshake:
    subprotocol: str | None  # what the server accepts with: duelhall.v1 when offered
    token: str | None  # the credential, None for a spectator
    problem: ApiError | None = None  # a token problem, told over the socket once accepted


def read_handshake(offered: list[str], query_tokens: list[str]) -> Handshake:
    """The socket's subprotocol answer and token from the offered subprotocols and the
    ``token`` query parameters. No message of it ever quotes a token."""
    # Subprotocol names are case-sensitive, but a "Bearer.x" offer is still a token: never
    # ignore it (and never echo it) as an unknown subprotocol.
    bearers = [p[len(BEARER_PREFIX):] for p in offered if p[:len(BEARER_PREFIX)].lower() == BEARER_PREFIX]
    subprotocol = SUBPROTOCOL if SUBPROTOCOL in offered else None
    if bearers and subprotocol is None:
        return Handshake(None, None, ApiError(
            "unauthorized", f"Offer the subprotocol {SUBPROTOCOL} together with {BEARER_PREFIX}<token>."))
    if len(bearers) > 1:
        return Handshake(subprotocol, None, ApiError(
            "unauthorized", f"Offer one {BEARER_PREFIX}<token> subprotocol, not several."))
    if bearers and not bearers[0]:
        return Handshake(subprotocol, None, ApiError(
            "unauthorized", f"The {BEARER_PREFIX}<token> subprotocol carries no token."))
    given = set(bearers) | {t for t in query_tokens if t}
    if len(given) > 1:
        return Handshake(subprotocol, None, ApiError(
            "unauthorized", "Two different tokens were given (subprotocol and ?token=); send one."))
    return Handshake(subprotocol, given.pop() if given else None)


def handshake_of(ws: WebSocket) -> Handshake:
    return read_handshake(list(ws.scope.get("subprotocols") or ()), ws.query_params.getlist("token"))

