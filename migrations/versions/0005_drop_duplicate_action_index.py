"""Drop ix_match_actions_match: the primary key of match_actions is the same two columns in
the same order, so the index only doubled the work of every action written to history.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_match_actions_match", table_name="match_actions")


def downgrade() -> None:
    op.create_index("ix_match_actions_match", "match_actions", ["match_id", "version"])
