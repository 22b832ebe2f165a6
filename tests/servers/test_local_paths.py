"""Where spec files go: the path root is stated to the model, and a proposal at a place FormSpec
does not read a manifest from is refused with the right place — nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.servers.conftest import call, call_error, tree_hash

pytestmark = pytest.mark.anyio

APP = "apiVersion: formspec.dev/v1\nkind: App\nmetadata: {name: rental}\nspec: {version: '1.0.0', root_url: /app/rental}\n"


async def test_the_path_argument_says_paths_are_relative_to_the_spec_folder_and_where_an_app_goes(
    client: Client,
) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    described = tools["propose_spec_file"].input_schema["properties"]["path"]["description"]
    assert "spec folder" in described and "apps/<app>.yaml" in described and "modules/<module>/module.yaml" in described
    assert "modules/<module>/<characteristic>/<entity>/entity.yaml" in described and "<forms|tables|pages>/<role>.yaml" in described


@pytest.mark.parametrize("path", ["formspec-app.yaml", "spec/formspec-app.yaml", "apps/formspec-app.yaml",
                                  "formspec-sidecar.yaml"])
async def test_an_app_proposed_as_the_cli_config_file_is_refused_with_the_place_of_app_manifests(
    client: Client, project: Path, path: str
) -> None:
    before = tree_hash(project)
    message = await call_error(client, "propose_spec_file", {"path": path, "content": APP})
    assert "dev/serve config at the project root" in message and "'apps/<app>.yaml'" in message
    assert tree_hash(project) == before


@pytest.mark.parametrize(("path", "folder"), [("modules/shop/impl/order.yaml", "impl"),
                                              ("modules/shop/node_modules/x/order.yaml", "node_modules")])
async def test_a_spec_file_in_a_folder_formspec_skips_is_refused(
    client: Client, project: Path, path: str, folder: str
) -> None:
    before = tree_hash(project)
    message = await call_error(client, "propose_spec_file", {"path": path, "content": APP})
    assert f"inside {folder}/" in message and "never read" in message
    assert tree_hash(project) == before


async def test_an_app_in_apps_is_drafted_in_the_spec_folder(client: Client, project: Path) -> None:
    result = await call(client, "propose_spec_file", {"path": "apps/rental.yaml", "content": APP})
    assert result["path"] == "apps/rental.yaml" and not (project / "apps").exists()
    assert result["validation"]["ok"], result["validation"]["problems"]


async def test_every_text_that_spells_a_path_names_the_entity_folder_as_formspec_lays_it_out(client: Client) -> None:
    """One wording: FormSpec groups a module's entities in folders named by their characteristic
    (master, transaction, reference, summary), so every placeholder says `<characteristic>`."""
    import re

    from formspec_consult.spec.starter import starter_files

    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    texts = [
        tools["propose_spec_file"].input_schema["properties"]["path"]["description"],
        tools["list_installed_modules"].description or "",
        await call_error(client, "propose_spec_file", {"path": "modules/shop/impl/order.yaml", "content": APP}),
        starter_files("Toko Maju", "toko")["spec/modules/toko/module.yaml"],
    ]
    for text in texts:
        placeholders = set(re.findall(r"<([a-z|]+)>", text))
        assert not placeholders & {"group", "m", "view", "kind"}, text
    assert all("characteristic" in text for text in texts)
