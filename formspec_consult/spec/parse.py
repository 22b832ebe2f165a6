"""File text → Documents plus parse/envelope findings, cached by file stat or text hash."""

from __future__ import annotations

import errno
import gc
import hashlib
import os
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from formspec_consult.spec.envelope import check_envelope
from formspec_consult.spec.layout import classify
from formspec_consult.spec.model import Document, Problem
from formspec_consult.spec.yamlload import MAX_FILE_BYTES, YamlLoadError, decode, load_stream, too_large


@dataclass
class ParsedFile:
    """Everything derived from one file's text alone (safe to cache while the text is unchanged)."""

    docs: list[Document]
    problems: list[Problem]
    warnings: list[Problem]
    #: documents whose envelope is valid (the only ones schema and structural checks look at)
    usable: list[Document]
    #: per-validator-source memo of schema/local findings, filled lazily by the validator
    memo: dict[Any, Any] = field(default_factory=dict)


def parse_text(text: str, rel: str, path: Path, spec_rel: str) -> ParsedFile:
    """Parse `text` (the content of `rel`) into documents; never raises for bad input."""
    try:
        raws = load_stream(text)
    except YamlLoadError as exc:
        return ParsedFile([], [Problem(exc.code, rel, exc.line, "parse", exc.message, exc.hint, exc.column)], [], [])
    origin, path_module = classify(rel, spec_rel)
    lines = text.splitlines(keepends=True)
    parsed = ParsedFile([], [], [], [])
    if not raws:
        parsed.warnings.append(Problem("FS-DOC-EMPTY", rel, 1, "parse", "the file holds no document",
                                       "Delete the empty file or write a spec document into it."))
    for raw in raws:
        problems, warnings = check_envelope(raw.value, raw.node, rel, raw.line)
        parsed.problems += problems
        parsed.warnings += warnings
        if not isinstance(raw.value, dict):
            continue
        doc = _document(raw, rel, path, origin, path_module, lines)
        parsed.docs.append(doc)
        if not problems:
            parsed.usable.append(doc)
    return parsed


def _document(raw: Any, rel: str, path: Path, origin: str, path_module: str | None,
              lines: list[str]) -> Document:
    data: dict[str, Any] = raw.value
    meta = _meta if isinstance(_meta := data.get("metadata"), dict) else {}
    kind = _kind if isinstance(_kind := data.get("kind"), str) else ""
    name = _name if isinstance(_name := meta.get("name"), str) else None
    module = _module if isinstance(_module := meta.get("module"), str) else None
    if kind == "Module":
        module = name  # a module manifest belongs to the module it declares
    elif module is None and kind not in ("App", "Workspace"):
        module = path_module
    end = raw.node.end_mark.line + (1 if raw.node.end_mark.column else 0)
    start = raw.line - 1
    return Document(path=path, rel=rel, kind=kind, module=module, name=name,
                    api_version=str(data.get("apiVersion", "")), data=data,
                    text="".join(lines[start:end]), line=raw.line, read_only=origin == "vendors",
                    origin=origin)  # type: ignore[arg-type]


class ParseCache:
    """Parsed files keyed by (path, mtime_ns, size) on disk, or by text hash for overlays."""

    def __init__(self, overlay_slots: int = 64) -> None:
        self._disk: dict[str, tuple[tuple[int, int], ParsedFile]] = {}
        self._overlay: OrderedDict[tuple[str, str], ParsedFile] = OrderedDict()
        self._slots = overlay_slots

    def from_disk(self, root: Path, rel: str, spec_rel: str) -> ParsedFile:
        """The parsed file at `root/rel`, reparsed only when its stat changed."""
        try:
            st = os.stat(os.path.join(root, rel))
        except OSError as exc:
            return ParsedFile([], [_unreadable(rel, exc, "Check the file exists and is readable.")], [], [])
        key = (st.st_mtime_ns, st.st_size)
        hit = self._disk.get(rel)
        if hit is not None and hit[0] == key:
            return hit[1]
        if st.st_size > MAX_FILE_BYTES:  # do not even read a huge file into memory
            huge = too_large(st.st_size)
            parsed = ParsedFile([], [Problem(huge.code, rel, None, "parse", huge.message, huge.hint)], [], [])
        else:
            parsed = _parse_bytes(root / rel, rel, spec_rel)
        self._disk[rel] = (key, parsed)
        return parsed

    def from_text(self, root: Path, rel: str, text: str, spec_rel: str) -> ParsedFile:
        """The parsed overlay text for `rel` (cached by content, small LRU)."""
        key = (rel, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest())
        hit = self._overlay.get(key)
        if hit is not None:
            self._overlay.move_to_end(key)
            return hit
        try:
            checked = decode(text.encode("utf-8"))
        except (YamlLoadError, UnicodeEncodeError) as exc:
            code = getattr(exc, "code", "FS-FILE-ENCODING")
            msg = getattr(exc, "message", "the text is not valid Unicode")
            parsed = ParsedFile([], [Problem(code, rel, getattr(exc, "line", None), "parse", msg,
                                             getattr(exc, "hint", "") or "Send UTF-8 text.")], [], [])
        else:
            parsed = parse_text(checked, rel, root / rel, spec_rel)
        self._overlay[key] = parsed
        if len(self._overlay) > self._slots:
            self._overlay.popitem(last=False)
        return parsed

    def forget_missing(self, present: set[str]) -> None:
        """Drop entries for files that no longer exist (keeps memory bounded)."""
        for rel in [r for r in self._disk if r not in present]:
            del self._disk[rel]


def _parse_bytes(path: Path, rel: str, spec_rel: str) -> ParsedFile:
    try:
        raw = path.read_bytes()
        text = decode(raw)
    except YamlLoadError as exc:
        return ParsedFile([], [Problem(exc.code, rel, exc.line, "parse", exc.message, exc.hint, exc.column)], [], [])
    except OSError as exc:
        return ParsedFile([], [_unreadable(rel, exc, "Check the file permissions.")], [], [])
    return parse_text(text, rel, path, spec_rel)


def _unreadable(rel: str, exc: OSError, hint: str) -> Problem:
    if exc.errno == errno.ELOOP:
        hint = "It is a symbolic link that leads back to itself (a loop): remove the link or point it at a real file."
    return Problem("FS-FILE-UNREADABLE", rel, None, "parse", f"cannot read: {exc.strerror}", hint)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for a burst of parsing (restored afterwards).

    Building thousands of small dicts and lists triggers repeated full collections that scan
    every live object; parsing creates no reference cycles, so pausing loses nothing.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
