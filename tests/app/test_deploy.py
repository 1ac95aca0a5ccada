"""The deployment files are wired as docs/operations.md says (no Docker engine here: parse)."""
from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_services_and_dependencies():
    services = compose()["services"]
    assert set(services) == {"postgres", "redis", "migrate", "app", "lb"}
    app = services["app"]
    assert app["deploy"]["replicas"] >= 2
    assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert app["depends_on"]["redis"]["condition"] == "service_healthy"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert services["migrate"]["command"] == ["duelhall", "migrate"]
    assert services["lb"]["depends_on"]["app"]["condition"] == "service_healthy"
    assert "/readyz" in " ".join(app["healthcheck"]["test"])


def test_compose_app_env_points_at_the_services():
    services = compose()["services"]
    env = services["app"]["environment"]
    assert env["REDIS_URL"].startswith("redis://redis:6379")
    assert "@postgres:5432/" in env["DATABASE_URL"]
    assert env["MIGRATE_ON_START"] == "false"
    assert "SECRET_KEY" in env and ":?" in env["SECRET_KEY"], "secret only from the environment"
    assert services["migrate"]["environment"]["DATABASE_URL"] == env["DATABASE_URL"]


def test_redis_keeps_an_append_only_file():
    cmd = compose()["services"]["redis"]["command"]
    assert cmd[cmd.index("--appendonly") + 1] == "yes"


def test_load_balancer_carries_websockets():
    services = compose()["services"]
    mounts = services["lb"]["volumes"]
    conf_path = ROOT / mounts[0].split(":")[0]
    conf = conf_path.read_text()
    assert "proxy_pass http://duelhall" in conf and "server app:8000" in conf
    ws_block = conf[conf.index("location /ws/"):]
    assert "proxy_set_header Upgrade $http_upgrade" in ws_block
    assert "proxy_http_version 1.1" in ws_block


def test_env_names_in_compose_are_settings_the_app_reads():
    from app.config import Settings

    fields = {name.upper() for name in Settings.model_fields}
    for service in ("app", "migrate"):
        for name in compose()["services"][service]["environment"]:
            assert name in fields, f"{service} sets {name}, which the app does not read"
