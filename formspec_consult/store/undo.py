"""The undo stack of one session: ``<session>/undo/NNNN/{meta.json,before,after}``.

Every apply pushes one numbered entry holding the exact previous bytes of the target (or the
fact that it did not exist) and the exact bytes apply wrote (the draft, so an undo can put it
back for review). ``restore`` pops the newest entry,
refusing when the file changed since that apply unless forced. Applying the same path twice
stacks two entries, undone newest first. Entries pushed under one ``group`` (a module install:
its files, the lock and the App manifest) are one step: ``restore_group`` takes them all back.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from formspec_consult.store.atomic import ABSENT, remove_file, sha256_bytes, sha256_of, write_atomic
from formspec_consult.store.layout import UNDO_META


class UndoError(ValueError):
    """Nothing to undo, or the file changed since it was applied."""


@dataclass(frozen=True)
class UndoEntry:
    """One apply that can be undone."""

    seq: int
    rel: str
    project_rel: str
    existed: bool
    before_sha256: str
    after_sha256: str
    applied_at: str
    # Folders the apply had to create (project-relative, deepest first): undo removes them if empty.
    created_dirs: tuple[str, ...] = ()
    # Entries written as one step share a group ("install <module>"); "" for a draft's apply.
    group: str = ""


class UndoStack:
    """Numbered undo entries in ``folder`` (the session's ``undo/``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def entries(self) -> list[UndoEntry]:
        """Every entry, oldest first."""
        if not self.folder.is_dir():
            return []
        found = []
        for entry in self.folder.iterdir():
            if entry.is_dir() and entry.name.isdigit():
                try:
                    meta = json.loads((entry / UNDO_META).read_text(encoding="utf-8"))
                    meta["created_dirs"] = tuple(meta.get("created_dirs", ()))
                    found.append(UndoEntry(**meta))
                except (OSError, ValueError, TypeError):
                    continue  # a torn entry (crash before meta.json was written) is not undoable
        return sorted(found, key=lambda e: e.seq)

    def entry_dir(self, entry: UndoEntry) -> Path:
        """The folder holding ``entry``."""
        return self.folder / f"{entry.seq:04d}"

    def push(
        self,
        rel: str,
        project_rel: str,
        before: bytes | None,
        after: bytes,
        created_dirs: tuple[str, ...] = (),
        *,
        group: str = "",
    ) -> UndoEntry:
        """Record the state of a target just before apply overwrites it with ``after``."""
        entries = self.entries()
        seq = (entries[-1].seq if entries else 0) + 1
        self.folder.mkdir(parents=True, exist_ok=True)
        while True:  # claim a free number: skips torn leftovers and a concurrent apply's entry
            try:
                (self.folder / f"{seq:04d}").mkdir()
                break
            except FileExistsError:
                seq += 1
        entry = UndoEntry(
            seq=seq,
            rel=rel,
            project_rel=project_rel,
            existed=before is not None,
            before_sha256=sha256_bytes(before),
            after_sha256=sha256_bytes(after),
            applied_at=datetime.now(UTC).isoformat(timespec="seconds"),
            created_dirs=tuple(created_dirs),
            group=group,
        )
        folder = self.entry_dir(entry)
        if before is not None:
            write_atomic(folder / "before", before)
        write_atomic(folder / "after", after)
        # meta.json last: an entry without it never counts, so a crash leaves no false undo step.
        write_atomic(folder / UNDO_META, json.dumps(asdict(entry), indent=2).encode("utf-8"))
        return entry

    def drop(self, entry: UndoEntry) -> None:
        """Forget ``entry`` (after it was restored, or when apply failed to write)."""
        shutil.rmtree(self.entry_dir(entry), ignore_errors=True)

    def _verified_before(self, entry: UndoEntry) -> bytes:
        """The backed-up bytes of ``entry``, only when they match the sha256 recorded at apply."""
        backup = self.entry_dir(entry) / "before"
        where = f"{self.folder.name}/{self.entry_dir(entry).name}/before"
        if any(p.is_symlink() for p in (self.folder, self.entry_dir(entry), backup)):
            raise UndoError(f"The backup {where} is a symbolic link; refusing to restore {entry.rel} from it.")
        try:
            data = backup.read_bytes()
        except OSError as exc:
            raise UndoError(f"The backup {where} of {entry.rel} cannot be read ({exc.strerror or exc}).") from exc
        if sha256_bytes(data) != entry.before_sha256:
            raise UndoError(
                f"The backup {where} of {entry.rel} does not match the sha256 recorded when it was "
                "applied (it was changed or damaged), so undo cannot restore the exact earlier bytes. "
                "Nothing was changed; restore the file from version control instead."
            )
        return data

    def before_bytes(self, entry: UndoEntry) -> bytes | None:
        """The bytes ``entry``'s apply replaced (verified against its sha256), None when the file
        did not exist or no good backup is left."""
        if not entry.existed:
            return None
        try:
            return self._verified_before(entry)
        except UndoError:
            return None

    def applied_bytes(self, entry: UndoEntry, project_root: Path) -> bytes | None:
        """The exact bytes ``entry``'s apply wrote (the draft), or None when no copy that matches
        the recorded sha256 is left: the entry's ``after`` (entries older than it lack one), else
        the target itself while it still holds them."""
        candidates = (self.entry_dir(entry) / "after", project_root.joinpath(*entry.project_rel.split("/")))
        for file in candidates:
            try:
                if file.is_symlink():
                    continue
                data = file.read_bytes()
            except OSError:
                continue
            if sha256_bytes(data) == entry.after_sha256:
                return data
        return None

    def restore(
        self,
        project_root: Path,
        *,
        force: bool = False,
        before_drop: Callable[[UndoEntry, bytes | None], None] | None = None,
    ) -> tuple[UndoEntry, str]:
        """Undo the newest apply. Returns the entry and what happened (``restored`` or ``deleted``).

        ``before_drop(entry, applied)`` runs once the file is restored and before the entry is
        forgotten, with the bytes the apply wrote (see :meth:`applied_bytes`): the review puts the
        draft back for review there, so a crash between the two leaves the step undoable again."""
        entries = self.entries()
        if not entries:
            raise UndoError("There is nothing to undo in this session.")
        entry = entries[-1]
        target = project_root.joinpath(*entry.project_rel.split("/"))
        applied = self.applied_bytes(entry, project_root)
        current = sha256_of(target)
        if current == entry.before_sha256:
            # The apply never reached the file (or it was reverted by hand): nothing to write.
            if before_drop is not None:
                before_drop(entry, applied)
            self.drop(entry)
            return entry, "already restored"
        if current != entry.after_sha256 and not force:
            state = "was deleted" if current == ABSENT else "was edited"
            raise UndoError(
                f"{entry.rel} {state} after it was applied, so undo would lose those changes. "
                "Review the file, then call undo_apply with force: true to restore the earlier "
                "version anyway."
            )
        if entry.existed:
            write_atomic(target, self._verified_before(entry))
            outcome = "restored"
        else:
            remove_file(target)
            _remove_created_dirs(project_root, entry)
            outcome = "deleted"
        if before_drop is not None:
            before_drop(entry, applied)
        self.drop(entry)
        return entry, outcome

    def newest_group(self) -> list[UndoEntry]:
        """The entries of the newest step when it is a group (newest first); [] for a plain apply."""
        entries = self.entries()
        if not entries or not entries[-1].group:
            return []
        group = entries[-1].group
        out = []
        for entry in reversed(entries):
            if entry.group != group:
                break
            out.append(entry)
        return out

    def restore_group(self, project_root: Path, *, force: bool = False) -> list[UndoEntry]:
        """Undo the newest step when it is a group, every file of it, newest first; UndoError (and
        nothing changed) when one of them changed since unless ``force``. Returns its entries."""
        group = self.newest_group()
        if not group:
            raise UndoError("The newest step is not a group of writes.")
        for entry in group:
            target = project_root.joinpath(*entry.project_rel.split("/"))
            current = sha256_of(target)
            if current not in (entry.after_sha256, entry.before_sha256) and not force:
                state = "was deleted" if current == ABSENT else "was edited"
                raise UndoError(
                    f"{entry.rel} {state} after {entry.group}, so undo would lose those changes. Review the "
                    "file, then call undo_apply with force: true to restore the earlier version anyway."
                )
            if entry.existed:
                self._verified_before(entry)  # every backup is checked before anything is written
        for entry in group:
            target = project_root.joinpath(*entry.project_rel.split("/"))
            if sha256_of(target) != entry.before_sha256:
                if entry.existed:
                    write_atomic(target, self._verified_before(entry))
                else:
                    remove_file(target)
            _remove_created_dirs(project_root, entry)
            self.drop(entry)
        return group


def _remove_created_dirs(project_root: Path, entry: UndoEntry) -> None:
    """The folders the apply created for the file, each removed when it is left empty."""
    for rel_dir in entry.created_dirs:
        folder = project_root.joinpath(*rel_dir.split("/"))
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
