"""The bad-input matrix of the write tools: each case gets a clear error and nothing changes.

"Nothing changes" is checked by hashing every file under the project (including the session's
drafts, manifest and undo stack under .formspec/) before and after the failing call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.servers.conftest import call, call_error, tree_hash

pytestmark = pytest.mark.anyio

SERVICE = "modules/shop/master/service/entity.yaml"
GOOD = "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: x}\nspec: {}\n"
Setup = Callable[[Client, Path], Awaitable[None]]


async def _no_setup(client: Client, project: Path) -> None:
    return None


async def _proposed_then_edited(client: Client, project: Path) -> None:
    text = (project / "spec" / SERVICE).read_text()
    await call(client, "propose_spec_file", {"path": SERVICE, "content": text + "# draft\n"})
    (project / "spec" / SERVICE).write_text(text + "# edited elsewhere\n")


async def _proposed_invalid(client: Client, project: Path) -> None:
    await call(client, "propose_spec_file", {"path": "modules/shop/x.yaml", "content": "kind: Entity\n"})


async def _applied_then_edited(client: Client, project: Path) -> None:
    text = (project / "spec" / SERVICE).read_text()
    await call(client, "propose_spec_file", {"path": SERVICE, "content": text + "# applied\n"})
    await call(client, "apply_draft", {"file": SERVICE})
    (project / "spec" / SERVICE).write_text(text + "# edited after apply\n")


async def _symlink_out(client: Client, project: Path) -> None:
    outside = project.parent / "outside"
    outside.mkdir()
    (project / "spec" / "modules" / "escape").symlink_to(outside)


async def _symlink_to_vendor(client: Client, project: Path) -> None:
    (project / "spec" / "modules" / "sneaky").symlink_to(project / "vendors" / "loyalty")


def propose(
    path: Any = "modules/shop/x.yaml", content: Any = GOOD, **extra: Any
) -> tuple[str, dict[str, Any]]:
    return "propose_spec_file", {"path": path, "content": content, **extra}


CASES: list[tuple[str, tuple[str, dict[str, Any]], str, Setup]] = [
    ("empty path", propose(""), "empty", _no_setup),
    ("blank path", propose("   "), "empty", _no_setup),
    ("absolute path", propose("/etc/formspec.yaml"), "absolute", _no_setup),
    ("home path", propose("~/x.yaml"), "absolute", _no_setup),
    ("drive path", propose("C:/x.yaml"), "absolute", _no_setup),
    ("parent segment", propose("../x.yaml"), "'..'", _no_setup),
    ("nested parent segment", propose("modules/../../../etc/x.yaml"), "'..'", _no_setup),
    ("backslashes", propose("modules\\shop\\x.yaml"), "backslash", _no_setup),
    ("NUL in path", propose("modules/shop/x\x00.yaml"), "control characters", _no_setup),
    ("newline in path", propose("modules/shop/x\n.yaml"), "control characters", _no_setup),
    ("json suffix", propose("modules/shop/x.json"), ".yaml or .yml", _no_setup),
    ("no suffix", propose("modules/shop/x"), ".yaml or .yml", _no_setup),
    ("vendors folder", propose("vendors/loyalty/module.yaml"), "Entity Extension", _no_setup),
    ("vendors segment deeper", propose("modules/shop/vendors/x.yaml"), "overrides/", _no_setup),
    ("our state folder", propose(".formspec/consult/x.yaml"), ".formspec/", _no_setup),
    ("hidden folder", propose("modules/.git/x.yaml"), "hidden", _no_setup),
    ("path too long", propose("modules/" + "a" * 600 + ".yaml"), "limit is 512", _no_setup),
    ("symlink out of the project", propose("modules/escape/x.yaml"), "outside the project", _symlink_out),
    ("symlink into vendors", propose("modules/sneaky/x.yaml"), "read-only", _symlink_to_vendor),
    ("path is a folder", propose("modules/shop/master"), ".yaml or .yml", _no_setup),
    ("missing path", ("propose_spec_file", {"content": GOOD}), "path", _no_setup),
    ("empty content", propose(content=""), "content is empty", _no_setup),
    ("blank content", propose(content="  \n\t\n"), "content is empty", _no_setup),
    ("NUL in content", propose(content=GOOD + "\x00"), "NUL", _no_setup),
    ("content too big", propose(content="# x\n" * 150_000), "limit is 524,288", _no_setup),
    ("lone surrogate", propose(content=GOOD + "\ud800"), "not valid Unicode", _no_setup),
    ("content not text", propose(content=42), "content", _no_setup),
    ("bad session id", propose(session="../other"), "not a valid session id", _no_setup),
    ("unknown session", propose(session="20990101-000000-none"), "There is no session", _no_setup),
    ("apply unknown draft", ("apply_draft", {"file": "modules/shop/none.yaml"}), "no draft", _no_setup),
    ("apply vendor path", ("apply_draft", {"file": "vendors/loyalty/module.yaml"}), "read-only", _no_setup),
    ("apply absolute path", ("apply_draft", {"file": "/tmp/x.yaml"}), "absolute", _no_setup),
    (
        "apply stale target",
        ("apply_draft", {"file": SERVICE}),
        "was edited after this draft",
        _proposed_then_edited,
    ),
    (
        "apply invalid draft",
        ("apply_draft", {"file": "modules/shop/x.yaml"}),
        "fails validation",
        _proposed_invalid,
    ),
    ("reject unknown draft", ("reject_draft", {"path": "modules/shop/none.yaml"}), "no draft", _no_setup),
    ("reject outside path", ("reject_draft", {"path": "../x.yaml"}), "'..'", _no_setup),
    ("undo with nothing applied", ("undo_apply", {}), "nothing to undo", _no_setup),
    ("undo after a hand edit", ("undo_apply", {}), "was edited after it was applied", _applied_then_edited),
    ("undo in unknown session", ("undo_apply", {"session": "nope"}), "There is no session", _no_setup),
]


@pytest.mark.parametrize(
    ("tool_call", "fragment", "setup"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
async def test_bad_input_is_refused_clearly_and_changes_nothing(
    client: Client, project: Path, tool_call: tuple[str, dict[str, Any]], fragment: str, setup: Setup
) -> None:
    await setup(client, project)
    before = tree_hash(project)
    name, args = tool_call
    message = await call_error(client, name, args)
    assert fragment in message
    assert tree_hash(project) == before


def test_the_matrix_has_at_least_thirty_cases() -> None:
    assert len(CASES) >= 30


async def test_a_crash_inside_a_tool_is_a_tool_error_that_says_what_happened(
    server: Any, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(*args: Any, **kwargs: Any) -> Any:
        raise ValueError()  # no message at all: the worst case for the model

    monkeypatch.setattr(server.state.project, "validate_text", crash)
    message = await call_error(client, "validate_spec", {"yaml": GOOD})
    assert "validate_spec failed inside formspec-consult (ValueError: no details)" in message
    assert "nothing was written" in message
