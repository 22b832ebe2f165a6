"""Drafts of one session: ``<session>/draft/<path>`` plus a manifest ``<session>/drafts.json``
(see :mod:`formspec_consult.store.manifest`).

The draft tree mirrors the spec tree (paths relative to the spec root, ``overrides/…`` kept as
is). The manifest records, per draft, the sha256 of the target file when the draft was proposed
(``"absent"`` for a new file) so a later apply can notice that the target changed meanwhile.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from formspec_consult.store import paths
from formspec_consult.store.atomic import ABSENT, remove_file, sha256_of, write_atomic
from formspec_consult.store.layout import SessionLayout
from formspec_consult.store.manifest import (
    LIVE_STATES,
    SETTLED_STATES,
    DraftManifest,
    DraftRecord,
    DraftState,
    LiveState,
    live_state,
)

MAX_DRAFT_BYTES = 512 * 1024
DraftStatus = Literal["new", "modified", "unchanged"]


class DraftError(ValueError):
    """Bad draft content or an unknown draft; the message says what to do."""


@dataclass(frozen=True)
class Roots:
    """The three folders a tool path can address."""

    project_root: Path
    spec_root: Path
    overrides_dir: Path

    def resolve(self, raw: object) -> paths.SpecPath:
        """Check a tool path against the path rules and map it onto the project."""
        return paths.resolve(
            raw, project_root=self.project_root, spec_root=self.spec_root, overrides_dir=self.overrides_dir
        )


@dataclass(frozen=True)
class DraftInfo:
    """A draft as listed for review."""

    rel: str
    project_rel: str
    status: DraftStatus
    target_changed: bool | None  # None: proposed outside propose_spec_file, nothing recorded
    state: LiveState = "pending"  # "undone": applied, undone, and back for review


def check_content(content: object) -> bytes:
    """Validate draft text and return its UTF-8 bytes."""
    if not isinstance(content, str):
        raise DraftError("The content must be the YAML text of the file (a string).")
    if not content.strip():
        raise DraftError("The content is empty; give the full YAML text of the file.")
    if "\x00" in content:
        raise DraftError("The content contains a NUL character; spec files are plain UTF-8 text.")
    data = _encode(content)
    if len(data) > MAX_DRAFT_BYTES:
        raise DraftError(
            f"The content is {len(data):,} bytes; the limit is {MAX_DRAFT_BYTES:,}. "
            "Split it into several smaller spec files."
        )
    return data


def _encode(content: str) -> bytes:
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates cannot be written as UTF-8
        raise DraftError("The content is not valid Unicode text (lone surrogate characters).") from exc


def refuse_symlinks(base: Path, path: Path) -> None:
    """Raise DraftError when ``path`` or any folder between ``base`` and it is a symlink.

    The session's folders are ours: a symlink there (a draft file, ``draft/`` or ``undo/`` swapped
    for a link) could make apply copy an outside file into the project, or write outside it.
    """
    try:
        rel = path.relative_to(base)
    except ValueError:
        raise DraftError(f"{path} is not inside the session folder {base}.") from None
    current = base
    for part in ("", *rel.parts):
        current = current / part if part else current
        if current.is_symlink():
            raise DraftError(
                f"{current} is a symbolic link; formspec-consult refuses links inside a session "
                "folder (they could point outside the project). Remove the link and propose the "
                "draft again."
            )


def decode_draft(rel: str, data: bytes) -> str:
    """The text of a draft's bytes; DraftError when they are not valid UTF-8 (never guessed)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DraftError(
            f"The draft {rel} is not valid UTF-8 (byte {exc.start}); spec files are UTF-8 text. "
            "Propose it again with propose_spec_file."
        ) from exc


class DraftStore:
    """Reads and writes the drafts of one session folder."""

    def __init__(self, session_folder: Path, roots: Roots) -> None:
        self.folder = session_folder
        self.draft_dir = SessionLayout(session_folder).draft
        self.roots = roots
        self.manifest = DraftManifest(session_folder)

    def draft_file(self, rel: str) -> Path:
        """Where the draft for tool path ``rel`` lives."""
        return self.draft_dir.joinpath(*rel.split("/"))

    def write(self, spec_path: paths.SpecPath, content: object) -> Path:
        """Write (or replace) a draft and record the target's current hash (content: checked to be
        the file's text, see :func:`check_content`)."""
        data = check_content(content)
        file = self.draft_file(spec_path.rel)
        self._refuse_links(file)
        write_atomic(file, data, durable=False)
        self._refuse_links(file)  # a link swapped in meanwhile: the write went through it
        self.manifest.put(
            DraftRecord(
                rel=spec_path.rel,
                project_rel=spec_path.project_rel,
                target_sha256=sha256_of(spec_path.target),
                proposed_at=_now(),
            )
        )
        return file

    def replace(self, spec_path: paths.SpecPath, content: str) -> Path:
        """Put the person's version in place of an existing draft: its record (the target's hash
        when it was proposed, its review state) stays, so an apply still notices a target that
        changed since the proposal."""
        data = check_content(content)
        file = self.draft_file(spec_path.rel)
        self._refuse_links(file)
        write_atomic(file, data, durable=False)
        self._refuse_links(file)
        return file

    def rels(self) -> list[str]:
        """Tool paths of every draft in the session, sorted."""
        if not self.draft_dir.is_dir():
            return []
        self._refuse_links(self.draft_dir)
        found = []
        for file in self.draft_dir.rglob("*"):
            rel = file.relative_to(self.draft_dir).as_posix()
            if file.is_file() and not any(p.startswith(".") for p in rel.split("/")):
                if rel.lower().endswith(paths.YAML_SUFFIXES) or paths.is_doc(rel):
                    found.append(rel)
        return sorted(found)

    def spec_paths(self) -> list[paths.SpecPath]:
        """Every draft as a checked path; a file dropped into draft/ by hand that breaks the
        path rules is left out (never listed, overlaid or applied)."""
        found = []
        for rel in self.rels():
            try:
                found.append(self.roots.resolve(rel))
            except paths.PathRefused:
                continue
        return found

    def find(self, raw: object) -> paths.SpecPath:
        """Resolve a tool path that must name an existing draft."""
        spec_path = self.roots.resolve(raw)
        if not self.draft_file(spec_path.rel).is_file():
            known = self.rels()
            listing = ", ".join(known[:10]) if known else "none"
            raise DraftError(
                f"There is no draft for {spec_path.rel!r} in this session (drafts: {listing}). "
                "Propose it first with propose_spec_file."
            )
        return spec_path

    def _refuse_links(self, file: Path) -> None:
        refuse_symlinks(self.folder.parent, file)

    def read_bytes(self, rel: str) -> bytes:
        """The bytes of draft ``rel``; DraftError when it (or a folder on its way) is a symlink."""
        file = self.draft_file(rel)
        self._refuse_links(file)
        try:
            fd = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self._refuse_links(file)  # swapped for a link after the check: say so
            raise
        with os.fdopen(fd, "rb") as handle:
            return handle.read()

    def read_text(self, rel: str) -> str:
        """The text of draft ``rel`` exactly as apply would write it (strict UTF-8)."""
        return decode_draft(rel, self.read_bytes(rel))

    def record(self, rel: str) -> DraftRecord | None:
        """The manifest record of draft ``rel``, if any."""
        return self.manifest.get(rel)

    def info(self, spec_path: paths.SpecPath) -> DraftInfo:
        """Status of one draft against its target."""
        draft = self.read_bytes(spec_path.rel)
        current = sha256_of(spec_path.target)
        if current == ABSENT:
            status: DraftStatus = "new"
        elif spec_path.target.read_bytes() == draft:
            status = "unchanged"
        else:
            status = "modified"
        record = self.record(spec_path.rel)
        changed = None if record is None else record.target_sha256 != current
        state = live_state(record.state) if record is not None and record.state in LIVE_STATES else "pending"
        return DraftInfo(spec_path.rel, spec_path.project_rel, status, changed, state)

    def settled(self) -> list[DraftRecord]:
        """The session's drafts no longer under review (applied or rejected), oldest first; a
        path proposed again since is live and not listed here."""
        live = set(self.rels())
        done = [r for r in self.manifest.load().values() if r.state in SETTLED_STATES and r.rel not in live]
        return sorted(done, key=lambda r: (r.settled_at or "", r.rel))

    def settle(self, rel: str, state: DraftState) -> None:
        """Take draft ``rel`` out of review as ``applied`` or ``rejected``: its file goes, its
        record stays with that state."""
        self._remove_file(rel)
        self.manifest.set_state(rel, state, _now())

    def restore(self, spec_path: paths.SpecPath, data: bytes) -> Path:
        """Put an undone apply's draft back for review with exactly ``data`` (its bytes as
        applied), recorded against the target as the undo left it, so it can be accepted again."""
        file = self.draft_file(spec_path.rel)
        self._refuse_links(file)
        write_atomic(file, data, durable=False)
        self._refuse_links(file)
        now = _now()
        self.manifest.put(
            DraftRecord(
                rel=spec_path.rel,
                project_rel=spec_path.project_rel,
                target_sha256=sha256_of(spec_path.target),
                proposed_at=now,
                state="undone",
                settled_at=now,
            )
        )
        return file

    def overlay(self) -> dict[str, str | None]:
        """Every spec draft as the spec core's overlay: project-relative POSIX path -> text (the
        owner documents are not spec files: see :meth:`docs_overlay`)."""
        return {
            p.project_rel: self.read_bytes(p.rel).decode("utf-8", errors="replace")
            for p in self.spec_paths()
            if not paths.is_doc(p.rel)
        }

    def docs_overlay(self) -> dict[str, str]:
        """Every owner-document draft (``docs/<name>.md``): project-relative POSIX path -> text."""
        return {
            p.project_rel: self.read_bytes(p.rel).decode("utf-8", errors="replace")
            for p in self.spec_paths()
            if paths.is_doc(p.rel)
        }

    def remove(self, rel: str) -> None:
        """Delete draft ``rel`` and its manifest record; prune emptied folders."""
        self._remove_file(rel)
        self.manifest.drop(rel)

    def _remove_file(self, rel: str) -> None:
        file = self.draft_file(rel)
        remove_file(file)
        parent = file.parent
        while parent != self.draft_dir and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
