"""Drafts of one session under review: propose, list, diff, reject, apply and undo.

This is the single implementation behind the MCP tools of the local server and the
``diff`` / ``apply`` / ``reject`` / ``undo`` commands, so every caller gets the same gate.
"""

from __future__ import annotations

import builtins
import difflib
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formspec_consult.spec.model import Problem, ValidationResult
from formspec_consult.spec.owner_docs import DOMAIN_MODEL, changelog_findings, fill_generated
from formspec_consult.store import gate
from formspec_consult.store.apply import apply_one, undo_last
from formspec_consult.store.blocks import compose, pick, split_blocks
from formspec_consult.store.drafts import DraftError, DraftStore, Roots
from formspec_consult.store.layout import SessionLayout
from formspec_consult.store.manifest import DraftRecord, settled_state
from formspec_consult.store.paths import SpecPath, is_doc, tool_path
from formspec_consult.store.review_log import ReviewJournal
from formspec_consult.store.review_results import (
    Applied,
    BlockRow,
    ChangeRow,
    ChangeState,
    DraftBlocks,
    DraftDiff,
    DraftRow,
    Edited,
    PartApplied,
    ProjectProblem,
    ProjectValidation,
    Proposed,
    Rejected,
    SettledRow,
    SkillRef,
    TurnChanges,
    Undone,
    Withdrawn,
)
from formspec_consult.store.undo import UndoEntry, UndoStack

if TYPE_CHECKING:
    from formspec_consult.spec.project import Project

_KIND = re.compile(r"^kind:\s*[\"']?([A-Za-z][A-Za-z0-9_]*)", re.MULTILINE)


def draft_kind(content: str) -> str | None:
    """The ``kind:`` of the first document of ``content`` (cheap; tolerates broken YAML)."""
    match = _KIND.search(content)
    return match.group(1) if match else None


#: what one validate_project answer lists (the rest are counted): it has to stay short for the model
PROJECT_PROBLEMS_SHOWN = 20
PROJECT_WARNINGS_SHOWN = 5


class SessionReview:
    """The drafts and undo stack of one session of one project.

    With a ``journal`` (the local server's), every apply, undo and reject is recorded in the
    session's event log and transcript right where it happened.
    """

    def __init__(self, project: Project, session_folder: Path, journal: ReviewJournal | None = None) -> None:
        self.project = project
        self.folder = session_folder
        self.journal = journal
        self.store = DraftStore(
            session_folder, Roots(Path(project.root), Path(project.spec_root), Path(project.overrides_dir))
        )
        self.undo_stack = UndoStack(SessionLayout(session_folder).undo)

    def _check(self, project_rel: str) -> gate.GateResult:
        return gate.check(self.project, self.store.overlay(), project_rel, self.store.docs_overlay())

    def propose(self, path: object, content: object) -> Proposed:
        """Write a draft, validate the tree with the session's drafts overlaid, say what is next.

        The answer is this draft's verdict: ``valid`` and ``validation`` (its ``ok``, the problems
        that block this draft, the warnings in its file) — never another draft's problems, which
        are only counted (``other_problems``), since they do not block this one.
        """
        spec_path = self.store.roots.resolve(path)
        if is_doc(spec_path.rel) and isinstance(content, str):  # diagrams from the specs, a changelog entry appended
            before = spec_path.target.read_text(encoding="utf-8", errors="replace") if spec_path.target.is_file() else None
            content = fill_generated(spec_path.project_rel, content, self.project.documents(self.store.overlay()), before)
        file = self.store.write(spec_path, content)
        if not is_doc(spec_path.rel):
            self._follow_specs()
        result = self._check(spec_path.project_rel)
        if is_doc(spec_path.rel):
            advice: builtins.list[Any] = self._docs_advice(spec_path, str(content))
            kind = None
        else:
            advice = gate.findings(self.project, self.store.overlay(), spec_path.project_rel)
            kind = draft_kind(str(content))
        skills = self.project.skills_for_kind(kind) if kind else []
        status = self.store.info(spec_path).status
        root = Path(self.project.root)
        tree = result.validation
        verdict = ValidationResult(
            ok=result.passes,
            problems=[Problem(**p) for p in result.blocking],
            # this file's warnings, and those about no spec document (an unusable schema file);
            # another spec file's warnings (a sibling draft's, an old one of the project) are its own
            warnings=[Problem(**w) for w in tree.get("warnings", []) if self._warns_here(w, spec_path.project_rel)],
            schema_sources=dict(tree.get("schema_sources", {})),
        )
        diff = None
        if status == "modified":  # the file exists: say what this proposal changes in it
            diff = _capped(unified_diff(spec_path.rel, spec_path.target.read_bytes(),
                                        self.store.read_bytes(spec_path.rel)))
        return Proposed(
            written=True,
            path=spec_path.rel,
            draft_path=file.relative_to(root).as_posix(),
            status=status,
            diff=diff,
            valid=result.passes,
            validation=verdict,
            blocking_problems=len(result.blocking),
            other_problems=sum(1 for p in tree.get("problems", []) if p not in result.blocking),
            relevant_skills=tuple(SkillRef(name=s.name, description=s.description) for s in skills),
            findings=tuple(advice),
            next=_next_step(spec_path.rel, status, result, len(advice)),
        )

    def _follow_specs(self) -> None:
        """Keep a pending domain-model draft's diagrams those of the specs with the pending drafts:
        proposed top-down (documents first), it would otherwise go stale with every later spec draft.
        Only its generated part changes; its text stays the proposer's."""
        if DOMAIN_MODEL not in self.store.rels():
            return
        text = self.store.read_text(DOMAIN_MODEL)
        fresh = fill_generated(DOMAIN_MODEL, text, self.project.documents(self.store.overlay()))
        if fresh != text:
            self.store.write(self.store.roots.resolve(DOMAIN_MODEL), fresh)

    def _docs_advice(self, spec_path: SpecPath, text: str) -> builtins.list[dict[str, Any]]:
        """A changelog draft's advice: dated today, naming the spec files this session changes."""
        before = spec_path.target.read_text(encoding="utf-8", errors="replace") if spec_path.target.is_file() else None
        pending = [r for r in self.store.rels() if not is_doc(r)]
        applied = [r.rel for r in self.store.settled() if r.state == "applied" and not is_doc(r.rel)]
        # An applied file the changelog already names was logged by an earlier entry of this session
        # (a second change request of an Iterate session): the new entry need not name it again.
        changed = pending + [r for r in applied if r not in pending and not (before and r in before)]
        return changelog_findings(spec_path.project_rel, text, before, datetime.now(UTC).date(), changed)

    def _warns_here(self, warning: dict[str, Any], project_rel: str) -> bool:
        """Whether a warning belongs in the answer about the draft at `project_rel`: one about this
        file, or about no YAML file (an unusable schema file, say)."""
        if gate.same_file(warning.get("source"), project_rel, Path(self.project.root)):
            return True
        return not str(warning.get("source") or "").lower().endswith((".yaml", ".yml"))

    def settled(self) -> tuple[SettledRow, ...]:
        """The session's drafts no longer under review: path, file, state (applied|rejected), at."""
        return tuple(
            SettledRow(path=r.rel, file=r.project_rel, state=settled_state(r.state), at=r.settled_at) for r in self.store.settled()
        )

    def list(self) -> tuple[DraftRow, ...]:
        """Every draft under review with status, state (pending, or undone: applied, undone and
        back for review), validity, problem count and whether its target changed."""
        paths = self.store.spec_paths()
        gates = gate.check_many(
            self.project, self.store.overlay(), [p.project_rel for p in paths], self.store.docs_overlay()
        )
        rows = []
        for spec_path in paths:
            info = self.store.info(spec_path)
            result = gates[spec_path.project_rel]
            rows.append(
                DraftRow(
                    path=spec_path.rel,
                    status=info.status,
                    state=info.state,
                    valid=result.passes,
                    problems=len(result.blocking),
                    target_changed=info.target_changed,
                )
            )
        return tuple(rows)

    def diff(self, path: object = None) -> tuple[DraftDiff, ...]:
        """A unified diff (real file -> draft) per draft, or for the one draft at ``path``."""
        paths = [self.store.find(path)] if path else self.store.spec_paths()
        gates = gate.check_many(
            self.project, self.store.overlay(), [p.project_rel for p in paths], self.store.docs_overlay()
        )
        out = []
        for spec_path in paths:
            rel = spec_path.rel
            info = self.store.info(spec_path)
            before = spec_path.target.read_bytes() if info.status != "new" else b""
            result = gates[spec_path.project_rel]
            out.append(
                DraftDiff(
                    path=rel,
                    status=info.status,
                    state=info.state,
                    valid=result.passes,
                    problems=tuple(Problem(**p) for p in result.blocking),
                    target_changed=info.target_changed,
                    diff=unified_diff(rel, before, self.store.read_bytes(rel), new=info.status == "new"),
                )
            )
        return tuple(out)

    def reject(self, path: object, reason: object = None) -> Rejected:
        """Discard a draft; the real file is untouched. The person's ``reason`` (optional) is kept
        in the answer and the log, and told to the model with the rejection."""
        said = check_reason(reason)
        spec_path = self.store.find(path)
        self.store.settle(spec_path.rel, "rejected")
        self._follow_specs()
        result = Rejected(path=spec_path.rel, remaining=tuple(self.store.rels()), reason=said)
        if self.journal is not None:
            self.journal.record(result)
        return result

    def edit(self, path: object, content: object) -> Edited:
        """The person's own version of a draft becomes the draft (logged as their edit, the model
        told on its next request), validated as a proposal is. The same text changes nothing."""
        spec_path = self.store.find(path)
        old = self.store.read_bytes(spec_path.rel)
        new = str(content).encode("utf-8") if isinstance(content, str) else b""
        changed = new != old
        if changed:
            self.store.replace(spec_path, content)  # type: ignore[arg-type]  # checked inside
        result = self._check(spec_path.project_rel)
        diff = unified_diff(spec_path.rel, old, new) if changed else ""
        answer = Edited(path=spec_path.rel, changed=changed, diff=diff, valid=result.passes,
                        problems=tuple(Problem(**p) for p in result.blocking))
        if changed and self.journal is not None:
            self.journal.record(answer)
        return answer

    def blocks(self, path: object) -> DraftBlocks:
        """The draft's change cut into blocks (store.blocks), each with its own diff."""
        spec_path = self.store.find(path)
        before, after = self._sides(spec_path)
        return DraftBlocks(path=spec_path.rel, blocks=tuple(
            BlockRow(id=b.id, change=b.change, diff=b.diff()) for b in split_blocks(before, after)))

    def _sides(self, spec_path: SpecPath) -> tuple[str, str]:
        target = spec_path.target
        before = target.read_bytes().decode("utf-8", errors="replace") if target.is_file() else ""
        return before, self.store.read_text(spec_path.rel)

    def apply_blocks(self, path: object, blocks: object, reason: object = None) -> PartApplied:
        """Apply only the chosen blocks of a draft: they are put together with the project's file
        as a draft of their own, which the gate checks and apply writes (undoable as any apply);
        the other blocks go back to the model as a rejection (with the person's reason). When the
        gate or apply refuses, the draft is left exactly as it was."""
        said = check_reason(reason)
        spec_path = self.store.find(path)
        before, after = self._sides(spec_path)
        every = split_blocks(before, after)
        if not isinstance(blocks, list) or not blocks or not all(isinstance(b, str) for b in blocks):
            raise DraftError("Name the blocks to apply (their ids or numbers, see list_draft_blocks).")
        accepted = pick(every, blocks)
        rejected = [b.id for b in every if b.id not in accepted]
        original = self.store.read_bytes(spec_path.rel)
        if rejected:
            self.store.replace(spec_path, compose(before, after, accepted))
        try:
            applied = apply_one(self, spec_path.rel)
        except Exception:
            if self.store.draft_file(spec_path.rel).is_file():
                self.store.replace(spec_path, original.decode("utf-8"))
            raise
        part = PartApplied(path=spec_path.rel, accepted=tuple(accepted), rejected=tuple(rejected), applied=applied,
                           reason=said)
        if self.journal is not None:
            self.journal.record(applied)
            if rejected:
                self.journal.record(part)
        return part

    def changes(self, turn: object = None) -> TurnChanges:
        """The turn changeset (store.changeset): every file turn `turn` proposed — by default the
        latest turn that proposed any — each with its state now, new or modified, the lines it adds
        and removes, and, while under review, the gate's verdict. DraftError for a turn that
        proposed nothing, naming those that did."""
        from formspec_consult.store.changeset import turn_proposals
        from formspec_consult.store.events import load_records

        if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool)):
            raise DraftError("The turn must be a whole number (see the turns listed without one).")
        layout = SessionLayout(self.folder)
        proposing = [t for t in turn_proposals(load_records(layout.events) if layout.events.is_file() else [])
                     if t.paths]
        numbers = tuple(t.turn for t in proposing)
        session = self.folder.name
        if not proposing:
            if turn is not None:
                raise DraftError(f"Turn {turn} proposed no drafts: no turn of this session has yet.")
            return TurnChanges(session=session, turn=0, user_text="", turns=(), files=())
        chosen = proposing[-1] if turn is None else next((t for t in reversed(proposing) if t.turn == turn), None)
        if chosen is None:
            raise DraftError(f"Turn {turn} proposed no drafts; the turns that did: {', '.join(map(str, numbers))}.")
        later = {path: t.turn for t in proposing[proposing.index(chosen) + 1:] for path in t.paths}
        rows = {row.path: row for row in self.list()}
        records = self.store.manifest.load()
        entries = self.undo_stack.entries()
        files = []
        for path in chosen.paths:
            spec_path = self.store.roots.resolve(path)
            files.append(self._change_row(spec_path, rows.get(spec_path.rel), records.get(spec_path.rel),
                                          entries, later.get(spec_path.rel)))
        return TurnChanges(session=session, turn=chosen.turn, user_text=chosen.user_text, turns=numbers,
                           files=tuple(files))

    def _change_row(self, spec_path: SpecPath, live: DraftRow | None, record: DraftRecord | None,
                    entries: builtins.list[UndoEntry], later: int | None) -> ChangeRow:
        """One file of a turn's changeset, as it stands now."""
        from formspec_consult.store.changeset import line_counts

        rel = spec_path.rel
        if live is not None:
            before, after = self._sides(spec_path)
            diff = unified_diff(rel, before.encode("utf-8"), after.encode("utf-8"), new=live.status == "new")
            added, removed = line_counts(diff)
            return ChangeRow(path=rel, file=spec_path.project_rel, status=live.status, state=live.state,
                             valid=live.valid, problems=live.problems, added=added, removed=removed, diff=diff,
                             later_turn=later)
        if record is not None and record.state == "applied":
            entry = next((e for e in reversed(entries) if e.rel == rel), None)
            wrote = self.undo_stack.applied_bytes(entry, Path(self.project.root)) if entry is not None else None
            replaced = (self.undo_stack.before_bytes(entry) if entry.existed else b"") if entry is not None else None
            if entry is not None and wrote is not None and replaced is not None:
                diff = unified_diff(rel, replaced, wrote, new=not entry.existed)
                added, removed = line_counts(diff)
                return ChangeRow(path=rel, file=spec_path.project_rel, status="modified" if entry.existed else "new",
                                 state="applied", valid=None, problems=0, added=added, removed=removed, diff=diff,
                                 later_turn=later)
            return ChangeRow(path=rel, file=spec_path.project_rel, status="", state="applied", valid=None, problems=0,
                             added=None, removed=None, diff="", later_turn=later)
        state: ChangeState = "rejected" if record is not None and record.state == "rejected" else "withdrawn"
        return ChangeRow(path=rel, file=spec_path.project_rel, status="", state=state, valid=None, problems=0,
                         added=None, removed=None, diff="", later_turn=later)

    def validate_project(self) -> ProjectValidation:
        """The whole project checked in one go: every applied file with the session's pending
        drafts over them (spec files by the spec core, owner documents by their own gate)."""
        overlay = self.store.overlay()
        docs = self.store.docs_overlay()
        tree = self.project.validate(overlay)
        doc_gates = gate.check_docs(self.project, overlay, docs)
        root = Path(self.project.root)
        drafts = [*overlay, *docs]
        files = {d.rel for d in self.project.documents(overlay)} | set(docs)

        def entry(problem: dict[str, Any]) -> ProjectProblem:
            source = str(problem.get("source") or "")
            is_draft = any(gate.same_file(source, rel, root) for rel in drafts)
            return ProjectProblem(
                file=tool_path(source, project_root=root, spec_root=Path(self.project.spec_root)),
                draft=is_draft, line=problem.get("line"), code=str(problem.get("code")),
                message=str(problem.get("message")), hint=str(problem.get("hint") or ""))

        def ordered(found: builtins.list[dict[str, Any]]) -> builtins.list[ProjectProblem]:
            rows = [entry(p) for p in found]
            return sorted(rows, key=lambda r: (not r.draft, r.file, r.line or 0))

        problems = ordered([p.to_dict() for p in tree.problems]
                           + [p for result in doc_gates.values() for p in result.blocking])
        warnings = ordered([w.to_dict() for w in tree.warnings])
        shown_problems, shown_warnings = problems[:PROJECT_PROBLEMS_SHOWN], warnings[:PROJECT_WARNINGS_SHOWN]
        if problems:
            next_step = ("Fix each problem as its hint says: a pending draft (draft: true) by proposing its file "
                         "again, whole; an applied file by proposing it changed. Then validate again.")
        else:
            next_step = "Nothing blocks: the applied files with the pending drafts over them are valid."
        return ProjectValidation(
            ok=not problems, files=len(files), drafts=len(drafts),
            problems=tuple(shown_problems), more_problems=len(problems) - len(shown_problems),
            warnings=tuple(shown_warnings), more_warnings=len(warnings) - len(shown_warnings),
            next=next_step)

    def withdraw(self, path: object) -> Withdrawn:
        """Take back a draft still pending since it was proposed: discarded as though never
        proposed (the proposal stays in the session's log). A draft the person applied and undid
        (back for review) is theirs to accept or reject, so it is refused."""
        spec_path = self.store.find(path)
        if self.store.info(spec_path).state != "pending":
            raise DraftError(
                f"The draft {spec_path.rel} came back for review when the person undid its apply: it is "
                "theirs to accept or reject now (/diff in formspec-consult), not yours to withdraw."
            )
        self.store.remove(spec_path.rel)
        self._follow_specs()
        return Withdrawn(path=spec_path.rel, remaining=tuple(self.store.rels()))

    def apply(self, path: object, *, force: bool = False) -> Applied:
        """Apply one draft through the gate (see :func:`apply_one`)."""
        result = apply_one(self, path, force=force)
        if self.journal is not None:
            self.journal.record(result)
        return result

    def undo(self, *, force: bool = False) -> Undone:
        """Undo the newest apply of this session (see :func:`undo_last`)."""
        result = undo_last(self, force=force)
        if self.journal is not None:
            self.journal.record(result)
        return result


MAX_REASON = 2000  # characters of a rejection's reason


def check_reason(reason: object) -> str | None:
    """A rejection's reason as said (trimmed), None when there is none; DraftError when it is not
    text or too long to tell the model."""
    if reason is None:
        return None
    if not isinstance(reason, str):
        raise DraftError("The reason must be text (or left out).")
    said = reason.strip()
    if len(said) > MAX_REASON:
        raise DraftError(f"The reason is {len(said):,} characters; say it in at most {MAX_REASON:,}.")
    return said or None


DIFF_CAP = 3000  # characters of a proposal's diff against the existing file


def _capped(diff: str) -> str:
    if len(diff) <= DIFF_CAP:
        return diff
    return diff[:DIFF_CAP] + f"\n… (diff cut at {DIFF_CAP:,} of {len(diff):,} characters)\n"


def _next_step(rel: str, status: str, result: gate.GateResult, findings: int) -> str:
    """What the proposer does next. The person reviews and applies drafts (/diff in
    formspec-consult), so a passing draft is handed to them, never applied by the proposer."""
    if status == "unchanged":
        return (
            f"The draft of {rel} is identical to the current file, so there is nothing to apply. Propose "
            f"the change you meant (a new proposal of the same path replaces this draft), or withdraw it "
            f"with withdraw_draft('{rel}')."
        )
    if not result.passes:
        return (
            f"The draft has {len(result.blocking)} problem(s). Fix them and call propose_spec_file again "
            "with the full corrected content; do not ask the person to review it yet."
        )
    text = (
        "The draft passes validation. Tell the person it is ready for their review: they see it with "
        "/diff in formspec-consult and accept (apply) or reject it themselves."
    )
    if findings:
        text += (
            f" The verifiers raised {findings} finding(s) (see findings): address each one before "
            "asking for review — fix the draft, or ask the person when it is a business question."
        )
    return text


def unified_diff(rel: str, before: bytes, after: bytes, *, new: bool = False) -> str:
    """A plain unified diff of two versions of a spec file, marking a missing final newline."""
    old_lines = _lines(before)
    new_lines = _lines(after)
    lines = difflib.unified_diff(old_lines, new_lines, "/dev/null" if new else f"a/{rel}", f"b/{rel}")
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)
