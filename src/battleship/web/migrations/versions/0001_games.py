"""The games, the seats of games between friends, and the server's last sign of life.

The store as every version before migrations made it. A store made by one of those versions has
these tables already (perhaps without the newer columns of ``games``): they are kept, and the
missing columns added, so that no game is lost.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

GAME_COLUMNS: tuple[tuple[str, Any, dict[str, Any]], ...] = (
    ("id", sa.String(32), {"primary_key": True}),
    ("created", sa.DateTime(timezone=True), {"nullable": False}),
    ("updated", sa.DateTime(timezone=True), {"nullable": False}),
    ("finished", sa.DateTime(timezone=True), {}),
    ("rules", sa.String(32), {"nullable": False}),
    ("rules_toml", sa.Text(), {}),
    ("mode", sa.String(16), {"nullable": False}),
    ("play_for_me", sa.Boolean(), {"nullable": False}),
    ("status", sa.String(16), {"nullable": False}),
    ("winner", sa.String(16), {}),
    ("resigned", sa.Boolean(), {"nullable": False}),
    ("moves", sa.Integer(), {"nullable": False}),
    ("seed", sa.String(40), {"nullable": False}),
    ("player_layout", sa.Text(), {"nullable": False}),
    ("computer_layout", sa.Text(), {"nullable": False}),
    ("record", sa.Text(), {"nullable": False}),
    ("notation", sa.Text(), {}),
    ("clock", sa.Float(), {}),
    ("clock_used", sa.Text(), {}),
    ("turn_started", sa.DateTime(timezone=True), {}),
    ("ended_by", sa.String(16), {}),
    ("rematch", sa.String(32), {}),
    ("turns", sa.Integer(), {}),
)


def upgrade() -> None:
    tables = set(sa.inspect(op.get_bind()).get_table_names())
    if "games" not in tables:
        op.create_table("games", *(sa.Column(name, kind, **kw) for name, kind, kw in GAME_COLUMNS))
    else:  # a store made before migrations: the columns added since (all nullable) come in empty
        present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("games")}
        for name, kind, kw in GAME_COLUMNS:
            if name not in present:
                op.add_column("games", sa.Column(name, kind, **kw))
    if "seats" not in tables:
        op.create_table(
            "seats",
            sa.Column("token", sa.String(32), primary_key=True),
            sa.Column("game_id", sa.String(32), nullable=False),
            sa.Column("side", sa.Integer(), nullable=False),
            sa.Column("name", sa.String(40)),
        )
        op.create_index("ix_seats_game_id", "seats", ["game_id"])
    if "server_life" not in tables:
        op.create_table(
            "server_life",
            sa.Column("name", sa.String(16), primary_key=True),
            sa.Column("alive", sa.DateTime(timezone=True), nullable=False),
        )


def downgrade() -> None:
    for table in ("server_life", "seats", "games"):
        op.drop_table(table)
