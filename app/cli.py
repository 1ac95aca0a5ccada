"""``duelhall`` command line: serve, migrate, worker, create-admin, simulate, verify."""
from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="duelhall", description="Duelhall game server")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="apply migrations and serve HTTP + websockets")
    serve.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    serve.add_argument("--workers", type=int, default=1,
                       help="uvicorn workers; more than one needs REDIS_URL (shared state)")
    sub.add_parser("migrate", help="apply database migrations and exit")
    sub.add_parser("worker", help="run the history writer and clocks without serving HTTP "
                                  "(needs REDIS_URL; set RUN_OUTBOX=false and RUN_CLOCKS=false "
                                  "on the web processes)")
    admin = sub.add_parser("create-admin", help="create an admin account (or make one an admin)")
    admin.add_argument("name")
    admin.add_argument("--password-stdin", action="store_true",
                       help="read the password from standard input instead of prompting")
    sim = sub.add_parser("simulate", help="balance lab: play N matches between bots and report "
                                          "(docs/lab.md)")
    from app.lab.cli import add_arguments as add_lab_arguments

    add_lab_arguments(sim)
    verify = sub.add_parser("verify", help="check a finished match's record (GET /api/matches/{id}"
                                           "/record): the server seed's hash, the seed derivation "
                                           "and a replay of every step (docs/fairness.md)")
    verify.add_argument("record", help="the record's JSON file ('-' for standard input)")
    args = parser.parse_args(argv)
    if args.command == "simulate":  # needs no database and no Redis
        from app.config import get_settings
        from app.lab.cli import simulate
        from games.registry import register_all

        register_all(get_settings().extra_games)

        return simulate(args)
    if args.command == "verify":  # needs nothing but the file
        return verify_file(args.record)

    from app.config import get_settings
    from app.db.session import migrate

    settings = get_settings()
    if args.command == "migrate":
        migrate(settings)
        print("database is at the newest migration")
        return 0
    if args.command == "create-admin":
        migrate(settings)
        if args.password_stdin:
            password = sys.stdin.readline().rstrip("\n")
        else:
            import getpass

            password = getpass.getpass("Password (8-128 characters): ")
        import asyncio

        try:
            print(asyncio.run(create_admin(settings, args.name, password)))
        except ValueError as e:
            print(str(e), file=sys.stderr)
            return 2
        return 0
    if args.command == "worker":
        if not settings.redis_url:
            print("worker needs REDIS_URL: the embedded Redis lives inside the server process.",
                  file=sys.stderr)
            return 2
        if settings.migrate_on_start:
            migrate(settings)
        import asyncio

        asyncio.run(run_worker(settings))
        return 0
    if problem := settings.secret_problem():
        print(f"refusing to start: {problem}", file=sys.stderr)
        return 2
    if args.workers > 1 and not settings.redis_url:
        print("--workers > 1 needs REDIS_URL: the embedded Redis lives inside one process.",
              file=sys.stderr)
        return 2
    if settings.migrate_on_start:
        migrate(settings)
        # Done once here; the app (and every uvicorn worker) must not repeat it.
        os.environ["MIGRATE_ON_START"] = "false"
        get_settings.cache_clear()
    import uvicorn

    mode = "real Redis" if settings.redis_url else "embedded Redis (fakeredis)"
    db = "DATABASE_URL" if settings.database_url else f"SQLite in {settings.data_dir}"
    print(f"Duelhall on http://{args.host}:{args.port}  ({mode}, {db})", flush=True)
    uvicorn.run("app.main:app", host=args.host, port=args.port, workers=args.workers,
                # Forwarded headers are the app's to read, from TRUSTED_PROXIES only (app/main.py).
                ws_max_size=4 * settings.max_message_bytes, log_level="info", proxy_headers=False,
                ws_per_message_deflate=settings.ws_deflate)
    return 0


def verify_file(path: str) -> int:
    """``duelhall verify``: 0 when everything in the record agrees, 1 naming the first thing that
    does not (or why the file is not a record)."""
    import json
    from pathlib import Path

    from games.fairness import verify_record

    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        record = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        print(f"FAILED (record): cannot read a JSON record from {path}: {e}", file=sys.stderr)
        return 1
    verdict = verify_record(record)
    print(verdict.text(), file=sys.stdout if verdict.ok else sys.stderr)
    return 0 if verdict.ok else 1


async def run_worker(settings) -> None:
    """The background workers of ``Services`` in a process of their own, until SIGTERM/SIGINT."""
    import asyncio
    import signal

    from app import logs
    from app.services import Services

    logs.setup(settings.log_level, settings.log_json)
    svc = Services.build(settings.model_copy(update={"run_workers": True, "run_outbox": True,
                                                     "run_clocks": True}))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await svc.start()
    print(f"Duelhall worker {settings.instance_name}: history writer and clocks running", flush=True)
    try:
        await stop.wait()
    finally:
        await svc.stop()


async def create_admin(settings, name: str, password: str) -> str:
    """Create the account ``name`` as an admin, or promote an existing account."""
    import uuid

    from app.api.schemas import CredentialsIn
    from app.auth import hash_password
    from app.db import accounts
    from app.db.session import make_engine, sessionmaker

    try:
        CredentialsIn(name=name, password=password)
    except Exception as e:  # pydantic's message names the bad field
        raise ValueError(f"invalid name or password: {e}") from None
    engine = make_engine(settings)
    maker = sessionmaker(engine)
    try:
        row = await accounts.by_name(maker, name)
        if row is None:
            try:
                row = await accounts.create_account(maker, "u_" + uuid.uuid4().hex[:20], name,
                                                    await hash_password(password), role="admin")
            except accounts.NameTaken:
                raise ValueError(f"{name!r} looks just like an existing account's name "
                                 "(docs/accounts.md, names); choose another") from None
            return f"created admin {row.name} ({row.id})"
        async with maker.begin() as session:
            await accounts.update_user(session, row.id, role="admin")
        if settings.redis_url:  # drop the cached status so the role applies at once
            import redis

            redis.from_url(settings.redis_url).delete(f"{settings.redis_prefix}u:{row.id}")
        # (Embedded mode: a running server's in-process cache keeps the old role up to an hour.)
        return f"{row.name} ({row.id}) is now an admin"
    finally:
        await engine.dispose()


if __name__ == "__main__":
    sys.exit(main())
