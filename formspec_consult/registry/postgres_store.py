"""PostgreSQL backend: a weighted `tsvector` column with a GIN index, ranked with ts_rank_cd.

The text is normalised in Python (see `registry.text`) and indexed with the 'simple'
configuration, so accents, plurals and Indonesian aliases behave exactly as on SQLite and no
server extension (unaccent, language dictionaries) is needed. Schema creation and imports take a
transaction-scoped advisory lock, so several server processes may start on one database at once.

`?schema=NAME` in the URL keeps the registry in its own schema (created if missing).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg

from formspec_consult.registry.store import Change, IndexedModule, RegistryStore

_LOCK_ID = 0x0F0E5C  # any constant shared by every process using the registry
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS templates (pattern TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS modules (
    name TEXT PRIMARY KEY,
    category TEXT NOT NULL,
    trust_tier TEXT NOT NULL,
    data TEXT NOT NULL,
    document TSVECTOR NOT NULL
);
CREATE INDEX IF NOT EXISTS modules_document ON modules USING GIN (document);
CREATE INDEX IF NOT EXISTS modules_category ON modules (category)
"""

# Weights mirror the SQLite BM25 column weights: name and aliases A, features B, the rest C.
_DOCUMENT = (
    "setweight(to_tsvector('simple', %(name_terms)s), 'A') || setweight(to_tsvector('simple', %(alias_terms)s), 'A')"
    " || setweight(to_tsvector('simple', %(feature_terms)s), 'B') || setweight(to_tsvector('simple', %(body_terms)s), 'C')"
)


def split_schema(url: str) -> tuple[str, str]:
    """Take `schema=` out of the URL's query (psycopg does not know it): (url, schema)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), "public")
    if not _SCHEMA_NAME.match(schema):
        raise ValueError(f"schema={schema!r} in the database URL is not a plain lower-case SQL name")
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    return urlunsplit(parts._replace(query=rest)), schema


class PostgresStore(RegistryStore[psycopg.Connection]):
    """The registry in a PostgreSQL database."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self._dsn, self.schema = split_schema(url)
        with self._write():
            pass  # creates the schema under the advisory lock

    def _connect(self) -> psycopg.Connection:
        try:
            conn = psycopg.connect(self._dsn, autocommit=True, connect_timeout=10)
        except psycopg.OperationalError as exc:
            raise ConnectionError(f"Cannot connect to the registry database: {exc}".strip()) from exc
        if self.schema != "public":
            try:
                conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateSchema):
                pass  # another process created it a moment ago (IF NOT EXISTS is not race-free)
        conn.execute(f'SET search_path TO "{self.schema}"')
        return conn

    def _close_connection(self, conn: psycopg.Connection) -> None:
        conn.close()

    @contextmanager
    def _write(self) -> Iterator[psycopg.Cursor]:
        conn = self._conn()
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_ID,))
            for statement in filter(str.strip, _SCHEMA.split(";")):
                cur.execute(statement)  # constant DDL
            yield cur

    def _get_meta(self, cur: psycopg.Cursor, key: str) -> str | None:
        row = cur.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, cur: psycopg.Cursor, key: str, value: str) -> None:
        cur.execute(
            "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def _upsert_template(self, cur: psycopg.Cursor, pattern: str, data: str) -> Change:
        row = cur.execute("SELECT data FROM templates WHERE pattern = %s", (pattern,)).fetchone()
        if row is not None and row[0] == data:
            return "unchanged"
        cur.execute(
            "INSERT INTO templates (pattern, data) VALUES (%s, %s) ON CONFLICT (pattern) DO UPDATE SET data = excluded.data",
            (pattern, data),
        )
        return "added" if row is None else "updated"

    def _upsert_module(self, cur: psycopg.Cursor, module: IndexedModule) -> Change:
        rec = module.record
        row = cur.execute("SELECT data FROM modules WHERE name = %s", (rec.name,)).fetchone()
        if row is not None and row[0] == module.data:
            return "unchanged"
        cur.execute(
            "INSERT INTO modules (name, category, trust_tier, data, document) "
            f"VALUES (%(name)s, %(category)s, %(tier)s, %(data)s, {_DOCUMENT}) "
            "ON CONFLICT (name) DO UPDATE SET category = excluded.category, trust_tier = excluded.trust_tier, "
            "data = excluded.data, document = excluded.document",
            {
                "name": rec.name,
                "category": rec.ai_index.category.lower(),
                "tier": rec.trust_tier,
                "data": module.data,
                "name_terms": module.name_terms,
                "alias_terms": module.alias_terms,
                "feature_terms": module.feature_terms,
                "body_terms": module.body_terms,
            },
        )
        return "added" if row is None else "updated"

    def _fetch_templates(self) -> list[str]:
        return [r[0] for r in self._conn().execute("SELECT data FROM templates")]

    def _fetch_module(self, name: str) -> str | None:
        row = self._conn().execute("SELECT data FROM modules WHERE name = %s", (name,)).fetchone()
        return row[0] if row else None

    def _search_rows(self, terms: list[str], limit: int, category: str | None) -> list[tuple[str, float]]:
        # Terms are [a-z0-9]+ after normalisation, so joining them with | is a valid tsquery.
        sql = (
            "SELECT data, ts_rank_cd(document, q, 1) AS score FROM modules, to_tsquery('simple', %(q)s) AS q "
            "WHERE document @@ q"
        )
        if category:
            sql += " AND category = %(category)s"
        sql += " ORDER BY score DESC, name LIMIT %(limit)s"
        params = {"q": " | ".join(terms), "category": category, "limit": limit}
        return [(r[0], r[1]) for r in self._conn().execute(sql, params)]

    def raw_search_ids(self, terms: list[str], limit: int) -> list[str]:
        """The bare full-text query without decoding or snippets: the benchmark's floor."""
        sql = (
            "SELECT name FROM modules, to_tsquery('simple', %s) AS q WHERE document @@ q "
            "ORDER BY ts_rank_cd(document, q, 1) DESC LIMIT %s"
        )
        return [r[0] for r in self._conn().execute(sql, (" | ".join(terms), limit))]

    def module_names(self) -> list[str]:
        return [r[0] for r in self._conn().execute("SELECT name FROM modules ORDER BY name")]

    def categories(self) -> list[str]:
        return [r[0] for r in self._conn().execute("SELECT DISTINCT category FROM modules ORDER BY category")]
