"""The starter project `formspec-consult init` writes: the smallest FormSpec project a business
can consult into.

What a project needs is FormSpec's rule (its own `formspec init`): the root `formspec-app.yaml`
(tooling config, not a spec document: where the specs live and the dev database), and under
`spec/` an App in `apps/` that mounts one Module of the business (`modules/<slug>/module.yaml`,
so the App does not mount a module that does not exist) and a Workspace seed in `workspaces/`.
The documents are named after the business's slug. The files are our own text, built here as
pure data (path → content) so the command, the eval's empty starter and the tests share them.
"""

from __future__ import annotations

import json
import re
import unicodedata

SLUG_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
MAX_SLUG = 40
MAX_NAME = 80


class StarterError(ValueError):
    """A name or slug a starter project cannot be built from; the message says what to pass."""


def slug_of(name: str) -> str:
    """A FormSpec name for the business: lower-case ASCII words joined by `-` ("Toko Ibu Sri" →
    `toko-ibu-sri`, "Café Nusa" → `cafe-nusa`). StarterError when nothing usable is left."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:MAX_SLUG].rstrip("-")
    if not slug or not SLUG_RE.match(slug):
        raise StarterError(
            f"Cannot make a project name from {name!r}: pass --slug with lower-case letters, digits "
            "and dashes, starting with a letter (e.g. --slug toko-sri)."
        )
    return slug


def check_slug(slug: str) -> str:
    """`slug` when it is a usable name for the App, Module and Workspace; else StarterError."""
    if len(slug) > MAX_SLUG or not SLUG_RE.match(slug):
        raise StarterError(
            f"--slug {slug!r} is not a usable name: use at most {MAX_SLUG} lower-case letters, digits and "
            "dashes, starting with a letter and not ending with a dash (e.g. toko-sri)."
        )
    return slug


def check_name(name: str) -> str:
    """The business name, trimmed; StarterError when it is empty, too long or spans lines."""
    cleaned = name.strip()
    if not cleaned:
        raise StarterError("The business name is empty: give one, e.g. formspec-consult init \"Toko Sri\".")
    if len(cleaned) > MAX_NAME or any(unicodedata.category(ch) == "Cc" for ch in cleaned):
        raise StarterError(f"The business name must be one line of at most {MAX_NAME} characters.")
    return cleaned


def _text(value: str) -> str:
    """A YAML double-quoted scalar (a JSON string is one), so any name reads back as written."""
    return json.dumps(value, ensure_ascii=False)


def starter_files(name: str, slug: str) -> dict[str, str]:
    """Project-relative POSIX path → file text of a new project for the business `name`."""
    name, slug = check_name(name), check_slug(slug)
    title = _text(name)
    return {
        "formspec-app.yaml": (
            "# Settings of the formspec tools (formspec dev / serve), not a spec document.\n"
            "# The App is spec/apps/" + slug + ".yaml; every spec file lives under spec/.\n"
            "spec: spec\n"
            f"dsn: sqlite:.formspec/{slug}.db\n"
        ),
        f"spec/apps/{slug}.yaml": (
            "apiVersion: formspec.dev/v1\n"
            "kind: App\n"
            "metadata:\n"
            f"  name: {slug}\n"
            f"  description: {_text(f'The {name} application.')}\n"
            "spec:\n"
            f"  title: {title}\n"
            "  root_url: /\n"
            "  access: private\n"
            "  app_renderer: sidebar-nav\n"
            "  modules:\n"
            f"    - {slug}\n"
            "  menu:\n"
            f"    - type: module\n"
            f"      module: {slug}\n"
        ),
        f"spec/modules/{slug}/module.yaml": (
            "# The business's own module: its entities go in spec/modules/" + slug + "/<characteristic>/<entity>/entity.yaml\n"
            "# (<characteristic>: master, transaction, reference or summary).\n"
            "apiVersion: formspec.dev/v1\n"
            "kind: Module\n"
            "metadata:\n"
            f"  name: {slug}\n"
            f"  description: {_text(f'What {name} records and does.')}\n"
            "spec:\n"
            "  version: 0.1.0\n"
            f"  vendor: {slug}\n"
        ),
        f"spec/workspaces/{slug}.yaml": (
            "apiVersion: formspec.dev/v1\n"
            "kind: Workspace\n"
            "metadata:\n"
            f"  name: {slug}\n"
            "spec:\n"
            f"  display_name: {title}\n"
            f"  slug: {slug}\n"
        ),
    }
