"""A bound on the argon2 work one process does for passwords.

Every password check costs ~0.1 s of CPU on purpose, so wrong passwords sent fast enough
would otherwise queue more work than the machine has and slow every real sign-in behind them.
A :class:`HashingGate` runs at most ``concurrency`` hashes at once and lets at most ``queue``
more wait; past that it answers ``rate_limited`` (429) at once, with no work done.

There are two gates per process (:class:`PasswordGates`): one for callers nobody vouches for
(no device token: new devices, registrations) and one for callers with a valid device token
or a session (``POST /api/auth/password``). A flood of wrong passwords fills only the first;
a returning player's sign-in waits behind at most its own lane's few hashes.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from app.errors import ApiError

T = TypeVar("T")


class HashingGate:
    def __init__(self, concurrency: int, queue: int):
        self.concurrency, self.queue = concurrency, queue
        self._slots = asyncio.Semaphore(concurrency)
        self.waiting = 0   # callers waiting for a slot
        self.running = 0   # hashes in progress (their threads)
        self.refused = 0   # callers turned away since start (for tests and the benchmark)

    async def run(self, fn: Callable[..., T], *args) -> T:
        """``fn(*args)`` in a worker thread once a slot is free; ``rate_limited`` when the
        slots are busy and the queue is full."""
        if self._slots.locked() and self.waiting >= self.queue:
            self.refused += 1
            raise ApiError("rate_limited", "Sign-in is busy right now; try again in a moment.")
        self.waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self.waiting -= 1
        self.running += 1
        work = asyncio.ensure_future(asyncio.to_thread(fn, *args))

        def done(_):
            # The slot is free when the thread is, even if the request was cancelled meanwhile
            # (a thread cannot be stopped: releasing earlier would let the work pile up).
            self.running -= 1
            self._slots.release()

        work.add_done_callback(done)
        return await asyncio.shield(work)


@dataclass
class PasswordGates:
    untrusted: HashingGate
    trusted: HashingGate

    @classmethod
    def from_settings(cls, settings) -> PasswordGates:
        return cls(HashingGate(settings.password_hash_concurrency, settings.password_hash_queue),
                   HashingGate(settings.password_hash_trusted_concurrency,
                               settings.password_hash_trusted_queue))

    def lane(self, trusted: bool) -> HashingGate:
        return self.trusted if trusted else self.untrusted
