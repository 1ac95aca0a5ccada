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

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
IN_CI = os.environ.get("CI") == "true"
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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.fixture(scope="session")
def live_server(request, tmp_path_factory):
    """Base URL of a real Duelhall server running in a subprocess for the whole session."""
    if os.environ.get("DATABASE_URL"):
        # tests/conftest.py's db_url resets the Postgres schema once per session: have that
        # happen now, never under our running server (whatever order the tests run in).
        request.getfixturevalue("db_url")
    data_dir = tmp_path_factory.mktemp("browser-data")
    log_path = data_dir / "server.log"
    _SERVER_LOG["path"] = log_path
    env = dict(os.environ)
    env["DATA_DIR"] = str(data_dir)
    env["PYTHONUNBUFFERED"] = "1"
    # REDIS_URL / DATABASE_URL are inherited as they are; a unique key prefix per run.
    if env.get("REDIS_URL"):
        env["REDIS_PREFIX"] = f"browser{uuid.uuid4().hex[:10]}:"
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while not _healthy(base):
            if proc.poll() is not None or time.monotonic() > deadline:
                why = f"exited with {proc.returncode}" if proc.poll() is not None else "not healthy in 60 s"
                log.flush()
                msg = f"Duelhall server {why}. Server log:\n{_tail(log_path, 200)}"
                print(msg, file=sys.stderr)
                pytest.fail(msg, pytrace=False)
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if IN_CI:
            raise
        pytest.skip("the playwright package is not installed")
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing (CI must have a browser)")
    from playwright.sync_api import expect

    expect.set_options(timeout=15_000)  # generous: a loaded 2-core machine can be very slow
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
    finally:
        pw.stop()


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
