"""Generate a large, valid FormSpec project for benchmarks (default: 1,000 spec files)."""

from __future__ import annotations

from pathlib import Path

ENTITIES_PER_MODULE = 10
FORMS_PER_MODULE = 9  # + module.yaml + 10 entities = 20 files per module


def _entity(module: str, index: int, dep: str | None) -> str:
    name = f"thing_{index}"
    other = f"thing_{index - 1}" if index else None
    lines = [
        "apiVersion: formspec.dev/v1",
        "kind: Entity",
        f"metadata: {{name: {name}, description: generated entity {index} of {module}}}",
        "spec:",
        "  version: v1",
        f"  plural: {name}s",
        f"  characteristic: {'transaction' if index % 3 == 0 else 'master'}",
        "  display_field: title",
        "  fields:",
        "    - {name: title, type: string, required: true}",
        "    - {name: code, type: string, unique: true, natural_key: true,"
        " natural_key_rule: {strategy: sequence, format: \"T-{year}-{seq:05d}\", reset: yearly}}",
        "    - {name: transaction_date, type: date}",
        "    - {name: amount, type: money, precision: 12, scale: 2}",
        "    - {name: quantity, type: integer}",
        "    - {name: notes, type: text}",
        "    - {name: active, type: boolean, default: true}",
        "    - {name: status, type: enum, enum_values: [draft, open, closed]}",
    ]
    if other:
        lines.append(f"    - {{name: parent, type: relation, relation: {{type: belongs_to, resource: {other}}}}}")
    if dep:
        lines.append(f"    - {{name: upstream, type: relation, relation: {{type: belongs_to, resource: {dep}.thing_1}}}}")
    lines += [
        "    - {name: owner_user, type: relation, relation: {type: belongs_to, resource: formspec.core.user}}",
        "  state_machine:",
        "    field: status",
        "    initial: draft",
        "    states: [{name: draft, label: Draft}, {name: open, label: Open}, {name: closed, label: Closed}]",
        "    transitions:",
        "      - {from: draft, to: open, via: open_it}",
        "      - {from: [draft, open], to: closed, via: close_it}",
        "  actions: [{name: close_it, emits: closed}]",  # a via is an action of its own: only one that adds (emits)
        "  events: [{name: closed, type: async}]",
    ]
    return "\n".join(lines) + "\n"


def _form(module: str, index: int) -> str:
    return (
        "apiVersion: formspec.dev/v1\nkind: Form\n"
        f"metadata: {{name: thing_{index}-create, module: {module}}}\n"
        f"spec:\n  entity: thing_{index}\n  mode: create\n"
        "  sections:\n    - title: Main\n      columns: 2\n      fields: [{field: title}, {field: code}, {field: amount}, {field: quantity}]\n"
    )


def generate(root: Path, files: int = 1000) -> list[str]:
    """Write a project of about `files` spec files under `root`; return the modules' names."""
    per_module = 1 + ENTITIES_PER_MODULE + FORMS_PER_MODULE
    modules = [f"mod{i:03d}" for i in range(max(1, files // per_module))]
    (root / "formspec-app.yaml").write_text("spec: spec\n")
    app = root / "spec" / "apps" / "main.yaml"
    app.parent.mkdir(parents=True)
    app.write_text("apiVersion: formspec.dev/v1\nkind: App\nmetadata: {name: main}\nspec:\n"
                   "  version: '1.0.0'\n  vendor: bench\n  root_url: /\n  modules:\n"
                   + "".join(f"    - {m}\n" for m in modules))
    for i, module in enumerate(modules):
        base = root / "spec" / "modules" / module
        dep = modules[i - 1] if i else None
        (base / "forms").mkdir(parents=True)
        depends = f"  depends:\n    - module: {dep}\n" if dep else ""
        (base / "module.yaml").write_text(
            f"apiVersion: formspec.dev/v1\nkind: Module\nmetadata: {{name: {module}}}\n"
            f"spec:\n  version: '1.0.0'\n{depends}")
        for j in range(ENTITIES_PER_MODULE):
            folder = base / "master" / f"thing_{j}"
            folder.mkdir(parents=True)
            (folder / "entity.yaml").write_text(_entity(module, j, dep))
        for j in range(FORMS_PER_MODULE):
            (base / "forms" / f"thing_{j}.yaml").write_text(_form(module, j))
    return modules
