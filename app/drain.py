"""Deploys that drain: what SIGTERM does to a server process (docs/operations.md).

uvicorn's own SIGTERM handling stops at once: it closes the listening socket (so the balancer's
readiness probe is refused rather than told, while requests already on their way are too),
sends every websocket 1012 whatever its handler is doing (a move being applied loses its view),
waits for the connections to go, then runs the app's lifespan shutdown. So the lifespan puts a
handler of its own in front of uvicorn's (which uvicorn installs with ``signal.signal`` before
the app starts, in every worker process): the first SIGTERM runs ``Services.drain`` (``/readyz``
503 at once, ``DRAIN_SECONDS`` of normal service, the match sockets closed with 1012 each after
the message it is handling, the background loops stopped) and then hands the signal on to
uvicorn, whose shutdown finds little left to do. A second SIGTERM, and SIGINT (Ctrl-C), go to
uvicorn at once.
"""
from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable

log = logging.getLogger("duelhall")


def install(svc) -> Callable[[], None]:
    """Drain ``svc`` on SIGTERM before the server's own handler runs. Returns the undo, for the
    lifespan's shutdown. Does nothing off the main thread (an app run by a test client has no
    signals) or when no server handler is installed (nothing to hand the signal on to)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    server_handler = signal.getsignal(signal.SIGTERM)
    if not callable(server_handler):
        return lambda: None
    loop = asyncio.get_running_loop()
    state: dict = {"asked": False, "task": None}

    def on_sigterm(sig, frame) -> None:
        if state["asked"]:  # the second one: stop now
            server_handler(sig, frame)
            return
        state["asked"] = True
        # A signal handler runs between two bytecodes of whatever the loop was doing: start
        # the drain from the loop itself.
        loop.call_soon_threadsafe(begin, sig)

    def begin(sig) -> None:
        state["task"] = loop.create_task(run(sig), name="drain")

    async def run(sig) -> None:
        try:
            await svc.drain()
        except asyncio.CancelledError:  # the server is stopping already (a second signal)
            return
        except Exception:
            log.exception("drain failed; stopping anyway")
        server_handler(sig, None)

    signal.signal(signal.SIGTERM, on_sigterm)

    def undo() -> None:
        if signal.getsignal(signal.SIGTERM) is on_sigterm:
            signal.signal(signal.SIGTERM, server_handler)
        task = state["task"]
        if task is not None and not task.done():
            task.cancel()

    return undo
