"""The checks every document shares: four top-level keys, apiVersion, kind and metadata."""

from __future__ import annotations

import re
from typing import Any

from formspec_consult.spec.kinds import (
    KIND_ALIASES,
    LEGACY_API_VERSIONS,
    METADATA_KEYS,
    RETIRED_KINDS,
    STABLE_API_VERSIONS,
    TOP_LEVEL_KEYS,
    canonical_kind,
    known_kinds,
)
from formspec_consult.spec.model import Problem
from formspec_consult.spec.yamlpos import node_position

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def check_envelope(data: Any, node: Any, source: str, line: int) -> tuple[list[Problem], list[Problem]]:
    """(problems, warnings) of the document envelope; an empty problem list means it is usable."""
    problems: list[Problem] = []
    warnings: list[Problem] = []

    def add(bucket: list[Problem], code: str, path: tuple[Any, ...], message: str, hint: str) -> None:
        pos = node_position(node, path)
        bucket.append(Problem(code, source, pos[0] if pos else line, "schema", message, hint, pos[1] if pos else None))

    if not isinstance(data, dict):
        pos = node_position(node, ()) or (line, None)
        problems.append(Problem("FS-DOC-NOT-MAPPING", source, pos[0], "parse",
                                f"a spec document must be a mapping, not {_type(data)}",
                                "Start the document with `apiVersion:`, `kind:`, `metadata:` and `spec:`.", pos[1]))
        return problems, warnings
    for key in TOP_LEVEL_KEYS:
        if key not in data:
            add(problems, "FS-ENVELOPE-MISSING-KEY", (), f"missing top-level key `{key}`",
                "Every document has exactly apiVersion, kind, metadata and spec.")
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            add(problems, "FS-ENVELOPE-UNKNOWN-KEY", (key,), f"unknown top-level key `{key}`",
                "Only apiVersion, kind, metadata and spec are allowed; move it under `spec:`.")
    api = data.get("apiVersion")
    if "apiVersion" in data:
        if api in LEGACY_API_VERSIONS:
            add(warnings, "FS-API-VERSION-LEGACY", ("apiVersion",), f"legacy apiVersion {api!r}",
                "Change it to `formspec.dev/v1`.")
        elif api not in STABLE_API_VERSIONS:
            add(problems, "FS-API-VERSION", ("apiVersion",), f"unsupported apiVersion {api!r}",
                "Use `apiVersion: formspec.dev/v1` (the only stable version).")
    kind = data.get("kind")
    if "kind" in data:
        canonical = canonical_kind(kind) if isinstance(kind, str) else None
        if canonical is None:
            current = [k for k in known_kinds() if k not in RETIRED_KINDS and k not in KIND_ALIASES]
            add(problems, "FS-KIND-UNKNOWN", ("kind",), f"unknown kind {kind!r}",
                f"Use one of: {', '.join(current)}.")
        elif canonical != kind:
            add(problems, "FS-KIND-CASE", ("kind",), f"kind {kind!r} must be written {canonical!r}",
                f"Write `kind: {canonical}`.")
        elif canonical in KIND_ALIASES:
            add(warnings, "FS-KIND-DEPRECATED", ("kind",), f"kind {kind} is a deprecated alias",
                f"Write `kind: {KIND_ALIASES[canonical]}`.")
        elif canonical in RETIRED_KINDS:
            add(warnings, "FS-KIND-RETIRED", ("kind",), f"kind {kind} is no longer in FormSpec's newest kind "
                "catalogue: its `formspec validate` reports it as an unknown kind",
                f"Still accepted here for projects written for the release that had it; instead, "
                f"{RETIRED_KINDS[canonical]}.")
    _check_metadata(data, add, problems)
    if "spec" in data and not isinstance(data["spec"], dict):
        add(problems, "FS-SPEC-NOT-MAPPING", ("spec",), f"`spec` must be a mapping, not {_type(data['spec'])}",
            "Indent the kind's settings under `spec:`.")
    return problems, warnings


def _check_metadata(data: dict[str, Any], add: Any, problems: list[Problem]) -> None:
    if "metadata" not in data:
        return
    meta = data["metadata"]
    if not isinstance(meta, dict):
        add(problems, "FS-METADATA-NOT-MAPPING", ("metadata",), f"`metadata` must be a mapping, not {_type(meta)}",
            "Write `metadata: {name: <name>}`.")
        return
    for key in meta:
        if key not in METADATA_KEYS:
            add(problems, "FS-METADATA-UNKNOWN-KEY", ("metadata", key), f"unknown metadata key `{key}`",
                "metadata allows only name, module, description, labels and annotations.")
    name = meta.get("name")
    if "name" not in meta:
        add(problems, "FS-METADATA-NAME", ("metadata",), "metadata.name is required",
            "Give the document a name: `metadata: {name: invoice}`.")
    elif not isinstance(name, str) or not NAME_RE.match(name):
        add(problems, "FS-METADATA-NAME", ("metadata", "name"), f"invalid metadata.name {name!r}",
            "Use letters, digits, '.', '_' or '-', starting with a letter or digit (e.g. `sales_order`).")
    module = meta.get("module")
    if module is not None and (not isinstance(module, str) or not NAME_RE.match(module)):
        add(problems, "FS-METADATA-MODULE", ("metadata", "module"), f"invalid metadata.module {module!r}",
            "Name an existing module, e.g. `module: billing`.")


def _type(value: Any) -> str:
    if value is None:
        return "empty"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), "a number")
