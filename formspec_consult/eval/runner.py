"""One eval run: every case on a fresh starter project, one consultant provider for the run.

Nothing starts before every case file (and, offline, every recording) has been read and checked;
a case that crashes is reported as failed with its error and the run goes on.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from formspec_consult.agent.engine.engine import ServerSpecs
from formspec_consult.eval.consultant import Consultation, read_events, system_prompt
from formspec_consult.eval.corpus import Case, CorpusError, load_corpus
from formspec_consult.eval.owner import ModelOwner, Owner, ScriptedOwner
from formspec_consult.eval.recorded import load_recording
from formspec_consult.eval.report import console as report_console
from formspec_consult.eval.report import run_id, summary_table, totals
from formspec_consult.eval.scoring import ApplyOutcome, EntityFacts, IterateState, cost, score_case
from formspec_consult.providers.base import Provider
from formspec_consult.spec.owner_docs import CHANGELOG
from formspec_consult.store.layout import STATE_DIR, SessionLayout

VERIFY_MODES = ("off", "deterministic", "llm")
class EvalError(ValueError):
    """Bad eval options (the message says what to change); nothing was run."""


@dataclass
class EvalConfig:
    corpus: Path | None = None
    case_ids: tuple[str, ...] = ()
    model: str | None = None
    base_url: str | None = None
    context_window: int | None = None  # the consultant's window, as --context-window of a session
    allow_unvalidated: bool = False  # as a session's --allow-unvalidated
    owner: str | None = None  # "model" | "scripted"; None: scripted offline, else model
    owner_model: str | None = None
    owner_base_url: str | None = None
    verify: str = "deterministic"
    max_turns: int = 8
    out: Path = Path("eval-out")
    offline: bool = False
    in_process: bool = False  # run the MCP servers in-process (tests); the CLI uses the real commands
    servers: ServerSpecs | None = None  # the session's MCP servers, wired by the composition root
    console: Console = field(default_factory=lambda: report_console(stderr=True))


@dataclass
class Prepared:
    cases: list[Case]
    recordings: dict[str, list[Any]]
    consultant: Provider | None
    owner: Provider | None  # the owner's model; None when the owner is scripted
    provider_name: str
    model_name: str


def owner_kind(config: EvalConfig) -> str:
    """Who answers the consultant: "scripted" (offline, or asked for) or "model"."""
    return config.owner or ("scripted" if config.offline else "model")


def _providers(config: EvalConfig) -> tuple[Provider, Provider | None, str, str]:
    """The consultant's provider, resolved as a session's (the same flags, keys and capability
    check), and the owner model's when the owner is a model."""
    from formspec_consult.config import load_settings
    from formspec_consult.providers import check_capability, open_provider
    from formspec_consult.providers.resolve import resolve

    flags: dict[str, object] = {"model": config.model, "base_url": config.base_url}
    if config.context_window is not None:
        flags["context_window"] = config.context_window
    if config.allow_unvalidated:
        flags["allow_unvalidated"] = True
    settings = load_settings(None, {k: v for k, v in flags.items() if v is not None})
    resolution = resolve(settings)
    consultant = open_provider(settings)
    check_capability(consultant, allow_unvalidated=settings.allow_unvalidated)
    owner: Provider | None = None
    if owner_kind(config) == "model":
        # The same model plays the owner unless another is named; a window given for the
        # consultant's model holds for it as the owner too.
        same = config.owner_model is None
        owner_flags = {"model": config.owner_model or settings.model,
                       "base_url": config.owner_base_url or settings.base_url,
                       "context_window": settings.context_window if same else None}
        owner = open_provider(load_settings(None, {k: v for k, v in owner_flags.items() if v is not None}))
    model = resolution.model.split("/", 1)[-1] if resolution.kind == "litellm" else resolution.model
    return consultant, owner, resolution.provider, model


def prepare(config: EvalConfig) -> Prepared:
    """Check everything that can be checked before a run: options, cases, recordings, providers."""
    if config.verify not in VERIFY_MODES:
        raise EvalError(f"--verify must be one of {', '.join(VERIFY_MODES)}, not {config.verify!r}")
    if config.max_turns < 1:
        raise EvalError("--max-turns must be at least 1")
    if config.owner not in (None, "model", "scripted"):
        raise EvalError(f"--owner must be model or scripted, not {config.owner!r}")
    if config.offline and config.owner == "model":
        raise EvalError("--offline has no owner model: its owner is scripted (drop --owner model, or --offline "
                        "and give --model)")
    if owner_kind(config) == "scripted" and (config.owner_model or config.owner_base_url):
        raise EvalError("--owner-model and --owner-base-url are for an owner played by a model: drop them, "
                        "or drop --owner scripted")
    cases = load_corpus(config.corpus, config.case_ids)
    if config.offline:
        if config.verify == "llm":
            raise EvalError("--offline has no recorded verify-draft answers; use --verify deterministic or off")
        recordings = {case.id: load_recording(case.id, config.corpus) for case in cases}
        return Prepared(cases, recordings, None, None, "offline", "recorded")
    if not config.model:
        raise EvalError("give --model (any litellm model, e.g. openai/gpt-4o-mini), or run --offline")
    consultant, owner, provider_name, model = _providers(config)
    return Prepared(cases, {}, consultant, owner, provider_name, model)


def _fresh_project(case: Case, work: Path) -> Path:
    project = work / "project"
    starter = case.starter_path()
    if starter is None:  # what a new business starts from: `formspec-consult init`'s project
        from formspec_consult.spec.starter import starter_files

        for rel, text in starter_files(case.id.replace("-", " ").title(), case.id).items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            (project / rel).write_text(text, encoding="utf-8")
    else:
        shutil.copytree(starter, project, ignore=shutil.ignore_patterns(STATE_DIR, "__pycache__"))
    return project


def _final_state(project_dir: Path) -> tuple[list[EntityFacts], set[str], Any]:
    """Entities, depended-on modules and a skill lookup, read from the project after applying."""
    from formspec_consult.spec import open_project
    from formspec_consult.spec.kinds import effective_kind

    project = open_project(project_dir)
    entities, depended = [], set()
    for doc in project.documents():
        kind = effective_kind(doc.kind)
        if kind == "Entity" and doc.name and doc.origin != "vendors":
            entities.append(EntityFacts.of(doc.name, doc.module, doc.spec))
        elif kind == "Module":
            for dep in doc.spec.get("depends") or []:
                if isinstance(dep, dict) and dep.get("module"):
                    depended.add(str(dep["module"]))
        elif kind == "App":
            depended.update(str(m) for m in doc.spec.get("modules") or [] if isinstance(m, str))
    skills = project.skills()

    def skills_for_kind(kind: str) -> set[str]:
        return {s.name for s in skills if s.applies_to_kind and kind in s.applies_to_kind}

    return entities, depended, skills_for_kind


def _read(file: Path) -> str | None:
    return file.read_text(encoding="utf-8", errors="replace") if file.is_file() else None


def _iterate_before(project_dir: Path) -> IterateState:
    """An Iterate case's starting point: the starter's entities and its changelog."""
    entities, _, _ = _final_state(project_dir)
    return IterateState(tuple(e.name for e in entities), _read(project_dir / CHANGELOG))


class Runner:
    """Runs the prepared cases and writes the artefacts."""

    def __init__(self, config: EvalConfig, prepared: Prepared) -> None:
        self.config, self.prepared = config, prepared
        from formspec_consult.prompting.prompts import load_prompt

        prompt = load_prompt("consultant")
        self.prompt = {"name": prompt.name, "version": prompt.version}
        base = run_id(datetime.now(UTC), prompt.name, prompt.version, prepared.provider_name, prepared.model_name)
        self.run_id, n = base, 1
        while (config.out / "runs" / self.run_id).exists() or (config.out / "reports" / f"{self.run_id}.json").exists():
            n += 1
            self.run_id = f"{base}-{n}"
        self.run_dir = config.out / "runs" / self.run_id

    async def run(self) -> dict[str, Any]:
        config = self.config
        self.run_dir.mkdir(parents=True)
        results = []
        columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} turns"),
                   TimeElapsedColumn())
        with Progress(*columns, console=config.console) as progress:
            for case in self.prepared.cases:
                task = progress.add_task(f"{case.id} ({case.language})", total=config.max_turns)
                results.append(await self._case(case, progress, task))
                status = results[-1]
                label = (f"{status['score']['score'] * 100:.0f}%" if status["status"] == "ok"
                         else f"failed: {status['error'][:60]}")
                done = len(status.get("turns") or []) or config.max_turns
                progress.update(task, total=done, completed=done, description=f"{case.id} ({case.language}) {label}")
        report = {
            "run_id": self.run_id,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "prompt": self.prompt,
            "provider": self.prepared.provider_name,
            "model": config.model or "recorded",
            "base_url": config.base_url,
            "owner_model": None if owner_kind(config) == "scripted" else (config.owner_model or config.model),
            "owner": owner_kind(config),
            "verify": config.verify,
            "offline": config.offline,
            "max_turns": config.max_turns,
            "corpus": str(config.corpus) if config.corpus else "bundled",
            "cases": results,
            "totals": totals(results),
        }
        reports = config.out / "reports"
        reports.mkdir(parents=True, exist_ok=True)
        (reports / f"{self.run_id}.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n",
                                                     encoding="utf-8")
        config.console.print(summary_table(report))
        config.console.print(f"report: {reports / f'{self.run_id}.json'}")
        return report

    async def _case(self, case: Case, progress: Progress, task: TaskID) -> dict[str, Any]:
        case_dir = self.run_dir / case.id
        case_dir.mkdir(parents=True)
        started = time.perf_counter()
        base: dict[str, Any] = {"id": case.id, "language": case.language, "template": case.template,
                                "starter": case.starter}
        work = Path(tempfile.mkdtemp(prefix=f"formspec-eval-{case.id}-"))
        consultation: Consultation | None = None
        try:
            project = _fresh_project(case, work)
            before = _iterate_before(project) if case.expected.iterate else None
            provider, owner = self._players(case)
            consultation = await Consultation.open(project, provider, verify=self.config.verify,
                                                   in_process=self.config.in_process,
                                                   servers=self.config.servers)
            text: str | None = case.opening
            turns: list[dict[str, Any]] = []
            while text is not None and len(turns) < self.config.max_turns:
                turn = await consultation.turn(text)
                turns.append({"owner": text, "consultant": turn.text, "drafts_passed": turn.drafts_passed})
                progress.advance(task)
                if self._recording_done(provider):
                    break
                text = await owner.reply(turn)
            session_dir = consultation.session_dir
            if SessionLayout(session_dir).draft.is_dir():
                shutil.copytree(SessionLayout(session_dir).draft, case_dir / "drafts")
            outcome = await consultation.apply_all()
            await consultation.aclose()
            consultation = None
            score, spent = self._score(case, project, session_dir, case_dir, outcome, time.perf_counter() - started,
                                       before)
            owner_tokens = ({"prompt_tokens": owner.prompt_tokens, "completion_tokens": owner.completion_tokens}
                            if isinstance(owner, ModelOwner) else None)
            result = {**base, "status": "ok", "error": None, "score": score, "cost": spent,
                      "owner_tokens": owner_tokens, "apply": outcome.__dict__, "turns": turns}
        except Exception as exc:  # noqa: BLE001 - a crashing case is reported, and the run goes on
            result = {**base, "status": "failed", "error": f"{type(exc).__name__}: {exc}",
                      "traceback": traceback.format_exc(limit=8)}
        finally:
            if consultation is not None:
                with contextlib.suppress(Exception):  # already failing: keep the first error
                    await consultation.aclose()
            shutil.rmtree(work, ignore_errors=True)
        (case_dir / "score.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return result

    def _players(self, case: Case) -> tuple[Provider, Owner]:
        if self.config.offline:
            from formspec_consult.providers import ScriptedProvider

            recording = self.prepared.recordings[case.id]
            return ScriptedProvider(recording, model=f"recorded:{case.id}", source=f"recording {case.id}"), \
                ScriptedOwner(case)
        assert self.prepared.consultant is not None
        if self.prepared.owner is None:  # a live consultant with the scripted owner: no second model
            return self.prepared.consultant, ScriptedOwner(case)
        return self.prepared.consultant, ModelOwner(case, self.prepared.owner)

    def _recording_done(self, provider: Provider) -> bool:
        if not self.config.offline:
            return False
        from formspec_consult.providers.canned import CannedProvider

        return isinstance(provider, CannedProvider) and provider.remaining == 0

    def _score(self, case: Case, project: Path, session_dir: Path, case_dir: Path, outcome: ApplyOutcome,
               seconds: float, before: IterateState | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        events = read_events(session_dir)
        files = SessionLayout(session_dir)
        for kept in (files.events, files.transcript, files.summary):
            if kept.is_file():
                shutil.copy2(kept, case_dir / kept.name)
        (case_dir / "system-prompt.md").write_text(system_prompt(events), encoding="utf-8")
        entities, depended, skills_for_kind = _final_state(project)
        state = None
        if before is not None:  # an Iterate case: the changelog as the consultation left it
            state = replace(before, changelog_after=_read(project / CHANGELOG))
            if state.changelog_after is not None:
                (case_dir / "changelog.md").write_text(state.changelog_after, encoding="utf-8")
        score = score_case(events, entities, depended, case.expected, outcome, skills_for_kind, state)
        return score, cost(events, seconds)


async def run_eval(config: EvalConfig) -> dict[str, Any]:
    """Prepare (raising CorpusError/EvalError/ProviderError before anything runs), then run."""
    prepared = prepare(config)
    return await Runner(config, prepared).run()


__all__ = ["CorpusError", "EvalConfig", "EvalError", "run_eval"]
