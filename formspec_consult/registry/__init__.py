"""The module registry and business templates: records, storage (SQLite FTS5 / PostgreSQL),
the bundled catalogue and the importer. Served over MCP by `formspec_consult.servers.registry`.

Entry points: `open_store(url)` (seeds the bundled catalogue), `import_path(store, path)`.
Import from the submodules (`registry.db`, `registry.importer`, …); this package file stays
empty of imports so `registry.models` is cheap to load for the CLI's `--help`.
"""
