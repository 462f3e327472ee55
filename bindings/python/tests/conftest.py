"""Shared fixtures: the corpus and the CLI, found as the Rust tests find them (tests/common)."""

import os
import shutil
from pathlib import Path

import pytest

# tests/ -> bindings/python/ -> bindings/ -> the repository.
REPO = Path(__file__).resolve().parents[3]


def _missing(what: str) -> None:
    """Skips the test visibly, or fails it under CI=true, where everything must be there."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what}; CI=true requires it")
    pytest.skip(what)


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The corpus directory: TWCODEC_CORPUS, default ../shared/corpus beside the repository."""
    env = os.environ.get("TWCODEC_CORPUS")
    path = Path(env) if env else REPO.parent / "shared" / "corpus"
    if not (path / "maps").is_dir():
        _missing(f"no corpus at {path} (optional; set TWCODEC_CORPUS, see the README)")
    return path


@pytest.fixture(scope="session")
def cli() -> str:
    """The `twcodec` binary: TWCODEC_BIN, else the workspace's debug build (cargo build)."""
    env = os.environ.get("TWCODEC_BIN")
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    path = env or str(target / "debug" / "twcodec")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)) and not shutil.which(path):
        _missing(f"no twcodec binary at {path} (cargo build, or set TWCODEC_BIN)")
    return path
