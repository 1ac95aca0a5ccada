"""Waiting for an event in a test: poll for the condition until a deadline, instead of sleeping
"long enough" (too short on a busy machine, too long everywhere else)."""
from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float = 10.0, interval: float = 0.02,
             message: str | None = None) -> T:
    """Call ``predicate`` until it returns something truthy, and return that; fail the test
    with ``message`` when ``timeout`` seconds pass first."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(message or f"still not true after {timeout} s: {predicate}")
        time.sleep(interval)


async def async_wait_for(predicate: Callable[[], T | Awaitable[T]],
                         timeout: float = 10.0,  # noqa: ASYNC109  (a deadline of polls)
                         interval: float = 0.01, message: str | None = None) -> T:
    """``wait_for`` inside an event loop; ``predicate`` may be a coroutine function."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if time.monotonic() >= deadline:
            raise AssertionError(message or f"still not true after {timeout} s: {predicate}")
        await asyncio.sleep(interval)
