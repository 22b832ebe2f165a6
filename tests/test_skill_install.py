"""`formspec-consult skill install`: the consultation as a Claude Code / agents skill, assembled from
the prompts and the bundled skills, written idempotently, checked for staleness."""

from __future__ import annotations

import hashlib
from pathlib import Path

import anyio
import pytest
import yaml
from click.testing import CliRunner, Result
from mcp import Client

from formspec_consult.cli import cli
from formspec_consult.servers.local import create_local_server
from formspec_consult.spec.skills import all_skills
from tests.helpers import copy_example

PARTIALS = Path(__file__).resolve().parents[1] / "prompts" / "partials"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_example(tmp_path)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def run(project: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["skill", "install", "--project", str(project), *args])


def snapshot(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def frontmatter(text: str) -> dict[str, str]:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])  # type: ignore[no-any-return]


def test_install_writes_a_claude_code_skill_with_its_reference_files(project: Path, home: Path) -> None:
    result = run(project)
    assert result.exit_code == 0, result.output
    folder = project / ".claude" / "skills" / "formspec-consult"
    assert "Installed" in result.output and str(folder) in result.output
    entry = (folder / "SKILL.md").read_text()
    meta = frontmatter(entry)
    assert meta["name"] == "formspec-consult"
    assert 100 < len(meta["description"]) <= 1024 and "Use when" in meta["description"]
    assert "propose_spec_file" in entry and "mcp__formspec__" in entry and "Discovery" in entry
    for skill in all_skills(None):
        copy = folder / "skills" / f"{skill.name}.md"
        assert copy.read_text() == Path(skill.path).read_text(), skill.name
        assert f"(skills/{skill.name}.md)" in entry, "SKILL.md links every reference file"
    first_rule = next(line for line in (PARTIALS / "drafting-rules.md").read_text().splitlines() if line.strip())
    assert first_rule in (folder / "drafting-rules.md").read_text()
    first_check = next(
        line for line in (PARTIALS / "lifecycle-checklist.md").read_text().splitlines() if line.strip()
    )
    assert first_check in (folder / "lifecycle-checklist.md").read_text()
    assert not (home / ".claude").exists(), "a project install leaves the home folder alone"


def test_the_tool_guide_lists_exactly_the_tools_the_local_server_serves(project: Path) -> None:
    assert run(project).exit_code == 0
    entry = (project / ".claude/skills/formspec-consult/SKILL.md").read_text()

    async def served() -> set[str]:
        async with Client(create_local_server(project, "20261201-120000-skil")) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    listed = {line.split("`")[1] for line in entry.splitlines() if line.startswith("- `")}
    assert listed == anyio.run(served)


def test_installing_again_changes_nothing_and_says_it_is_current(project: Path) -> None:
    assert run(project).exit_code == 0
    folder = project / ".claude/skills/formspec-consult"
    before = snapshot(folder)
    again = run(project)
    assert again.exit_code == 0 and "Already current" in again.output
    assert snapshot(folder) == before


def test_check_passes_on_a_current_install_and_names_what_is_stale_and_the_fix(project: Path) -> None:
    assert run(project, "--check").exit_code == 1, "nothing installed yet is stale"
    assert run(project).exit_code == 0
    current = run(project, "--check")
    assert current.exit_code == 0 and "current" in current.output
    folder = project / ".claude/skills/formspec-consult"
    (folder / "SKILL.md").write_text("---\nname: formspec-consult\n---\nold text\n")
    (folder / "skills" / "form-layout.md").unlink()
    (folder / "skills" / "retired-skill.md").write_text("gone upstream\n")
    stale = run(project, "--check")
    assert stale.exit_code == 1
    for says in ("changed SKILL.md", "missing skills/form-layout.md", "extra skills/retired-skill.md"):
        assert says in stale.output
    assert "Run: formspec-consult skill install" in stale.output
    assert (folder / "SKILL.md").read_text().endswith("old text\n"), "--check writes nothing"
    assert run(project, "--force").exit_code == 0 and run(project, "--check").exit_code == 0
    assert not (folder / "skills" / "retired-skill.md").exists()


def test_installing_over_the_persons_edits_refuses_and_force_keeps_them_whole_as_a_backup(project: Path) -> None:
    assert run(project).exit_code == 0
    folder = project / ".claude/skills/formspec-consult"
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text() + "\nOur shop: always ask about Sundays.\n")
    (folder / "my-notes.md").write_bytes(b"notes of my own \xe2\x9c\x93\n")
    before = snapshot(folder)
    refused = run(project)
    assert refused.exit_code == 1
    assert "changed SKILL.md" in refused.output and "extra my-notes.md" in refused.output
    assert "--force" in refused.output
    assert snapshot(folder) == before, "nothing is replaced without --force"
    forced = run(project, "--force")
    assert forced.exit_code == 0, forced.output
    (backup,) = folder.parent.glob(".formspec-consult-backup-*")
    assert f"kept whole as {backup}" in forced.output
    assert snapshot(backup) == before, "every byte of the edited folder is in the backup"
    assert run(project, "--check").exit_code == 0 and not (folder / "my-notes.md").exists()
    assert run(project).exit_code == 0, "our own install again is current, not someone's edits"


def test_user_and_agents_targets_go_where_claude_code_and_formspec_init_look(project: Path, home: Path) -> None:
    assert run(project, "--user").exit_code == 0
    assert (home / ".claude/skills/formspec-consult/SKILL.md").is_file()
    assert run(project, "--target", "agents").exit_code == 0
    assert (project / ".agents/skills/formspec-consult/SKILL.md").is_file()
    stale = run(project, "--target", "agents", "--user", "--check")
    assert stale.exit_code == 1 and "formspec-consult skill install --user --target agents" in stale.output
    assert not (project / ".claude").exists()


def test_an_unknown_target_is_refused_and_nothing_is_written(project: Path, home: Path) -> None:
    before = snapshot(project)
    result = run(project, "--target", "cursor")
    assert result.exit_code == 2 and "cursor" in result.output and "claude" in result.output
    assert snapshot(project) == before and not any(home.iterdir())


def test_an_unwritable_destination_is_a_clear_error_and_nothing_is_written(project: Path) -> None:
    (project / ".claude").write_text("a file where the folder should be\n")
    before = snapshot(project)
    result = run(project)
    assert result.exit_code == 1
    assert "Cannot write" in result.output and "writable" in result.output
    assert "Traceback" not in result.output
    assert snapshot(project) == before
