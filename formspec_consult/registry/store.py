"""The registry store: one interface, two backends (SQLite FTS5 and PostgreSQL full-text).

Writes are whole-batch transactions (an import either lands completely or not at all) and
upserts (re-importing the same files changes nothing). Reads use one connection per thread: the
MCP SDK runs synchronous tools in worker threads, and neither sqlite3 nor psycopg connections
should be shared between threads mid-query.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from formspec_consult.registry.codec import (
    dumps,
    module_from_dict,
    module_to_dict,
    template_from_dict,
    template_to_dict,
)
from formspec_consult.registry.models import BusinessTemplate, ModuleRecord, SearchHit
from formspec_consult.registry.snippet import make_snippet
from formspec_consult.registry.text import index_text, query_terms

Change = Literal["added", "updated", "unchanged"]
ConnT = TypeVar("ConnT")


@dataclass
class SaveResult:
    """What a `save` did, per kind of record."""

    skipped: bool = False
    templates: dict[str, Change] = field(default_factory=dict)
    modules: dict[str, Change] = field(default_factory=dict)

    def count(self, change: Change) -> int:
        """How many records (templates and modules) had this outcome."""
        return sum(1 for c in [*self.templates.values(), *self.modules.values()] if c == change)


@dataclass(frozen=True)
class IndexedModule:
    """A module plus the normalised text columns the full-text index is built from."""

    record: ModuleRecord
    data: str
    name_terms: str
    alias_terms: str
    feature_terms: str
    body_terms: str

    @classmethod
    def of(cls, module: ModuleRecord) -> IndexedModule:
        ai = module.ai_index
        return cls(
            record=module,
            data=dumps(module_to_dict(module)),
            name_terms=index_text([module.name]),
            alias_terms=index_text(ai.aliases),
            feature_terms=index_text(ai.features),
            # skills_for_ai is deliberately *not* indexed: it is untrusted publisher text and
            # must not be able to stuff keywords into other people's searches.
            body_terms=index_text([ai.category, module.description, ai.integration_pattern]),
        )


class RegistryStore(ABC, Generic[ConnT]):
    """Shared logic of both backends; subclasses supply connections and SQL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[ConnT] = []

    # -- connections ----------------------------------------------------------------------
    @abstractmethod
    def _connect(self) -> ConnT: ...

    @abstractmethod
    def _close_connection(self, conn: ConnT) -> None: ...

    def _conn(self) -> ConnT:
        conn: ConnT | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        """Close every connection this store opened (from any thread)."""
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            self._close_connection(conn)
        self._local = threading.local()

    def __enter__(self) -> RegistryStore[ConnT]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- backend primitives -----------------------------------------------------------------
    @abstractmethod
    def _write(self) -> AbstractContextManager[Any]:
        """A write transaction holding the store-wide write lock; yields a cursor."""

    @abstractmethod
    def _get_meta(self, cur: Any, key: str) -> str | None: ...

    @abstractmethod
    def _set_meta(self, cur: Any, key: str, value: str) -> None: ...

    @abstractmethod
    def _upsert_template(self, cur: Any, pattern: str, data: str) -> Change: ...

    @abstractmethod
    def _upsert_module(self, cur: Any, module: IndexedModule) -> Change: ...

    @abstractmethod
    def _fetch_templates(self) -> list[str]: ...

    @abstractmethod
    def _fetch_module(self, name: str) -> str | None: ...

    @abstractmethod
    def _search_rows(self, terms: list[str], limit: int, category: str | None) -> list[tuple[str, float]]: ...

    @abstractmethod
    def module_names(self) -> list[str]:
        """Every module name, sorted."""

    @abstractmethod
    def categories(self) -> list[str]:
        """Every distinct module category, sorted."""

    # -- public API -------------------------------------------------------------------------
    def save(
        self,
        templates: Sequence[BusinessTemplate],
        modules: Sequence[ModuleRecord],
        *,
        marker: tuple[str, str] | None = None,
    ) -> SaveResult:
        """Upsert templates and modules in one transaction.

        With `marker=(key, value)`, do nothing if the store's meta `key` already equals `value`
        (checked under the write lock, so two processes seeding at once seed exactly once).
        """
        result = SaveResult()
        with self._write() as cur:
            if marker is not None and self._get_meta(cur, marker[0]) == marker[1]:
                result.skipped = True
                return result
            for template in templates:
                data = dumps(template_to_dict(template))
                result.templates[template.pattern] = self._upsert_template(cur, template.pattern, data)
            for module in modules:
                result.modules[module.name] = self._upsert_module(cur, IndexedModule.of(module))
            if marker is not None:
                self._set_meta(cur, *marker)
        return result

    def meta_value(self, key: str) -> str | None:
        """A value of the store's meta table (e.g. which bundled catalogue is seeded), or None."""
        with self._write() as cur:
            return self._get_meta(cur, key)

    def list_templates(self) -> list[BusinessTemplate]:
        """Every business template, sorted by pattern id."""
        return sorted(
            (template_from_dict(json.loads(d)) for d in self._fetch_templates()), key=lambda t: t.pattern
        )

    def get_module(self, name: str) -> ModuleRecord | None:
        """The module called `name` (case-insensitive), or None."""
        data = self._fetch_module(name.strip().lower())
        return module_from_dict(json.loads(data)) if data is not None else None

    def search(self, query: str, limit: int = 10, category: str | None = None) -> list[SearchHit]:
        """Modules ranked for `query` (best first). Raises ValueError for an unsearchable query."""
        if not 1 <= limit <= 100:
            raise ValueError(f"limit must be between 1 and 100, not {limit}")
        terms = query_terms(query)
        rows = self._search_rows(terms, limit, category.strip().lower() if category else None)
        hits: list[SearchHit] = []
        for data, score in rows:
            module = module_from_dict(json.loads(data))
            hits.append(SearchHit(module, round(float(score), 4), make_snippet(module.description, terms)))
        return hits
