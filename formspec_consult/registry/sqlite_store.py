"""SQLite backend: an FTS5 index ranked with BM25 (the embedded default).

WAL journal mode lets many readers (server worker threads, several server processes) run while an
import writes; `BEGIN IMMEDIATE` takes the write lock up front so two processes seeding the same
new file serialise instead of failing half-way.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from formspec_consult.registry.store import Change, IndexedModule, RegistryStore

# Column weights for bm25(): name, aliases, features, body (category, description, integration).
_WEIGHTS = (10.0, 6.0, 3.0, 1.0)
_SWITCH_TIMEOUT = 30.0  # seconds a new database waits to be switched to WAL mode by this process
_BM25 = f"bm25(modules_fts, {', '.join(str(w) for w in _WEIGHTS)})"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS templates (pattern TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS modules (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    category TEXT NOT NULL,
    trust_tier TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS modules_category ON modules (category);
CREATE VIRTUAL TABLE IF NOT EXISTS modules_fts USING fts5(
    name_terms, alias_terms, feature_terms, body_terms, tokenize = 'unicode61'
);
"""


def sqlite_path(url: str) -> Path:
    """The file path of a `sqlite:///path` URL (or a plain path)."""
    rest = url.removeprefix("sqlite:").removeprefix("//")
    if not rest or rest == ":memory:":
        raise ValueError(
            f"{url!r} is not a usable SQLite database path: give a file, e.g. sqlite:///var/lib/registry.db"
        )
    return Path(rest).expanduser()


class SqliteStore(RegistryStore[sqlite3.Connection]):
    """The registry in one SQLite file."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.path = sqlite_path(url)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._write():
            pass  # creates the schema under the write lock

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 30000")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            self._switch_to_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def _switch_to_wal(self, conn: sqlite3.Connection) -> None:
        """Put a new database file in WAL mode (once: the mode is kept in the file).

        The switch needs the file to itself, and SQLite refuses it with "database is locked" at
        once, without waiting out the busy timeout, while another connection so much as reads.
        Processes opening a new file together (the TUI and Claude Code starting the bundled
        registry) therefore switch one at a time under a lock beside the file, each retrying
        within a bounded wait while a reader that is not under that lock gets out of the way.
        """
        deadline = time.monotonic() + _SWITCH_TIMEOUT
        with FileLock(f"{self.path}.lock", timeout=_SWITCH_TIMEOUT):
            while True:
                try:
                    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                        conn.execute("PRAGMA journal_mode = WAL")
                    return
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) or time.monotonic() >= deadline:
                        raise
                    time.sleep(0.01)

    def _close_connection(self, conn: sqlite3.Connection) -> None:
        conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Cursor]:
        conn = self._conn()
        cur = conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            for statement in filter(str.strip, _SCHEMA.split(";")):
                cur.execute(statement)
            yield cur
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        else:
            cur.execute("COMMIT")
        finally:
            cur.close()

    def _get_meta(self, cur: sqlite3.Cursor, key: str) -> str | None:
        row = cur.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, cur: sqlite3.Cursor, key: str, value: str) -> None:
        cur.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def _upsert_template(self, cur: sqlite3.Cursor, pattern: str, data: str) -> Change:
        row = cur.execute("SELECT data FROM templates WHERE pattern = ?", (pattern,)).fetchone()
        if row is not None and row[0] == data:
            return "unchanged"
        cur.execute(
            "INSERT INTO templates (pattern, data) VALUES (?, ?) ON CONFLICT(pattern) DO UPDATE SET data = excluded.data",
            (pattern, data),
        )
        return "added" if row is None else "updated"

    def _upsert_module(self, cur: sqlite3.Cursor, module: IndexedModule) -> Change:
        rec = module.record
        row = cur.execute("SELECT id, data FROM modules WHERE name = ?", (rec.name,)).fetchone()
        if row is not None and row[1] == module.data:
            return "unchanged"
        if row is None:
            cur.execute(
                "INSERT INTO modules (name, category, trust_tier, data) VALUES (?, ?, ?, ?)",
                (rec.name, rec.ai_index.category.lower(), rec.trust_tier, module.data),
            )
            row_id = cur.lastrowid
        else:
            row_id = row[0]
            cur.execute(
                "UPDATE modules SET category = ?, trust_tier = ?, data = ? WHERE id = ?",
                (rec.ai_index.category.lower(), rec.trust_tier, module.data, row_id),
            )
            cur.execute("DELETE FROM modules_fts WHERE rowid = ?", (row_id,))
        cur.execute(
            "INSERT INTO modules_fts (rowid, name_terms, alias_terms, feature_terms, body_terms) VALUES (?, ?, ?, ?, ?)",
            (row_id, module.name_terms, module.alias_terms, module.feature_terms, module.body_terms),
        )
        return "added" if row is None else "updated"

    def _fetch_templates(self) -> list[str]:
        return [r[0] for r in self._conn().execute("SELECT data FROM templates")]

    def _fetch_module(self, name: str) -> str | None:
        row = self._conn().execute("SELECT data FROM modules WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def _search_rows(self, terms: list[str], limit: int, category: str | None) -> list[tuple[str, float]]:
        # Terms are [a-z0-9]+ after normalisation; quoting them keeps FTS5 syntax out anyway.
        # Rank inside the FTS table first and join only the top `limit` rows: joining before the
        # sort would carry every matching row's JSON through the sorter (6x slower at 10k modules).
        match = " OR ".join(f'"{t}"' for t in terms)
        where = "modules_fts MATCH ?"
        params: list[object] = [match]
        if category:
            where += " AND rowid IN (SELECT id FROM modules WHERE category = ?)"
            params.append(category)
        params.append(limit)
        sql = (
            f"SELECT m.data, top.score FROM (SELECT rowid, -{_BM25} AS score FROM modules_fts WHERE {where} "
            "ORDER BY score DESC LIMIT ?) AS top JOIN modules m ON m.id = top.rowid ORDER BY top.score DESC, m.name"
        )
        return [(r[0], r[1]) for r in self._conn().execute(sql, params)]

    def raw_search_ids(self, terms: list[str], limit: int) -> list[int]:
        """The bare FTS query without decoding or snippets: the floor the benchmark compares to."""
        match = " OR ".join(f'"{t}"' for t in terms)
        sql = f"SELECT rowid, -{_BM25} AS score FROM modules_fts WHERE modules_fts MATCH ? ORDER BY score DESC LIMIT ?"
        return [r[0] for r in self._conn().execute(sql, (match, limit))]

    def module_names(self) -> list[str]:
        return [r[0] for r in self._conn().execute("SELECT name FROM modules ORDER BY name")]

    def categories(self) -> list[str]:
        return [r[0] for r in self._conn().execute("SELECT DISTINCT category FROM modules ORDER BY category")]
