"""The model reads the project's owner documents (docs/overview.md, docs/domain-model.md,
docs/changelog.md) with read_module_spec(path=…): confined to docs/<name>.md inside the project (no
setting, key or log is read by path; no way out by `..` or a symlink), a long one cut at a line end
with a note that says what was left out — never a call that would give the same cut again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcp import Client

from formspec_consult.servers.local.read_tools import MAX_DOC_CHARS
from tests.servers.conftest import call, call_error

pytestmark = pytest.mark.anyio


def write_doc(project: Path, name: str, text: str) -> Path:
    docs = project / "docs"
    docs.mkdir(exist_ok=True)
    (docs / name).write_text(text, encoding="utf-8")
    return docs / name


async def test_an_owner_document_is_read_whole(client: Client, project: Path) -> None:
    text = "# Barbershop\n\nWe cut hair in Malang; walk-ins welcome.\n"
    write_doc(project, "overview.md", text)
    doc = await call(client, "read_module_spec", {"path": "docs/overview.md"})
    assert doc["content"] == text and doc["path"] == "docs/overview.md" and doc["kind"] == "Markdown"
    assert "note" not in doc


async def test_a_long_changelog_keeps_its_newest_entries_and_says_what_was_left_out(
        client: Client, project: Path) -> None:
    entries = [f"## 2026-11-{day:02d} — change {day}\nWhy: reason number {day}.\n" + "Files: x.yaml\n" * 40
               for day in range(1, 29)]
    text = "# Changelog\n\n" + "\n".join(entries)
    assert len(text) > MAX_DOC_CHARS
    write_doc(project, "changelog.md", text)
    doc = await call(client, "read_module_spec", {"path": "docs/changelog.md"})
    assert len(doc["content"]) <= MAX_DOC_CHARS and text.endswith(doc["content"])
    assert text[len(text) - len(doc["content"]) - 1] == "\n"  # cut at a line end
    assert "change 28" in doc["content"] and "change 1\n" not in doc["content"]
    assert f"of {len(text):,} characters (its newest entries)" in doc["note"]
    assert "read_module_spec" not in doc["note"]  # the cut never points at the call that made it


async def test_a_long_overview_keeps_its_beginning_cut_at_a_line_end(client: Client, project: Path) -> None:
    text = "".join(f"Line {i}: the shop does thing number {i}.\n" for i in range(400))
    write_doc(project, "overview.md", text)
    doc = await call(client, "read_module_spec", {"path": "docs/overview.md"})
    assert text.startswith(doc["content"]) and doc["content"].endswith("\n") and len(doc["content"]) <= MAX_DOC_CHARS
    assert f"the first {len(doc['content']):,} of {len(text):,} characters" in doc["note"]
    assert "read_module_spec" not in doc["note"]


@pytest.mark.parametrize("path", ["../formspec-app.yaml", "docs/../formspec-app.yaml", ".formspec/consult/x.md",
                                  "docs/.env", "formspec-app.yaml", "docs/notes.txt", "docs/sub/a.md",
                                  "modules/shop/module.yaml"])
async def test_nothing_but_an_owner_document_is_read_by_path(client: Client, project: Path, path: str) -> None:
    message = await call_error(client, "read_module_spec", {"path": path})
    assert "docs/<name>.md" in message or "owner document" in message, message
    assert "dsn" not in message and "spec: spec" not in message  # no file content leaks into the refusal


async def test_a_symlink_out_of_the_project_is_refused(client: Client, project: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("API_KEY=abc\n", encoding="utf-8")
    (project / "docs").mkdir()
    os.symlink(secret, project / "docs" / "overview.md")
    message = await call_error(client, "read_module_spec", {"path": "docs/overview.md"})
    assert "API_KEY" not in message and "outside" in message, message


async def test_a_symlink_to_a_project_file_is_refused_too(client: Client, project: Path) -> None:
    config = project / "formspec-app.yaml"
    config.write_text(config.read_text() + "dsn: postgres://app:hunter2@db/app\n", encoding="utf-8")
    (project / "docs").mkdir()
    os.symlink(config, project / "docs" / "overview.md")
    message = await call_error(client, "read_module_spec", {"path": "docs/overview.md"})
    assert "hunter2" not in message and "symlink" in message


async def test_a_missing_document_names_the_ones_there_are(client: Client, project: Path) -> None:
    write_doc(project, "overview.md", "# Shop\n")
    message = await call_error(client, "read_module_spec", {"path": "docs/domain-model.md"})
    assert "docs/domain-model.md does not exist yet" in message and "docs/overview.md" in message


async def test_without_a_path_module_kind_and_name_are_still_needed(client: Client) -> None:
    message = await call_error(client, "read_module_spec", {"module": "shop"})
    assert "module, kind and name" in message and "docs/overview.md" in message
