"""An installed wheel must work, not only the source checkout: styles/ and prompts/ ship inside it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (built,) = out.glob("formspec_consult-*.whl")
    return built


def test_wheel_ships_styles_and_prompts_inside_the_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top_styles = sorted(p.name for p in (ROOT / "styles").glob("*.tcss"))
    top_prompts = sorted(p.name for p in (ROOT / "prompts").rglob("*") if p.is_file())
    assert top_styles, "styles/ has no .tcss files"
    for name in top_styles:
        assert f"formspec_consult/styles/{name}" in names
    for name in top_prompts:
        assert any(n.startswith("formspec_consult/prompts/") and n.endswith("/" + name) for n in names), name


def test_wheel_ships_the_eval_corpus_and_its_recordings(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    corpus = ROOT / "formspec_consult" / "eval" / "corpus"
    files = sorted(p.relative_to(ROOT).as_posix() for p in corpus.rglob("*.yaml"))
    assert len(files) >= 24  # twelve cases, twelve recorded consultants
    for name in files:
        assert name in names, name


def test_unpacked_wheel_finds_its_own_data(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import formspec_consult, formspec_consult.resources as r\n"
        "print(formspec_consult.__file__)\n"
        "print(r.data_dir('styles'))\n"
        "print(r.data_dir('prompts'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    package_file, styles, prompts = proc.stdout.split()
    assert package_file.startswith(str(site))
    assert styles == str(site / "formspec_consult" / "styles")
    assert prompts == str(site / "formspec_consult" / "prompts")


def test_the_unpacked_wheel_installs_the_skill_from_its_own_prompts_and_skills(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    command = [sys.executable, "-m", "formspec_consult", "skill", "install", "--project", str(project)]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    folder = project / ".claude" / "skills" / "formspec-consult"
    assert (folder / "SKILL.md").read_text().startswith("---\nname: formspec-consult\n")
    shipped = sorted(p.parent.name for p in (site / "formspec_consult" / "skills").glob("*/SKILL.md"))
    assert shipped and sorted(p.stem for p in (folder / "skills").glob("*.md")) == shipped
    check = subprocess.run([*command, "--check"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert check.returncode == 0, check.stderr


def test_the_installed_wheel_speaks_indonesian_from_its_own_catalogues(wheel: Path, tmp_path: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "formspec_consult/i18n/locale/id/LC_MESSAGES/formspec_consult.mo" in names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    project = tmp_path / "shop"
    project.mkdir()
    (project / "formspec-app.yaml").write_text("name: shop\n")
    env = {**os.environ, "PYTHONPATH": str(site), "LANG": "id_ID.UTF-8", "HOME": str(tmp_path)}
    env.pop("FORMSPEC_LANGUAGE", None)
    command = [sys.executable, "-m", "formspec_consult", "--project", str(project), "sessions"]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Belum ada sesi konsultasi di"), proc.stdout
    check = "import formspec_consult.i18n as i; print(i.LOCALE_DIR); print(','.join(i.available_languages()))"
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    locale_dir, languages = proc.stdout.split()
    assert locale_dir.startswith(str(site)) and languages == "en,id"
