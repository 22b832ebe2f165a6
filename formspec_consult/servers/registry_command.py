"""The command line of the bundled registry server, apart from the server itself.

The consultation process starts the registry as a subprocess and needs only this line: importing
:mod:`formspec_consult.servers.registry` would load the registry's database layer and catalogue
importer (jsonschema among them) into a process that never serves it.
"""

from __future__ import annotations

import sys


def bundled_registry_command(db_url: str | None = None) -> list[str]:
    """The stdio command that runs the bundled registry (what the engine starts with no URL configured).

    Without `db_url` it uses the per-user SQLite database, created from the bundled catalogue on
    first start (safe if two processes start at once).
    """
    command = [sys.executable, "-m", "formspec_consult", "registry-serve", "--stdio"]
    return [*command, "--db", db_url] if db_url else command
