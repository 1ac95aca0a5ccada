"""Which background loops a process runs: RUN_WORKERS for all of them, RUN_OUTBOX for the
history writer, RUN_CLOCKS for the clocks, switched separately (docs/operations.md);
`duelhall worker` runs both whatever the environment says."""
from __future__ import annotations

import asyncio
import signal

import pytest

from app import cli
from app.services import Services


@pytest.mark.parametrize("outbox, clocks", [(True, True), (False, True), (True, False), (False, False)])
async def test_history_writer_and_clocks_are_switched_separately(settings, outbox, clocks):
    svc = Services.build(settings.model_copy(update={"run_outbox": outbox, "run_clocks": clocks}))
    await svc.start()
    try:
        names = {t.get_name() for t in svc.tasks}
        assert ("outbox" in names) == outbox
        assert ("clocks" in names) == clocks
        assert "bots" in names  # the sweeps do not depend on either
    finally:
        await svc.stop()


async def test_no_loop_without_run_workers(settings):
    svc = Services.build(settings.model_copy(update={"run_workers": False}))
    await svc.start()
    try:
        assert svc.tasks == []
    finally:
        await svc.stop()


async def test_the_worker_command_runs_the_writer_and_the_clocks_whatever_the_environment(
        settings, monkeypatch):
    built = []

    class Stop(Exception):
        pass

    class NotStarted:
        async def start(self):
            raise Stop

    def build(s):
        built.append(s)
        return NotStarted()

    monkeypatch.setattr(Services, "build", staticmethod(build))
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        with pytest.raises(Stop):
            await cli.run_worker(settings.model_copy(update={
                "run_workers": False, "run_outbox": False, "run_clocks": False}))
    finally:
        loop = asyncio.get_running_loop()
        for sig, handler in saved.items():
            loop.remove_signal_handler(sig)
            signal.signal(sig, handler)
    assert len(built) == 1
    assert built[0].run_workers and built[0].run_outbox and built[0].run_clocks
