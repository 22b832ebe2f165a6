"""Open a registry store from a URL, and seed it with the bundled catalogue.

URLs: `postgresql://…` (or `postgres://…`) selects PostgreSQL; `sqlite:///path` or a plain file
path selects SQLite; nothing selects the per-user default SQLite file in
platformdirs' user_data_dir("formspec-consult").
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from formspec_consult.registry.importer import collect
from formspec_consult.registry.packages import packages_dir, with_package_facts
from formspec_consult.registry.store import RegistryStore, SaveResult
from formspec_consult.resources import package_path

DB_ENV = "FORMSPEC_REGISTRY_DB"
_SEED_KEY = "bundled_catalogue"


def default_db_url() -> str:
    """`$FORMSPEC_REGISTRY_DB`, else the per-user SQLite file (its folder is created on open)."""
    if os.environ.get(DB_ENV):
        return os.environ[DB_ENV]
    from platformdirs import user_data_dir

    return f"sqlite:///{Path(user_data_dir('formspec-consult')) / 'registry.db'}"


def open_store(url: str | None = None, *, seed: bool = True) -> RegistryStore[Any]:
    """Open (creating if needed) the store at `url`; with `seed`, make sure the bundled catalogue is in.

    Raises ValueError for a URL that names no known backend, ConnectionError if the database
    cannot be reached.
    """
    url = url or default_db_url()
    store: RegistryStore[Any]
    if url.startswith(("postgresql://", "postgres://")):
        from formspec_consult.registry.postgres_store import PostgresStore

        store = PostgresStore(url)
    elif "://" not in url or url.startswith("sqlite:"):
        from formspec_consult.registry.sqlite_store import SqliteStore

        store = SqliteStore(url)
    else:
        raise ValueError(f"Unsupported registry database URL {url!r}: use postgresql://… or sqlite:///path")
    if seed:
        try:
            seed_bundled(store)
        except BaseException:
            store.close()
            raise
    return store


def catalogue_dir() -> Path:
    """The bundled catalogue folder (templates/ and modules/ YAML files)."""
    return package_path("registry", "catalogue")


def catalogue_fingerprint() -> str:
    """A hash of the bundled catalogue files and the module files that ship with it: seeding re-runs
    only when either changed (a shipped module's checksum is part of its record)."""
    digest = hashlib.sha256()
    for base in (catalogue_dir(), packages_dir()):
        for path in sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(base.parent).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def seed_bundled(store: RegistryStore[Any]) -> SaveResult:
    """Upsert the bundled catalogue unless this exact version of it is already in (process-safe).

    Modules imported by the operator are left alone; bundled records are refreshed when the
    package ships a new catalogue.
    """
    fingerprint = catalogue_fingerprint()
    if store.meta_value(_SEED_KEY) == fingerprint:
        return SaveResult(skipped=True)  # fast path: no YAML parsing on every start
    batch = collect(catalogue_dir(), honour_annotations=True)
    modules = [with_package_facts(module) for module in batch.modules.values()]
    return store.save(list(batch.templates.values()), modules, marker=(_SEED_KEY, fingerprint))


__all__ = ["DB_ENV", "catalogue_dir", "default_db_url", "open_store", "seed_bundled"]
