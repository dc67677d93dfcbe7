"""Alembic's environment for the game store: migrations run on the connection
:func:`battleship.web.schema.upgrade` hands over (``battleship db upgrade``, or a server starting
alone), never on one of their own."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(
    connection=connection, target_metadata=None, render_as_batch=connection.dialect.name == "sqlite"
)
with context.begin_transaction():
    context.run_migrations()
