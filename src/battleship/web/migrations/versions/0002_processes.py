"""What several server processes share: who is watching each seat, requests counted per client, and
the key that signs players' sessions.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # the live streams each server process holds open on a seat; a process's rows count while it
    # keeps beating (a killed process's go stale)
    op.create_table(
        "presence",
        sa.Column("seat", sa.String(32), primary_key=True),
        sa.Column("process", sa.String(32), primary_key=True),
        sa.Column("streams", sa.Integer(), nullable=False),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
    )
    # requests per client, limit and fixed window: counted by every process, so N processes keep one
    # limit; PostgreSQL keeps the table out of its write-ahead log (counts need not survive a crash)
    unlogged: dict[str, Any] = (
        {"prefixes": ["UNLOGGED"]} if op.get_bind().dialect.name == "postgresql" else {}
    )
    op.create_table(
        "rate_counts",
        sa.Column("client", sa.String(120), primary_key=True),
        sa.Column("bucket", sa.BigInteger(), primary_key=True),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.Column("ends", sa.Float(), nullable=False),
        sa.Column("span", sa.Float(), nullable=False),
        **unlogged,
    )
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )


def downgrade() -> None:
    for table in ("server_keys", "rate_counts", "presence"):
        op.drop_table(table)
