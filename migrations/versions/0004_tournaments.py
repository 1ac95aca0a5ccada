"""Tournaments: one row per event with its JSON state and a revision for compare-and-set, and
the standings after each round.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("game", sa.String(20), nullable=False, index=True),
        sa.Column("format", sa.String(24), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("organiser_id", sa.String(40), nullable=False, index=True),
        sa.Column("organiser_name", sa.String(40), nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        # JSON as text, (de)serialised by the app with orjson (app/db/models.py JsonText).
        sa.Column("entrants", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=True),
        sa.Column("meta", sa.Text, nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("redis_prefix", sa.String(40), nullable=False, index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )


    op.create_table(
        "tournament_standings",
        sa.Column("tournament_id", sa.String(24), sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("standings", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tournament_standings")
    op.drop_table("tournaments")
