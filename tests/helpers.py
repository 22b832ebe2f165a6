"""What several test areas build on: a copy of the bundled example, spec texts to draft."""

from __future__ import annotations

import shutil
from pathlib import Path

from formspec_consult.resources import package_path


def copy_example(parent: Path, name: str = "barbershop") -> Path:
    """A writable copy of a bundled example project under `parent` (never the package's own files).

    A `.formspec/` folder (sessions made by running the product inside the package) is left behind.
    """
    target = parent / name
    shutil.copytree(package_path("examples", name), target, ignore=shutil.ignore_patterns(".formspec"))
    return target


def lifecycle_entity(states: list[str], transitions: list[tuple[str, str, str]], fields: str = "",
                     name: str = "order", characteristic: str = "transaction", module: str = "shop") -> str:
    """An Entity whose `status` runs through `states` (the first is initial) by (from, to, action) transitions.

    `fields` is extra YAML, already indented as items of `spec.fields`.
    """
    states_yaml = "\n".join(f"      - {{name: {s}, label: {s}}}" for s in states)
    trans_yaml = "\n".join(f"      - {{from: {a}, to: {b}, via: {v}}}" for a, b, v in transitions)
    actions = "\n".join(f"    - {{name: {v}}}" for v in sorted({v for _, _, v in transitions}))
    return f"""apiVersion: formspec.dev/v1
kind: Entity
metadata: {{name: {name}, module: {module}}}
spec:
  version: v1
  characteristic: {characteristic}
  fields:
    - {{name: transaction_date, type: date, required: true}}
    - {{name: status, type: enum, enum_values: [{", ".join(states)}]}}
{fields}  state_machine:
    field: status
    initial: {states[0]}
    states:
{states_yaml}
    transitions:
{trans_yaml}
  actions:
{actions}
"""
