"""``formspec-consult skill install``: the consultation as a skill for Claude Code and other agents.

The skill is ASSEMBLED at install time from the same sources that drive our own client: the
``consultant`` prompt (its parts, partials expanded by the prompt loader), the bundled skills in
``formspec_consult/skills/`` and the local server's tool list. Nothing here is a hand-kept copy,
so ``--check`` can tell whether an installed skill still matches this version.

Layout (under ``.claude/skills/`` or ``.agents/skills/``, in the project or the home folder)::

    formspec-consult/
      SKILL.md                 entry point: FormSpec, the flow, which tool when, the rules
      drafting-rules.md        from prompts/partials (via the consultant prompt)
      lifecycle-checklist.md
      skills/<name>.md         the bundled skills, one file each
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from formspec_consult.i18n import N_, _

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from mcp.types import Tool

    from formspec_consult.spec.model import Skill

SKILL_NAME = "formspec-consult"
MANIFEST = ".installed.json"  # in the skill folder: sha256 of each file as we wrote it
SERVER_NAME = "formspec"  # the mcpServers key the README and `.mcp.json` examples use
TARGETS = {"claude": ".claude", "agents": ".agents"}
DESCRIPTION = (
    "Design and draft FormSpec apps (low-code apps written as trees of YAML specs) through the "
    "formspec MCP server: understand the business first, propose a design, then write spec drafts "
    "that pass the validation gate and that the person reviews and applies. Use when the user wants "
    "to build or change a FormSpec app, write or fix spec YAML (entities, forms, tables, lifecycles, "
    "modules), or asks how FormSpec works."
)


class SkillError(Exception):
    """The skill cannot be assembled or installed; the message says what to do."""


@dataclass(frozen=True)
class Plan:
    """Where the skill goes and the exact files it consists of (relative path -> text)."""

    folder: Path
    files: dict[str, str]

    def stale(self) -> list[str]:
        """What differs from an install at ``folder``: one line per missing, changed or extra file."""
        problems = []
        for rel, text in sorted(self.files.items()):
            path = self.folder / rel
            if not path.is_file():
                problems.append(f"missing {rel}")
            elif path.read_text(encoding="utf-8") != text:
                problems.append(f"changed {rel}")
        if self.folder.is_dir():
            for path in sorted(self.folder.rglob("*")):
                rel = path.relative_to(self.folder).as_posix()
                if path.is_file() and rel not in self.files and rel != MANIFEST:
                    problems.append(f"extra {rel}")
        return problems

    def not_ours(self) -> list[str]:
        """Files in the installed folder that formspec-consult did not write as they are now: the
        person's edits and their own files (everything, when no manifest says what we wrote)."""
        if not self.folder.is_dir():
            return []
        try:
            written = json.loads((self.folder / MANIFEST).read_text(encoding="utf-8"))["files"]
        except (OSError, ValueError, KeyError, TypeError):
            written = {}
        found = []
        for path in sorted(self.folder.rglob("*")):
            rel = path.relative_to(self.folder).as_posix()
            if rel == MANIFEST or not path.is_file():
                continue
            if rel not in written:
                if rel not in self.files or path.read_text(encoding="utf-8", errors="replace") != self.files[rel]:
                    found.append(f"{'extra' if rel not in self.files else 'changed'} {rel}")
            elif hashlib.sha256(path.read_bytes()).hexdigest() != written[rel]:
                found.append(f"changed {rel}")
        return found


def skill_folder(target: str, *, user: bool, project_dir: Path, home: Path | None = None) -> Path:
    """``<base>/<.claude|.agents>/skills/formspec-consult`` with base the home or project folder."""
    if target not in TARGETS:
        raise SkillError(_("Unknown target {target!r}; use one of: {targets}.").format(target=target, targets=", ".join(TARGETS)))
    base = (home or Path.home()) if user else project_dir
    return base / TARGETS[target] / "skills" / SKILL_NAME


def assemble(tools: list[Tool]) -> dict[str, str]:
    """Every file of the skill, from the consultant prompt, the bundled skills and ``tools``."""
    from formspec_consult import __version__
    from formspec_consult.prompting.prompts import PromptError, load_prompt
    from formspec_consult.prompting.template import placeholders, render_template
    from formspec_consult.servers.local.server import INSTRUCTIONS
    from formspec_consult.spec.skills import all_skills

    try:
        consultant = load_prompt("consultant")
    except PromptError as exc:
        raise SkillError(f"The consultant prompt cannot be loaded: {exc}") from exc
    parts = dict(consultant.system_parts)
    needed = ("role", "flow", "style", "drafting", "verification", "safety")
    missing = [name for name in needed if name not in parts]
    if missing:
        raise SkillError(f"The consultant prompt has no part(s) {', '.join(missing)}; the skill needs them.")

    def part(name: str) -> str:
        # An external client is offered every tool: each variable left empty renders the parts
        # that name the tools (the consultant's per-offer conditions, agent/engine/context.py).
        text = parts[name].strip()
        return render_template(text, dict.fromkeys(placeholders(text), ""), consultant.name).strip() + "\n"

    skills = all_skills(None)  # the bundled ones; a project's own .agents/skills are its own business
    header = (
        f"<!-- Generated by `formspec-consult skill install` (formspec-consult {__version__}, "
        f"consultant prompt {consultant.version}). Do not edit: run the command again. -->\n"
    )
    files = {
        "drafting-rules.md": header + "\n" + part("drafting"),
        "lifecycle-checklist.md": header + "\n" + part("verification"),
    }
    for one in skills:
        text = Path(one.path).read_text(encoding="utf-8")
        files[f"skills/{one.name}.md"] = text if text.endswith("\n") else text + "\n"
    files["SKILL.md"] = _entry_point(header, part, INSTRUCTIONS, tools, skills)
    return files


def _entry_point(
    header: str, render: Callable[[str], str], instructions: str, tools: list[Tool], skills: list[Skill]
) -> str:
    import yaml

    frontmatter = yaml.safe_dump(
        {"name": SKILL_NAME, "description": DESCRIPTION}, sort_keys=False, allow_unicode=True, width=100
    )
    lines = [
        "---",
        frontmatter.rstrip("\n"),
        "---",
        header,
        "# FormSpec consultation",
        "",
        "## What FormSpec is, and your role",
        "FormSpec is a low-code platform whose apps are trees of YAML spec files (an App manifest,",
        "modules with entities, forms, tables and lifecycles; installed vendor modules under `vendors/`).",
        "",
        render("role"),
        f"## The `{SERVER_NAME}` MCP server",
        f"Everything you read from or write to the project goes through the `{SERVER_NAME}` MCP server",
        "(`formspec-consult mcp-serve --project .`; in Claude Code its tools are named",
        f"`mcp__{SERVER_NAME}__<tool>`). Never edit spec files directly: write them with",
        "`propose_spec_file`, which validates them as drafts; the person reviews and applies them.",
        "",
        instructions,
        "",
        render("flow"),
        "## When to call which tool",
        "",
        "Reading (no side effects):",
        "",
        *_tool_lines(t for t in tools if t.annotations and t.annotations.read_only_hint),
        "",
        "Writing (drafts first; the project only changes when the person accepts):",
        "",
        *_tool_lines(t for t in tools if not (t.annotations and t.annotations.read_only_hint)),
        "",
        render("style"),
        render("safety"),
        "## Reference files",
        "- [drafting-rules.md](drafting-rules.md): how to write and fix spec files.",
        "- [lifecycle-checklist.md](lifecycle-checklist.md): what to check before handing drafts over.",
        *(f"- [skills/{s.name}.md](skills/{s.name}.md): {s.description}" for s in skills),
        "",
    ]
    return "\n".join(lines)


def _tool_lines(tools: Iterable[Tool]) -> list[str]:
    rows = []
    for tool in tools:
        first = " ".join((tool.description or "").split()).split(". ")[0].rstrip(".")
        rows.append(f"- `{tool.name}` ({tool.title}): {first}.")
    return rows


def plan(target: str, *, user: bool, project_dir: Path, home: Path | None = None) -> Plan:
    """The folder and files of an install (reads the sources; writes nothing)."""
    import anyio

    from formspec_consult.servers.local import tool_catalogue

    folder = skill_folder(target, user=user, project_dir=project_dir, home=home)
    return Plan(folder, assemble(anyio.run(tool_catalogue)))


def install(the_plan: Plan, *, force: bool = False) -> tuple[bool, Path | None]:
    """Write the skill folder in one step (built beside it, then swapped in).

    Returns (changed, backup): False when it was current; the folder the previous install was
    moved to when it held the person's edits or files (only with ``force``; without it such an
    install is refused, so their bytes are never lost).
    """
    if not the_plan.stale():
        return False, None
    folder = the_plan.folder
    theirs = the_plan.not_ours()
    backup = folder.parent / f".{SKILL_NAME}-backup-{datetime.now(UTC):%Y%m%d-%H%M%S}" if theirs else None
    if theirs and not force:
        listed = "; ".join(theirs[:6]) + ("; …" if len(theirs) > 6 else "")
        raise SkillError(_(
            "The skill at {folder} has changes formspec-consult did not write ({listed}); installing "
            "would replace them. Copy what you want to keep, or run the install again with --force: the "
            "current folder is then kept whole as {backup}."
        ).format(folder=folder, listed=listed, backup=f"{folder.parent}/.{SKILL_NAME}-backup-<time>"))
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{SKILL_NAME}-", dir=folder.parent))
    except OSError as exc:
        raise SkillError(_("Cannot write to {folder}: {why}. Choose a writable folder.").format(
            folder=folder.parent, why=exc.strerror or exc)) from exc
    old = backup or folder.parent / f".{SKILL_NAME}-old-{os.getpid()}"
    try:
        for rel, text in the_plan.files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        manifest = {rel: hashlib.sha256((staging / rel).read_bytes()).hexdigest() for rel in the_plan.files}
        (staging / MANIFEST).write_text(json.dumps({"files": manifest}, indent=1, sort_keys=True), encoding="utf-8")
        staging.chmod(0o755)
        if folder.exists():
            folder.rename(old)
        staging.rename(folder)
    except OSError as exc:
        if old.exists() and not folder.exists():
            old.rename(folder)
        raise SkillError(_("Cannot write the skill to {folder}: {why}.").format(folder=folder, why=exc.strerror or exc)) from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if backup is None:
            shutil.rmtree(old, ignore_errors=True)  # only ever our own files
    return True, backup


@click.group("skill")
def skill() -> None:
    """Install the FormSpec consultation as a skill for Claude Code or other agents."""


@skill.command("install")
@click.option("--user", is_flag=True, help=N_("Install into your home folder (~/.claude/skills/…) for every project."))
@click.option(
    "--target",
    type=click.Choice(sorted(TARGETS)),
    default="claude",
    show_default=True,
    help=N_("claude: .claude/skills/ (Claude Code); agents: .agents/skills/ (as FormSpec's own init uses)."),
)
@click.option("--check", is_flag=True, help=N_("Only report whether the installed skill is current (exit 1 if not)."))
@click.option("--force", is_flag=True,
              help=N_("Install over a skill folder you edited or added files to; it is kept whole as a backup first."))
@click.option(
    "--project",
    "project_opt",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=N_("Project folder for a project install (default: --project of the main command, else the current folder)."),
)
@click.pass_context
def install_command(
    ctx: click.Context, user: bool, target: str, check: bool, force: bool, project_opt: Path | None
) -> None:
    """Write SKILL.md and its reference files, assembled from the prompts and the bundled skills."""
    parent = (ctx.obj or {}).get("project") if ctx.obj else None
    project_dir = _project_root(project_opt or parent or Path.cwd())
    try:
        the_plan = plan(target, user=user, project_dir=project_dir)
        if check:
            problems = the_plan.stale()
            if problems:
                again = "formspec-consult skill install" + (" --user" if user else "")
                again += "" if target == "claude" else f" --target {target}"
                listed = "; ".join(problems[:6]) + ("; …" if len(problems) > 6 else "")
                raise click.ClickException(_("The skill at {folder} is stale ({listed}). Run: {again}").format(folder=the_plan.folder, listed=listed, again=again))
            click.echo(_("The skill at {folder} is current.").format(folder=the_plan.folder))
            return
        changed, backup = install(the_plan, force=force)
    except SkillError as exc:
        raise click.ClickException(str(exc)) from exc
    done = _("Installed {folder} ({n} files).") if changed else _("Already current: {folder} ({n} files).")
    click.echo(done.format(folder=the_plan.folder, n=len(the_plan.files)))
    if backup is not None:
        click.echo(_("Your edited skill folder is kept whole as {backup}.").format(backup=backup))
    if changed and target == "claude":
        click.echo(
            _("Claude Code loads it at session start; attach the server as '{SERVER_NAME}' in .mcp.json (command formspec-consult, args mcp-serve --project .).").format(SERVER_NAME=SERVER_NAME)
        )


def _project_root(folder: Path) -> Path:
    """The FormSpec project at or above ``folder`` if there is one, else ``folder`` itself."""
    from formspec_consult.spec import ProjectError, open_project

    try:
        return Path(open_project(folder).root)
    except ProjectError:
        return folder
