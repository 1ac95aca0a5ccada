"""Fixtures for the real-browser end-to-end tests (tests/browser/).

* ``live_server``: the real app as a subprocess (``uvicorn app.main:app``) on a free port, with
  its own DATA_DIR (embedded SQLite + in-process fakeredis). REDIS_URL / DATABASE_URL pass
  through when set (CI's second run against real Redis/Postgres); with REDIS_URL a unique
  REDIS_PREFIX keeps runs apart. The app runs its migrations on startup.
* ``browser``: Debian's chromium (/usr/bin/chromium) driven by Playwright. Never downloaded.
* ``new_page``: a fresh browser context (own storage = own guest user) + page per call.

The tests are skipped only when /usr/bin/chromium is missing and CI is not "true"; in CI a
missing browser (or Playwright) fails the run instead.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser_support import CHROMIUM, IN_CI, chromium, run_server, server_env

BROWSER_DIR = Path(__file__).resolve().parent

# The server's log file, so failing tests can show it (see pytest_runtest_makereport).
_SERVER_LOG: dict[str, Path] = {}


def pytest_collection_modifyitems(config, items):
    """Mark every test in this folder ``browser``; skip them only off CI without chromium."""
    skip = None
    if not CHROMIUM.exists() and not IN_CI:
        skip = pytest.mark.skip(reason=f"{CHROMIUM} is not installed (and CI is not 'true')")
    for item in items:
        if BROWSER_DIR in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)
            if skip is not None:
                item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed and "live_server" in getattr(item, "fixturenames", ()):
        log = _SERVER_LOG.get("path")
        if log and log.exists():
            rep.sections.append(("server log (last 200 lines)", _tail(log, 200)))


def _tail(path: Path, lines: int) -> str:
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(text[-lines:])


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    """Base URL of a real Duelhall server running in a subprocess for the whole session."""
    data_dir = tmp_path_factory.mktemp("browser-data")
    _SERVER_LOG["path"] = data_dir / "server.log"
    with run_server(data_dir, server_env(data_dir, "browser"), startup_seconds=60) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium(expect_timeout_ms=15_000) as b:  # generous: a loaded 2-core machine can be very slow
        yield b


@pytest.fixture
def new_page(browser, live_server):
    """Factory: ``new_page(name)`` -> a page in its own browser context (own guest user).
    Collects page errors; a test fails if the client threw an uncaught exception."""
    contexts = []
    errors: list[str] = []

    def make(label: str, **ctx_opts):
        ctx = browser.new_context(base_url=live_server, viewport={"width": 1200, "height": 900}, **ctx_opts)
        ctx.set_default_timeout(20_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e, n=label: errors.append(f"{n}: {e}"))
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, "uncaught errors in the browser client:\n" + "\n".join(errors)
