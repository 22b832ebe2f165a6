"""Re-generate the example sessions by running our own engine with the scripted provider.

    make transcripts        (or: .venv/bin/python transcripts-example/generate.py)

For each `<name>.script.yaml` (the consultant's replies) and `<name>.turns.yaml` (what the owner
types), the bundled barbershop project is copied to a temporary folder, the engine is opened
with the scripted provider and the local MCP server (in-process, the same tools `mcp-serve`
offers), every turn is run, and the resulting session folder is copied to `<name>/`. Nothing in
`<name>/` is written by hand: edit the two YAML files and run this again.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from formspec_consult.agent.engine.engine import Engine, EngineOptions  # noqa: E402

from formspec_consult.commands.wiring import server_specs
from formspec_consult.store.agent_events import Notice, TurnFinished  # noqa: E402
from formspec_consult.providers import ScriptedProvider  # noqa: E402
from formspec_consult.resources import package_path  # noqa: E402


async def record(name: str, work: Path) -> Path:
    """Run one scripted session in a copy of the example project; return its session folder."""
    project = work / "barbershop"
    shutil.copytree(package_path("examples", "barbershop"), project)
    turns = yaml.safe_load((HERE / f"{name}.turns.yaml").read_text(encoding="utf-8"))
    # A path relative to the repository, so the recorded model name is the same on every machine.
    provider = ScriptedProvider.from_file(Path(HERE.name) / f"{name}.script.yaml")
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs))
    try:
        for text in turns:
            finished = None
            async for event in engine.run_turn(str(text)):
                if isinstance(event, Notice) and event.level == "error":
                    print(f"  ! {event.message}", file=sys.stderr)
                if isinstance(event, TurnFinished):
                    finished = event
            print(f"  {text[:60]!r}: {finished.reason if finished else 'no end'}")
            if finished is None or finished.reason not in {"done"}:
                raise SystemExit(f"{name}: the turn {text!r} ended with {finished}; fix the script")
        left = len(provider.turns) - provider.position
        if left:
            raise SystemExit(f"{name}: {left} scripted replies were not used; fix the script")
        return engine.session_dir
    finally:
        await engine.aclose()


def main() -> int:
    os.chdir(ROOT)
    names = sorted(p.name.removesuffix(".script.yaml") for p in HERE.glob("*.script.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ["FORMSPEC_REGISTRY_DB"] = f"sqlite:///{work / 'registry.db'}"
        for name in names:
            print(f"{name}:")
            session = asyncio.run(record(name, work / name))
            target = HERE / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(session, target, ignore=shutil.ignore_patterns("*.lock"))
            print(f"  → {target.relative_to(ROOT)} ({len(list(target.rglob('*')))} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
