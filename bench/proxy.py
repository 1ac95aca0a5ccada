#!/usr/bin/env python3
"""A tiny round-robin TCP balancer for the plain-process topology (what nginx does in
docker-compose.yml, minus everything we do not need).

Each client connection goes to the next backend in turn; a backend that refuses the connection
(a killed app process) is skipped and the next one is tried, so clients that reconnect after a
process dies land on a live one. Bytes are copied both ways untouched, so HTTP and websockets
pass alike, and when a backend dies its clients' connections are closed (as nginx does), which
is what makes them reconnect.

    .venv/bin/python bench/proxy.py --listen 127.0.0.1:8080 \\
        --backend 127.0.0.1:8001 --backend 127.0.0.1:8002 --backend 127.0.0.1:8003

Used by tests/multiprocess/ and bench/faults.py as a subprocess (``spawn_proxy``), so its CPU
is not the clients' or the servers'.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

CHUNK = 64 * 1024
CONNECT_TIMEOUT = 2.0


def parse_hostport(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


class RoundRobinProxy:
    def __init__(self, backends: list[tuple[str, int]], host: str = "127.0.0.1", port: int = 0):
        if not backends:
            raise ValueError("at least one backend")
        self.backends = backends
        self.host, self.port = host, port
        self.next = 0
        # Per backend: connections carried, and connection attempts refused (dead backend).
        self.carried: Counter = Counter()
        self.refused: Counter = Counter()
        self.server: asyncio.AbstractServer | None = None
        self.open: set[asyncio.Task] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, self.host, self.port, backlog=1024)
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.server:
            self.server.close()
        for t in list(self.open):
            t.cancel()
        if self.open:
            await asyncio.wait(self.open, timeout=2)

    async def _connect_backend(self):
        """The next backend that accepts, starting where round robin points."""
        n = len(self.backends)
        start = self.next
        self.next = (self.next + 1) % n
        for i in range(n):
            backend = self.backends[(start + i) % n]
            try:
                r, w = await asyncio.wait_for(asyncio.open_connection(*backend), CONNECT_TIMEOUT)
            except (TimeoutError, OSError):
                self.refused[backend] += 1
                continue
            self.carried[backend] += 1
            return r, w
        return None

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter):
        task = asyncio.current_task()
        self.open.add(task)
        try:
            upstream = await self._connect_backend()
            if upstream is None:  # every backend down: close, the client retries
                return
            server_r, server_w = upstream
            try:
                # Copy both ways until both have ended. A clean EOF one way is passed on as a
                # half-close and the other way goes on; a reset (a killed backend) drops both.
                _, pending = await asyncio.wait(
                    [asyncio.create_task(_pipe(client_r, server_w)),
                     asyncio.create_task(_pipe(server_r, client_w))],
                    return_when=asyncio.FIRST_EXCEPTION)
                for t in pending:
                    t.cancel()
            finally:
                _close(server_w)
        finally:
            _close(client_w)
            self.open.discard(task)


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while True:
            data = await src.read(CHUNK)
            if not data:
                break
            dst.write(data)
            await dst.drain()
    except asyncio.CancelledError:
        raise
    except (ConnectionError, OSError) as e:
        raise ConnectionError(str(e)) from None
    # EOF: pass the half-close on, so request/response pairs still complete.
    if dst.can_write_eof() and not dst.is_closing():
        with contextlib.suppress(OSError, RuntimeError):
            dst.write_eof()


def _close(w: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        w.close()


# ------------------------------------------------------------------ as a subprocess
def spawn_proxy(backends: list[str], log: Path, port: int = 0, timeout: float = 10.0):
    """Start ``bench/proxy.py`` in a subprocess; returns ``(process, "http://host:port")``
    once it listens (it prints the address on its first line)."""
    args = [sys.executable, str(Path(__file__).resolve()), "--listen", f"127.0.0.1:{port}"]
    for b in backends:
        args += ["--backend", b.replace("http://", "")]
    out = log.open("w")
    proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    end = time.time() + timeout
    while time.time() < end:
        text = log.read_text()
        if text.startswith("listening on "):
            return proc, "http://" + text.split()[2]
        if proc.poll() is not None:
            raise RuntimeError(f"proxy exited: {text}")
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("proxy did not start")


async def _main(args) -> None:
    proxy = RoundRobinProxy([parse_hostport(b) for b in args.backend], *parse_hostport(args.listen))
    await proxy.start()
    print(f"listening on {proxy.host}:{proxy.port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await proxy.stop()
    for b in proxy.backends:
        print(f"{b[0]}:{b[1]} carried {proxy.carried[b]} refused {proxy.refused[b]}", flush=True)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description="Round-robin TCP proxy that carries websockets.")
    p.add_argument("--listen", default="127.0.0.1:8080", help="host:port to listen on (port 0: any)")
    p.add_argument("--backend", action="append", required=True, help="host:port (repeat)")
    try:
        import uvloop  # comes with uvicorn[standard]; a faster loop for a pure copy job

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    asyncio.run(_main(p.parse_args(argv)))


if __name__ == "__main__":
    main()
