"""What the background loops (clocks, history writer, bot and tournament sweeps) share."""
from __future__ import annotations

import asyncio


async def pause(stop: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``, but wake at once when ``stop`` is set: ``Services.stop`` lets each
    loop finish the step it is in rather than cancelling it (a cancelled SQL transaction can
    leave its connection, and on SQLite the write lock, to the garbage collector)."""
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        pass
