"""Accounts, ratings, reports, admin notes and the audit log.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as t:
        t.add_column(sa.Column("name_key", sa.String(40), nullable=True))
        t.add_column(sa.Column("suspended", sa.Boolean, nullable=False, server_default=sa.false()))
        t.add_column(sa.Column("token_gen", sa.Integer, nullable=False, server_default="0"))
        t.create_unique_constraint("uq_users_name_key", ["name_key"])
    with op.batch_alter_table("matches") as t:
        t.add_column(sa.Column("flagged", sa.Boolean, nullable=False, server_default=sa.false()))
        t.add_column(sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.String(40), primary_key=True),
        sa.Column("game", sa.String(20), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False, server_default="0"),
        sa.Column("wins", sa.Integer, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ratings_game_mu", "ratings", ["game", "mu"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(40), nullable=False, index=True),
        sa.Column("user_id", sa.String(40), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("status", sa.String(12), nullable=False, server_default="open", index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_by", sa.String(40), nullable=True),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "match_notes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(40), nullable=False, index=True),
        sa.Column("author_id", sa.String(40), nullable=False),
        sa.Column("text", sa.String(2000), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("actor_id", sa.String(40), nullable=False, index=True),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("target", sa.String(80), nullable=False),
        sa.Column("details", sa.JSON, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("audit_log")
    op.drop_table("match_notes")
    op.drop_table("reports")
    op.drop_index("ix_ratings_game_mu", "ratings")
    op.drop_table("ratings")
    with op.batch_alter_table("matches") as t:
        t.drop_column("rated")
        t.drop_column("flagged")
    with op.batch_alter_table("users") as t:
        t.drop_constraint("uq_users_name_key", type_="unique")
        t.drop_column("token_gen")
        t.drop_column("suspended")
        t.drop_column("name_key")
