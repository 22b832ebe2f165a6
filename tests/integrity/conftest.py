"""Fixtures for the fault tests: a small real tmpfs (disk full, read-only) where the machine allows it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class SmallDisk:
    """A tmpfs mounted at ``path``; ``fill`` leaves almost no space, ``free`` and ``read_only`` change it."""

    path: Path

    def _remount(self, options: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{options}", str(self.path)], check=True, capture_output=True)

    def fill(self, leave_bytes: int = 0) -> Path:
        """Fill the file system until at most ``leave_bytes`` are free; returns the filler file."""
        filler = self.path / "filler.bin"
        with filler.open("ab") as handle:
            chunk = b"\0" * 4096
            while True:
                free = os.statvfs(self.path).f_bavail * os.statvfs(self.path).f_frsize
                if free <= leave_bytes:
                    break
                try:
                    handle.write(chunk[: max(1, min(len(chunk), free - leave_bytes))])
                    handle.flush()
                except OSError:
                    break
        return filler

    def free(self) -> None:
        """Give the space back (remove the filler)."""
        (self.path / "filler.bin").unlink(missing_ok=True)

    def grow(self, size: str) -> None:
        self._remount(f"size={size}")

    def read_only(self, on: bool = True) -> None:
        self._remount("ro" if on else "rw")


def _mount_tmpfs(path: Path, size: str) -> str | None:
    """Mount a tmpfs at ``path``; the reason it cannot be done, or None when it is mounted."""
    if shutil.which("mount") is None:
        return "no mount command on this machine"
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)], capture_output=True, text=True
    )
    return None if done.returncode == 0 else f"mount -t tmpfs refused: {done.stderr.strip()}"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    """A 2 MiB tmpfs (a real file system that fills up), unmounted afterwards; skipped where not allowed."""
    mountpoint = tmp_path / "small-disk"
    mountpoint.mkdir()
    reason = _mount_tmpfs(mountpoint, "2m")
    if reason is not None:
        pytest.skip(f"disk-full cases need a small tmpfs: {reason}")
    try:
        yield SmallDisk(mountpoint)
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], capture_output=True)
