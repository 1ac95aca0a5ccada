"""Migrations go up and down on a fresh database, and the newest schema is the one the models
describe where it matters for speed (the indexes of the history tables)."""
from __future__ import annotations

import sqlalchemy as sa
from alembic import command

from app.config import Settings
from app.db.session import alembic_config


def action_indexes(url: str) -> set[str]:
    engine = sa.create_engine(url)
    try:
        return {ix["name"] for ix in sa.inspect(engine).get_indexes("match_actions")}
    finally:
        engine.dispose()


def test_up_down_up_and_no_duplicate_action_index(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path}/m.sqlite3")
    cfg = alembic_config(settings)
    sync_url = f"sqlite:///{tmp_path}/m.sqlite3"
    command.upgrade(cfg, "head")
    # The primary key (match_id, version) serves reads by match; a second index on the same
    # columns only doubled the work of each action written (migration 0005).
    assert "ix_match_actions_match" not in action_indexes(sync_url)
    command.downgrade(cfg, "0004")
    assert "ix_match_actions_match" in action_indexes(sync_url)
    command.downgrade(cfg, "base")
    command.upgrade(cfg, "head")
    assert "ix_match_actions_match" not in action_indexes(sync_url)
