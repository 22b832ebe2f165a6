"""Module files that ship with the bundled registry, and how FormSpec installs a registry module.

A registry entry describes a module; only some also ship its files (`registry/packages/<name>/`,
the tree FormSpec's `formspec module install` copies into a project's `vendors/<name>/`). For
those the bundled catalogue records where the module comes from (`source`, in FormSpec's form for
a registry install: `<registry>/<name>@<version>`) and the checksum of that tree, so a client can
check what it installs; the local server's `install_module` installs them with the person's
approval. For any other module the way on is FormSpec's own command, :func:`install_command`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from formspec_consult.registry.models import ModuleRecord
from formspec_consult.resources import package_path

#: FormSpec's default module registry (its `formspec module install --from` default).
REGISTRY_URL = "https://registry.formspec.dev"


def packages_dir() -> Path:
    return package_path("registry", "packages")


def package_dir(name: str) -> Path | None:
    """The shipped files of module `name` (a folder holding its module.yaml), or None."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    folder = packages_dir() / name
    return folder if (folder / "module.yaml").is_file() and not folder.is_symlink() else None


def package_files(name: str) -> dict[str, bytes]:
    """Every file of the shipped module, by POSIX path relative to its folder (empty: none ship)."""
    folder = package_dir(name)
    if folder is None:
        return {}
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts}


def registry_source(name: str, version: str) -> str:
    """The lock's `source` of a registry install, as FormSpec writes it."""
    return f"{REGISTRY_URL}/{name}@{version}"


def install_command(name: str, version: str | None = None) -> str:
    """FormSpec's command that installs (and, with --use, activates) a registry module."""
    ref = f"{name}@{version}" if version else name
    return f"formspec module install --from {REGISTRY_URL} {ref} --use"


def with_package_facts(module: ModuleRecord) -> ModuleRecord:
    """`module` with `source` and `checksum` filled when its files ship here (else unchanged)."""
    from formspec_consult.registry.importer import tree_checksum

    folder = package_dir(module.name)
    if folder is None:
        return module
    return dataclasses.replace(module, source=module.source or registry_source(module.name, module.version),
                               checksum=tree_checksum(folder))


def shipped_record(name: str) -> ModuleRecord | None:
    """The bundled catalogue's record of `name` (version, trust tier) with its source and checksum,
    when its files ship here; None otherwise."""
    if package_dir(name) is None:
        return None
    from formspec_consult.registry.importer import collect

    module = collect(package_path("registry", "catalogue"), honour_annotations=True).modules.get(name)
    return with_package_facts(module) if module is not None else None
