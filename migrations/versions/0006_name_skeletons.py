"""users.name_skeleton: each account's confusable skeleton (app/names.py), unique, so two
accounts cannot have look-alike names (``Root`` and ``Rооt`` with a Cyrillic о) even when
registered at the same instant. Existing accounts are filled in oldest first; an account whose
skeleton an older one already holds keeps a NULL (it can still sign in; nobody can register a
new look-alike of either).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from app.names import skeleton

    with op.batch_alter_table("users") as t:
        t.add_column(sa.Column("name_skeleton", sa.String(255), nullable=True))
    users = sa.table("users", sa.column("id", sa.String), sa.column("name", sa.String),
                     sa.column("name_key", sa.String), sa.column("created_at", sa.DateTime),
                     sa.column("name_skeleton", sa.String))
    conn = op.get_bind()
    taken: set[str] = set()
    rows = conn.execute(sa.select(users.c.id, users.c.name).where(users.c.name_key.is_not(None))
                        .order_by(users.c.created_at, users.c.id)).all()
    for user_id, name in rows:
        skel = skeleton(name)
        if skel in taken:
            continue
        taken.add(skel)
        conn.execute(users.update().where(users.c.id == user_id).values(name_skeleton=skel))
    with op.batch_alter_table("users") as t:
        t.create_unique_constraint("uq_users_name_skeleton", ["name_skeleton"])


def downgrade() -> None:
    with op.batch_alter_table("users") as t:
        t.drop_constraint("uq_users_name_skeleton", type_="unique")
        t.drop_column("name_skeleton")
