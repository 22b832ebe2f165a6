"""The validation pipeline: parse → envelope → schema → local structural → tree structural.

Per-document results (schema + local checks) are memoised on the cached parsed file, so a
warm run only redoes what changed plus the cheap cross-document pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from formspec_consult.spec.checks.actions import check_actions
from formspec_consult.spec.checks.approvals import check_approvals_across
from formspec_consult.spec.checks.bindings import check_bindings
from formspec_consult.spec.checks.context import Findings, Index
from formspec_consult.spec.checks.delivery import check_delivery
from formspec_consult.spec.checks.entity import check_entity
from formspec_consult.spec.checks.entity_data import check_entity_data, check_scope_sources
from formspec_consult.spec.checks.events import check_entity_engine_rules
from formspec_consult.spec.checks.formulas import check_formulas
from formspec_consult.spec.checks.grants import check_grant_scope_sources, check_seed_grants
from formspec_consult.spec.checks.identity import apply_overrides, check_duplicates
from formspec_consult.spec.checks.modules import check_module_links
from formspec_consult.spec.checks.natural_keys import check_natural_key_formats
from formspec_consult.spec.checks.references import Reference, check_references, collect_references
from formspec_consult.spec.checks.renderers import check_renderers
from formspec_consult.spec.checks.scripts import check_scripts
from formspec_consult.spec.checks.storage_rules import check_seed, check_storage_rules
from formspec_consult.spec.checks.subscriptions import check_event_consumers
from formspec_consult.spec.checks.table_refs import check_table_refs
from formspec_consult.spec.checks.transitions import check_automatic_transitions, check_snapshots
from formspec_consult.spec.checks.unknown_keys import check_unknown_keys
from formspec_consult.spec.checks.view_fields import FieldRef, check_view_fields, collect_view_fields
from formspec_consult.spec.checks.views import check_view_shape, check_views_across
from formspec_consult.spec.checks.workflows import check_workflows
from formspec_consult.spec.kinds import effective_kind
from formspec_consult.spec.model import Document, Problem, ProjectLike, ValidationResult
from formspec_consult.spec.parse import ParsedFile
from formspec_consult.spec.schema_check import schema_problems
from formspec_consult.spec.schema_registry import CompiledSchema, validator_for, version_key


@dataclass
class TreeState:
    """What one validation run looks at: parsed files in order, plus project-level findings."""

    files: list[tuple[str, ParsedFile]]
    extra_modules: set[str] = field(default_factory=set)
    project_warnings: list[Problem] = field(default_factory=list)
    #: project-level errors (e.g. a `spec:` root that does not exist)
    project_problems: list[Problem] = field(default_factory=list)
    #: identities to drop from the tree (a `validate_text` input replacing them)
    replaced: set[tuple[str, str, str]] = field(default_factory=set)
    #: files under vendors/: their problems are reported as warnings (the user cannot edit them)
    vendor_sources: set[str] = field(default_factory=set)


def run(project: ProjectLike, state: TreeState, only_source: str | None = None, _again: bool = True) -> ValidationResult:
    """Validate the whole tree; with `only_source`, report only findings about that file.

    Every document of a kind (and spec version) is checked against the same schema: if an
    official schema fails part-way and is replaced by ours, the run starts over once so that
    documents checked before the failure are checked again.
    """
    problems: list[Problem] = list(state.project_problems)
    warnings: list[Problem] = list(state.project_warnings)
    validators: dict[tuple[str, str | None], CompiledSchema] = {}
    generations: dict[int, int] = {}
    docs: list[Document] = []
    refs: dict[int, list[Reference]] = {}
    view_fields: dict[int, list[FieldRef]] = {}
    for _rel, parsed in state.files:
        problems += parsed.problems
        warnings += parsed.warnings
        for i, doc in enumerate(parsed.usable):
            if state.replaced and doc.rel != only_source and doc.identity in state.replaced:
                continue
            vkey = (doc.kind, version_key(doc.api_version))
            validator = validators.get(vkey)
            if validator is None:
                validator = validators[vkey] = validator_for(doc.kind, project, doc.api_version)
                generations[id(validator)] = validator.generation
            key = (i, id(validator), validator.generation)
            cached = parsed.memo.get(key)
            if cached is None:
                cached = parsed.memo[key] = (_local_findings(doc, validator), collect_references(doc),
                                             collect_view_fields(doc))
            problems += cached[0].problems
            warnings += cached[0].warnings
            docs.append(doc)
            refs[id(doc)] = cached[1]
            view_fields[id(doc)] = cached[2]
    if _again and any(v.generation != generations[id(v)] for v in validators.values()):
        return run(project, state, only_source, _again=False)
    warnings += _schema_source_notes(validators.values(), project.root)
    tree = Findings()
    effective = apply_overrides(docs, tree)
    index = Index.build(effective, state.extra_modules)
    check_duplicates(effective, tree)
    for doc in effective:
        check_references(doc, refs.get(id(doc), []), index, tree)
        check_module_links(doc, index, tree)
        check_view_fields(doc, view_fields.get(id(doc), []), index, tree)
    check_views_across(effective, index, tree)
    check_table_refs(effective, index, tree)
    check_delivery(effective, tree)
    check_event_consumers(effective, tree)
    check_scope_sources(effective, tree)
    check_grant_scope_sources(effective, tree)
    check_renderers(effective, tree)
    check_bindings(effective, index, tree)
    check_scripts(effective, project.root, tree)
    check_snapshots(effective, index, tree)
    check_workflows(effective, index, tree)
    check_approvals_across(effective, tree)
    problems += tree.problems
    warnings += tree.warnings
    if state.vendor_sources:
        problems, demoted = _split_vendor(problems, state.vendor_sources)
        warnings += demoted
    if only_source is not None:
        problems = [p for p in problems if p.source == only_source]
        warnings = [w for w in warnings if w.source == only_source]
    order = lambda p: (p.source, p.line or 0)  # noqa: E731 - tiny sort key
    result = ValidationResult.from_findings(sorted(problems, key=order), sorted(warnings, key=order))
    result.schema_sources = _sources(validators.values())
    return result


def _sources(used: Iterable[CompiledSchema]) -> dict[str, str]:
    """Kind → the source of the schema its documents were checked against."""
    out: dict[str, set[str]] = {}
    for v in used:
        out.setdefault(v.kind, set()).add(v.source)
    return {kind: " | ".join(sorted(found)) for kind, found in sorted(out.items())}


def _schema_source_notes(used: Iterable[CompiledSchema], root: Path) -> list[Problem]:
    """One warning per unusable official schema file, naming the reason and what stood in."""
    grouped: dict[tuple[Path, str], dict[str, set[str]]] = {}
    for v in used:
        for file, reason in v.notes:
            grouped.setdefault((file, reason), {}).setdefault(v.source, set()).add(v.kind)
    out = []
    for (file, reason), by_source in sorted(grouped.items(), key=lambda item: str(item[0][0])):
        rel = _relative(file, root)
        instead = "; ".join(f"using the {source} for {', '.join(sorted(kinds))}"
                            for source, kinds in sorted(by_source.items()))
        out.append(Problem("FS-SCHEMA-SOURCE", rel, None, "schema", f"official schema {rel} is unusable: it {reason}; "
                           f"{instead}", "Re-run `formspec schema fetch` (or `formspec init`) to restore the "
                           "official schemas, or delete the broken file."))
    return out


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _split_vendor(problems: list[Problem], vendor: set[str]) -> tuple[list[Problem], list[Problem]]:
    """Problems inside read-only vendor files become warnings: they must not block the user's work."""
    kept, demoted = [], []
    for p in problems:
        if p.source in vendor:
            demoted.append(replace(p, message=f"[read-only vendor module] {p.message}",
                                   hint=p.hint + " (Reinstall or update the module; fix presentation via "
                                   "overrides/ and data via an Entity Extension.)"))
        else:
            kept.append(p)
    return kept, demoted


def _local_findings(doc: Document, validator: CompiledSchema) -> Findings:
    """Schema problems plus single-document structural rules (cached per parsed document)."""
    found = Findings()
    schema_errors, shorthand = schema_problems(doc, validator)
    found.problems += schema_errors
    found.warnings += shorthand
    if effective_kind(doc.kind) == "Entity":
        check_entity(doc, found)
        check_entity_engine_rules(doc, found)
        check_entity_data(doc, found)
        check_formulas(doc, found)
        check_natural_key_formats(doc, found)
        check_automatic_transitions(doc, found)
        check_storage_rules(doc, found)
    elif effective_kind(doc.kind) == "Seed":
        check_seed(doc, found)
        check_seed_grants(doc, found)
    check_actions(doc, found)
    check_view_shape(doc, found)
    check_unknown_keys(doc, found)
    return found


_MODULELESS = frozenset({"App", "Workspace", "Module"})


def adopt_modules(own: ParsedFile, others: list[ParsedFile]) -> ParsedFile:
    """A copy of `own` whose module-less documents take the module of their only namesake."""
    by_kind_name: dict[tuple[str, str], list[Document]] = {}
    for parsed in others:
        for doc in parsed.usable:
            by_kind_name.setdefault(doc.identity[1:], []).append(doc)
    changed = False
    usable = []
    for doc in own.usable:
        namesakes = by_kind_name.get(doc.identity[1:], [])
        if doc.module is None and doc.kind not in _MODULELESS and len(namesakes) == 1:
            doc = replace(doc, module=namesakes[0].module)
            changed = True
        usable.append(doc)
    if not changed:
        return own
    return ParsedFile(own.docs, own.problems, own.warnings, usable)


def replacement_notes(own: ParsedFile, others: list[ParsedFile]) -> list[Problem]:
    """Warnings saying which existing document each input document was validated in place of."""
    existing = {d.identity: d for parsed in others for d in parsed.usable}
    return [Problem("FS-IDENTITY-REPLACES", doc.rel, doc.line, "structural",
                    f"same identity as {existing[doc.identity].rel}; validated as its replacement",
                    f"Write it to {existing[doc.identity].rel} to change that document.")
            for doc in own.usable if doc.identity in existing]
