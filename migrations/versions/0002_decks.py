"""Párbaj decks saved per user.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "decks",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("user_id", sa.String(40), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("cards", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("user_id", "name", name="uq_decks_user_name"),
    )
    op.create_index("ix_decks_user_id", "decks", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_decks_user_id", table_name="decks")
    op.drop_table("decks")
