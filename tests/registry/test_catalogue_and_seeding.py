"""The bundled catalogue (size, languages, internal consistency) and first-start seeding
(exactly once, even when several processes start together)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from formspec_consult.registry.db import catalogue_dir, default_db_url, open_store, seed_bundled
from formspec_consult.registry.importer import collect
from formspec_consult.registry.store import SaveResult

BATCH = collect(catalogue_dir(), honour_annotations=True)
INDONESIAN_MARKERS = {
    "sewa",
    "kos",
    "arisan",
    "bengkel",
    "sekolah",
    "klinik",
    "warung",
    "laundry kiloan",
    "katering",
    "grosir",
    "kasir",
}


def test_the_catalogue_has_at_least_twelve_templates_with_english_and_indonesian_aliases() -> None:
    assert len(BATCH.templates) >= 12
    for template in BATCH.templates.values():
        words = " ".join(template.applies_to).lower()
        assert any(
            marker in words for marker in INDONESIAN_MARKERS | {"tukang", "salon", "gym", "kursus", "toko"}
        ), template.pattern
        assert len(template.applies_to) >= 5 and len(template.probing_questions) >= 4
        assert {e.characteristic for e in template.candidate_entities} >= {"master", "transaction"}


def test_the_catalogue_has_at_least_forty_modules_with_a_realistic_ai_index() -> None:
    assert len(BATCH.modules) >= 40
    tiers = {m.trust_tier for m in BATCH.modules.values()}
    assert tiers == {"official", "verified", "community"}
    for module in BATCH.modules.values():
        ai = module.ai_index
        assert module.description and ai.integration_pattern and ai.skills_for_ai, module.name
        assert len(ai.features) >= 3 and len(ai.aliases) >= 4, module.name
        assert module.all_versions[0] == module.version


def test_every_dependency_and_suggested_module_exists_in_the_catalogue() -> None:
    names = set(BATCH.modules)
    for module in BATCH.modules.values():
        assert {d.module for d in module.depends} <= names, module.name
    for template in BATCH.templates.values():
        assert set(template.suggested_modules) <= names, template.pattern


def test_the_default_database_lives_in_the_user_data_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("FORMSPEC_REGISTRY_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_url() == f"sqlite:///{tmp_path / 'formspec-consult' / 'registry.db'}"
    monkeypatch.setenv("FORMSPEC_REGISTRY_DB", "postgresql://example/db")
    assert default_db_url() == "postgresql://example/db"


def test_first_start_seeds_once_and_later_starts_do_nothing(db_url: str) -> None:
    with open_store(db_url, seed=False) as store:
        first = seed_bundled(store)
        second = seed_bundled(store)
        assert first.count("added") == len(BATCH.modules) + len(BATCH.templates)
        assert second.skipped
        assert len(store.module_names()) == len(BATCH.modules)


def test_several_processes_starting_at_once_on_a_new_database_seed_it_exactly_once(db_url: str) -> None:
    results: list[SaveResult] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def start() -> None:
        try:
            with open_store(db_url, seed=False) as store:  # each "process" has its own connections
                barrier.wait(timeout=30)
                results.append(seed_bundled(store))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(r.skipped for r in results) == [False, True, True, True]
    with open_store(db_url, seed=False) as store:
        assert len(store.module_names()) == len(BATCH.modules)


def test_a_new_sqlite_file_switches_to_wal_even_while_another_connection_is_writing(tmp_path: Path) -> None:
    """SQLite refuses the switch to WAL with "database is locked" at once (no busy timeout) while
    another connection holds the write lock: the race behind several processes starting the
    bundled registry together on a new file."""
    import sqlite3

    path = tmp_path / "registry.db"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("CREATE TABLE early (x)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO early VALUES (1)")  # holds the write lock until COMMIT
    errors: list[BaseException] = []

    def start() -> None:
        try:
            with open_store(f"sqlite:///{path}", seed=False) as store:
                store.meta_value("anything")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=start)
    thread.start()
    lock = Path(f"{path}.lock")
    waited = threading.Event()
    for _ in range(1000):  # until the opener waits for the writer (or has given up), 10 s at most
        if lock.exists() or not thread.is_alive() or waited.wait(0.01):
            break
    writer.execute("COMMIT")
    writer.close()
    thread.join(timeout=60)
    assert not errors, errors
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
