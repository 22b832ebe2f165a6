"""Locate data shipped with the package (styles, prompts, bundled examples).

In a wheel, `styles/` and `prompts/` are force-included inside the package; in a source
checkout (editable install) they sit at the repository's top level. Both must work.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the folder of shipped data called `name` ("styles" or "prompts")."""
    inside = _PACKAGE_DIR / name
    if inside.is_dir():
        return inside
    checkout = _PACKAGE_DIR.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"The '{name}' folder is missing from this installation of formspec-consult "
        f"(looked in {inside} and {checkout}); reinstall the package."
    )


def package_path(*parts: str) -> Path:
    """A path inside the package itself (bundled skills, schemas, examples, catalogue)."""
    return _PACKAGE_DIR.joinpath(*parts)
