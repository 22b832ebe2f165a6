"""`get_module_detail` answers for the modules installed in the project too.

The registry knows what it publishes; it does not know the project. A module the project holds —
one `install_module` (or FormSpec's `formspec module install`) put under `vendors/<name>/` and
recorded in `formspec.lock`, a vendored module from elsewhere, or one of the project's own modules
— was unknown to `get_module_detail` ("No module named … in the registry"), though the model met
its name in the system prompt's module inventory. So the consultant's call is answered with what
the project holds when the module is installed (the local server's `list_installed_modules` entry:
where it lies, version, trust tier, lock checksum, ai_index — publisher text marked untrusted —
and the entities and views it holds), beside the registry's answer when the registry has it too
(so the model sees it is installed already), or alone when the registry does not.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from typing import Any

from formspec_consult.agent.loop.json_answer import json_object
from formspec_consult.agent.loop.loop import DelegatingTools, ToolRunner
from formspec_consult.mcp_client.manager import ToolOutcome

DETAIL = "get_module_detail"
INSTALLED_NOTE = ("Installed in this project (not in the registry): what the project holds. A vendor module "
                  "is read-only; extend it from your own module.")


class InstalledModuleDetail(DelegatingTools):
    """Delegates to ``inner``; a registry `get_module_detail` call (``is_detail``) also reads the
    project's installed modules (``installed``: the local server's `list_installed_modules` answer)."""

    def __init__(
        self,
        inner: ToolRunner,
        *,
        is_detail: Callable[[str], bool],
        installed: Callable[[], Awaitable[Any]],
    ) -> None:
        super().__init__(inner)
        self._is_detail, self._installed = is_detail, installed

    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        outcome = await self.inner.call(exposed, arguments)
        name = (arguments or {}).get("name")
        if not self._is_detail(exposed) or not isinstance(name, str) or not name.strip():
            return outcome
        entry = await self._entry(name)
        if entry is None:
            return outcome
        registry = json_object(outcome.text) if outcome.ok else None
        if registry is not None:
            detail: dict[str, Any] = {**registry, "installed": entry}
        else:
            detail = {"name": entry.get("name", name), "installed": entry, "note": INSTALLED_NOTE}
        text = json.dumps(detail, ensure_ascii=False, indent=2)
        return dataclasses.replace(outcome, ok=True, text=text, structured=detail, for_model=None)

    async def _entry(self, name: str) -> dict[str, Any] | None:
        """The project's entry for the module `name` (by name or lock alias), None when it holds none."""
        try:
            answer = await self._installed()
        except Exception:  # noqa: BLE001 - the registry's answer stands when the project cannot be read
            return None
        modules = answer.get("modules") if isinstance(answer, dict) else None
        wanted = name.strip().lower()
        for module in modules if isinstance(modules, list) else []:
            if not isinstance(module, dict):
                continue
            names = {str(module.get(key) or "").lower() for key in ("name", "alias")}
            if wanted in names or wanted.rsplit("/", 1)[-1] in names:
                return module
        return None
