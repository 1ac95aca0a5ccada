"""Settings from the environment (prefix-free names, as operators expect)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    # Unset: an in-process fakeredis (embedded mode, one process only).
    redis_url: str | None = None
    # Unset: a SQLite file under data_dir.
    database_url: str | None = None
    data_dir: Path = ROOT / "data"
    # Signing key for tokens. The embedded default is generated once into data_dir.
    secret_key: str | None = None
    token_ttl_seconds: int = 7 * 24 * 3600
    # Key prefix in Redis, so tests and several deployments can share one server.
    redis_prefix: str = "dh:"
    redis_max_connections: int = 512
    max_message_bytes: int = 64 * 1024
    # Websocket rate limit: a token bucket per socket.
    ws_rate_per_second: float = 20.0
    ws_burst: int = 40
    # How long a finished match stays in Redis for late viewers (history is in SQL).
    finished_ttl_seconds: int = 24 * 3600
    # Background workers (tests switch them off to drive them by hand).
    run_workers: bool = True
    # Replicas behind a load balancer leave migrations to a one-shot job (docker-compose.yml).
    migrate_on_start: bool = True
    clock_poll_seconds: float = 0.2
    outbox_batch: int = 200
    allowed_origins: list[str] = Field(default_factory=list)
    instance_name: str = "app"
    log_level: str = "INFO"
    # One JSON object per line (for log collectors); false for plain text while developing.
    log_json: bool = True

    def sqlalchemy_url(self) -> str:
        if self.database_url:
            url = self.database_url
            # Accept the usual postgres:// spellings and pick the async driver.
            for prefix in ("postgres://", "postgresql://"):
                if url.startswith(prefix):
                    return "postgresql+asyncpg://" + url[len(prefix):]
            if url.startswith("sqlite:///"):
                return "sqlite+aiosqlite:///" + url[len("sqlite:///"):]
            return url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite+aiosqlite:///{self.data_dir / 'duelhall.sqlite3'}"

    def signing_key(self) -> str:
        if self.secret_key:
            return self.secret_key
        # Embedded default: a random key kept in the data folder, so tokens survive restarts.
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / "secret.key"
        if not path.exists():
            import secrets

            path.write_text(secrets.token_hex(32))
            path.chmod(0o600)
        return path.read_text().strip()


@lru_cache
def get_settings() -> Settings:
    return Settings()
