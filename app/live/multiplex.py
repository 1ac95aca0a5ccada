"""One shared Redis connection for the live store's hot path: the compare-and-set script and
document reads.

redis-py gives every command its own pooled connection for the length of the call (pool lock,
health check, a socket write and a read per command, and a task for the send timeout); on the
2-core benchmark machine that came to ~150 µs of CPU per command, the largest Redis cost of a
move. Here every command of a process goes over one connection: the commands issued in one turn
of the event loop leave in one write, and replies, which Redis sends in order, are matched to
their callers first in, first out, so under load one read carries many of them (~9 µs per
command at 20 in flight, same machine; see docs/performance.md).

Only ``MatchStore`` uses it, for ``EVALSHA``/``EVAL`` and ``GET`` on a real Redis; pub/sub,
streams, the lobby and everything else stay on redis-py, and so does embedded mode (fakeredis
has no socket). Failures raise redis-py's exceptions, so callers handle them as before: a lost
connection fails what was in flight with ``ConnectionError`` and the next call reconnects; a
server that stops answering for ``timeout`` seconds is dropped with ``TimeoutError``.
"""
from __future__ import annotations

import asyncio
import collections
import hashlib
import ssl
from collections.abc import Sequence
from typing import Any, cast

import hiredis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError, NoScriptError, ResponseError, TimeoutError


def pack(args: Sequence[Any]) -> bytes:
    """A command in RESP: an array of bulk strings (hiredis does it in C)."""
    packed: bytes = hiredis.pack_command(tuple(args))
    return packed


class _Line(asyncio.Protocol):
    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float):
        self.loop = loop
        self.timeout = timeout
        self.reader = hiredis.Reader(encoding="utf-8", replyError=ResponseError)
        self.waiting: collections.deque[asyncio.Future[Any]] = collections.deque()
        self.out: list[bytes] = []
        self.flush_soon = False
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.error: Exception | None = None
        # Time of the last reply (or of the first command after an idle spell).
        self.progress = loop.time()
        self.watchdog: asyncio.TimerHandle | None = None

    # ---------------------------------------------------------------- asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # a stream connection's

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        self.progress = self.loop.time()
        while True:
            reply = self.reader.gets()
            if reply is False or not self.waiting:
                return
            fut = self.waiting.popleft()
            if fut.done():  # its caller gave up (cancelled); the reply is still its own
                continue
            if isinstance(reply, ResponseError):
                fut.set_exception(_error(reply))
            else:
                fut.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(self.error or ConnectionError(f"Redis connection lost: {exc or 'closed'}"))

    # ---------------------------------------------------------------- calls
    def call(self, args: Sequence[Any]) -> asyncio.Future[Any]:
        if self.closed:
            raise self.error or ConnectionError("Redis connection closed")
        fut = self.loop.create_future()
        if not self.waiting:
            self.progress = self.loop.time()
        self.waiting.append(fut)
        self.out.append(pack(args))
        if not self.flush_soon:
            self.flush_soon = True
            self.loop.call_soon(self._flush)
        if self.watchdog is None:
            self.watchdog = self.loop.call_later(self.timeout / 2, self._watch)
        return fut

    def _flush(self) -> None:
        self.flush_soon = False
        if self.out and not self.closed:
            assert self.transport is not None  # set on connection, before any call
            self.transport.write(b"".join(self.out))
        self.out.clear()

    def _watch(self) -> None:
        self.watchdog = None
        if self.closed or not self.waiting:
            return
        if self.loop.time() - self.progress > self.timeout:
            self.error = TimeoutError(f"Redis did not answer for {self.timeout:g} s")
            assert self.transport is not None
            self.transport.abort()  # connection_lost fails what is waiting
            self._fail(self.error)
            return
        self.watchdog = self.loop.call_later(self.timeout / 2, self._watch)

    def _fail(self, error: Exception) -> None:
        self.closed = True
        if self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None
        while self.waiting:
            fut = self.waiting.popleft()
            if not fut.done():
                fut.set_exception(error)

    def close(self) -> None:
        if not self.closed:
            self.error = ConnectionError("Redis connection closed")
            self._fail(self.error)
            assert self.transport is not None
            self.transport.close()


def _error(reply: ResponseError) -> ResponseError:
    text = str(reply)
    if text.startswith("NOSCRIPT"):
        return NoScriptError(text)
    return reply


class MultiplexedRedis:
    def __init__(self, url: str, timeout: float = 5.0):
        self.params = parse_url(url)
        self.secure = url.startswith("rediss://")
        self.timeout = timeout
        self._line: _Line | None = None
        self._connecting: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._shas: dict[str, str] = {}

    async def _connect(self) -> _Line:
        loop = asyncio.get_running_loop()
        if self._lock_loop is not loop:  # one connect at a time, per event loop (tests make several)
            self._connecting, self._lock_loop = asyncio.Lock(), loop
        assert self._connecting is not None  # set together with _lock_loop
        async with self._connecting:
            current = self._line
            if current is not None and not current.closed and current.loop is loop:
                return current
            p = self.params
            try:
                if p.get("path"):
                    connect = loop.create_unix_connection(lambda: _Line(loop, self.timeout), p["path"])
                else:
                    connect = loop.create_connection(
                        lambda: _Line(loop, self.timeout), p.get("host", "localhost"),
                        int(p.get("port", 6379)),
                        ssl=ssl.create_default_context() if self.secure else None)
                _, line = await asyncio.wait_for(connect, self.timeout)
            # OSError covers wait_for's timeout too (the builtin TimeoutError is an OSError;
            # the name TimeoutError here is redis-py's).
            except OSError as e:
                raise ConnectionError(f"cannot connect to Redis: {e}") from None
            if p.get("password"):
                auth = [p["username"], p["password"]] if p.get("username") else [p["password"]]
                await line.call(["AUTH", *auth])
            if int(p.get("db") or 0):
                await line.call(["SELECT", int(p["db"])])
            self._line = line
            return line

    async def execute(self, *args: Any) -> Any:
        line = self._line
        if line is None or line.closed or line.loop is not asyncio.get_running_loop():
            line = await self._connect()
        return await line.call(args)

    async def get(self, key: str) -> Any:
        return await self.execute("GET", key)

    async def run_script(self, source: str, keys: list[str], args: list[Any]) -> Any:
        """EVALSHA, or EVAL the first time a server has not seen the script (it keeps it)."""
        sha = self._shas.get(source)
        if sha is None:
            sha = self._shas[source] = hashlib.sha1(source.encode()).hexdigest()
        try:
            return await self.execute("EVALSHA", sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self.execute("EVAL", source, len(keys), *keys, *args)

    async def aclose(self) -> None:
        if self._line is not None:
            self._line.close()
            self._line = None
