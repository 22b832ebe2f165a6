"""The validation gate: does a draft make the project worse?

A draft is validated against the tree with *every* pending draft of its session overlaid (the
state the person gets by applying the set). It blocks when the result has a problem in the
draft's own file, or a problem in a real (non-draft) file that the tree does not already have —
so a project with an old, unrelated problem, or a broken sibling draft, does not block a good one.

An owner document (``docs/<name>.md``, Markdown) is no spec file: its gate is
:func:`formspec_consult.spec.owner_docs.check_doc` — the domain model's generated part must be the
one the specs (with the pending drafts) make, the changelog only grows and its new entry is dated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from formspec_consult.spec.owner_docs import check_doc
from formspec_consult.store.paths import is_doc

if TYPE_CHECKING:
    from formspec_consult.spec.model import Document, ValidationResult


class Validating(Protocol):
    """The part of ``formspec_consult.spec.Project`` the gate needs."""

    root: Path

    def validate(self, overlay: dict[str, str | None] | None = None) -> ValidationResult: ...

    def documents(self, overlay: dict[str, str | None] | None = None) -> list[Document]: ...


@dataclass
class GateResult:
    """A validation result plus the problems that block applying one draft."""

    validation: dict[str, Any]
    blocking: list[dict[str, Any]] = field(default_factory=list)

    @property
    def passes(self) -> bool:
        """True when nothing blocks the draft."""
        return not self.blocking


def same_file(source: object, project_rel: str, root: Path) -> bool:
    """Whether a problem's ``source`` names the file at ``project_rel`` (absolute or relative)."""
    if not isinstance(source, str) or not source:
        return False
    text = source
    candidate = Path(text)
    if candidate.is_absolute():
        try:
            text = candidate.relative_to(root).as_posix()
        except ValueError:
            try:
                text = candidate.resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                return False
    text = text.removeprefix("./")
    # A source relative to the spec root ("modules/x/a.yaml") also names "spec/modules/x/a.yaml".
    return text == project_rel or ("/" in text and project_rel.endswith("/" + text))


def _key(problem: dict[str, Any]) -> tuple[str, str, str]:
    return (str(problem.get("code")), str(problem.get("source")), str(problem.get("message")))


def findings(project: Validating, overlay: dict[str, str | None], project_rel: str) -> list[dict[str, Any]]:
    """The verifiers' advice about the draft at ``project_rel`` (run after validation; never blocks)."""
    from formspec_consult.spec.verify import verify_overlay

    return verify_overlay(project, overlay, [project_rel])


def check(
    project: Validating, overlay: dict[str, str | None], project_rel: str, docs: Mapping[str, str] | None = None
) -> GateResult:
    """Validate with ``overlay`` and work out what blocks the draft at ``project_rel`` (an owner
    document's text is in ``docs``)."""
    return check_many(project, overlay, [project_rel], docs)[project_rel]


def check_docs(project: Validating, overlay: dict[str, str | None], docs: Mapping[str, str]) -> dict[str, GateResult]:
    """The gate of owner-document drafts (``docs``: project-relative path -> draft text)."""
    if not docs:
        return {}
    documents = project.documents(overlay)
    today = datetime.now(UTC).date()
    results = {}
    for project_rel, text in docs.items():
        current = Path(project.root) / project_rel
        before = current.read_text(encoding="utf-8", errors="replace") if current.is_file() else None
        problems = [p.to_dict() for p in check_doc(project_rel, text, before, documents, today)]
        results[project_rel] = GateResult({"ok": not problems, "problems": problems, "warnings": []}, problems)
    return results


def check_many(
    project: Validating,
    overlay: dict[str, str | None],
    project_rels: list[str],
    docs: Mapping[str, str] | None = None,
) -> dict[str, GateResult]:
    """The gate for several drafts of one overlay, with one validation (plus at most one baseline);
    owner documents (``docs/<name>.md``, their texts in ``docs``) by :func:`check_docs`."""
    wanted_docs = [rel for rel in project_rels if is_doc(rel)]
    results = check_docs(project, overlay, {rel: (docs or {}).get(rel, "") for rel in wanted_docs})
    project_rels = [rel for rel in project_rels if not is_doc(rel)]
    if not project_rels:
        return results
    validation = project.validate(overlay).to_dict()
    problems = list(validation.get("problems", []))
    baseline: set[tuple[str, str, str]] | None = None
    for project_rel in project_rels:
        own = [p for p in problems if same_file(p.get("source"), project_rel, project.root)]
        drafts = [rel for rel in overlay if rel != project_rel]
        # A problem in a sibling draft belongs to that draft: it must not block this one.
        others = [
            p
            for p in problems
            if p not in own and not any(same_file(p.get("source"), rel, project.root) for rel in drafts)
        ]
        if others:
            if baseline is None:
                # Only then pay for a second validation of the real tree, to tell new problems from old.
                baseline = {_key(p) for p in project.validate(None).to_dict().get("problems", [])}
            others = [p for p in others if _key(p) not in baseline]
        results[project_rel] = GateResult(validation, own + others)
    return results
