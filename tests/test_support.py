"""The waiting helpers of tests/support.py."""
from __future__ import annotations

import pytest

from tests.support import async_wait_for, wait_for


def test_wait_for_returns_the_first_truthy_value():
    calls = []

    def third_time():
        calls.append(1)
        return len(calls) >= 3 and {"n": len(calls)}

    assert wait_for(third_time, timeout=5, interval=0) == {"n": 3}


def test_wait_for_fails_with_the_message_after_the_timeout():
    with pytest.raises(AssertionError, match="never came"):
        wait_for(lambda: None, timeout=0.05, interval=0.01, message="never came")


async def test_async_wait_for_awaits_a_coroutine_predicate():
    calls = []

    async def second_time():
        calls.append(1)
        return len(calls) >= 2 and "ready"

    assert await async_wait_for(second_time, timeout=5, interval=0) == "ready"
    with pytest.raises(AssertionError, match="nothing"):
        await async_wait_for(lambda: 0, timeout=0.05, message="nothing")
