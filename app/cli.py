"""``duelhall`` command line: serve, migrate."""
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
    args = parser.parse_args(argv)

    from app.config import get_settings
    from app.db.session import migrate

    settings = get_settings()
    if args.command == "migrate":
        migrate(settings)
        print("database is at the newest migration")
        return 0
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
                ws_max_size=4 * settings.max_message_bytes, log_level="info", proxy_headers=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
