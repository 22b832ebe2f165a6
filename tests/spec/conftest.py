"""Fixtures for the spec core tests: a fresh copy of the barbershop project per test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from formspec_consult.resources import package_path
from formspec_consult.spec import Project, open_project
from tests.helpers import copy_example

BARBERSHOP = package_path("examples", "barbershop")

ENTITY = """\
apiVersion: formspec.dev/v1
kind: Entity
metadata: {{name: {name}, module: {module}}}
spec:
  version: v1
{body}"""


@pytest.fixture
def shop_dir(tmp_path: Path) -> Path:
    """A writable copy of the bundled barbershop fixture project."""
    return copy_example(tmp_path)


@pytest.fixture
def shop(shop_dir: Path) -> Project:
    return open_project(shop_dir)


def entity(name: str, body: str, module: str = "shop") -> str:
    """An Entity document with the given (already indented by two spaces) spec body."""
    return ENTITY.format(name=name, module=module, body=body)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes (to prove nothing on disk changed)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def write(shop_dir: Path) -> Callable[[str, str], Path]:
    """Write a file (relative to the project root) and return its path."""

    def _write(rel: str, text: str) -> Path:
        path = shop_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return _write
