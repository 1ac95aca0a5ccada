"""Provably fair chance (docs/fairness.md): each match's commitment, players' seeds and (once
over) the revealed server seed; each engine step's events, so a record can be checked step by
step; the match seed is known only from the start, so it may be empty while a match is open.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as t:
        t.alter_column("seed", existing_type=sa.BigInteger, nullable=True)
        t.add_column(sa.Column("server_seed_sha256", sa.String(64), nullable=True))
        t.add_column(sa.Column("server_seed", sa.String(64), nullable=True))
        t.add_column(sa.Column("player_seeds", sa.JSON, nullable=True))
    with op.batch_alter_table("match_actions") as t:
        t.add_column(sa.Column("events", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_actions") as t:
        t.drop_column("events")
    op.execute("UPDATE matches SET seed = 0 WHERE seed IS NULL")
    with op.batch_alter_table("matches") as t:
        t.drop_column("player_seeds")
        t.drop_column("server_seed")
        t.drop_column("server_seed_sha256")
        t.alter_column("seed", existing_type=sa.BigInteger, nullable=False)
