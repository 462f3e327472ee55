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


@pytest.fixture(scope="session")
def map_test():
    """A function that runs DDNet's `map_test` on a map and asserts that DDNet accepts it, from
    the DDNet build folder TWCODEC_DDNET_BUILD (see the README); without one it does nothing
    and the session's report says so once (a DDNet build is not part of CI)."""
    import subprocess
    import warnings

    build = os.environ.get("TWCODEC_DDNET_BUILD")
    tool = Path(build) / "map_test" if build else None
    if tool is None or not tool.is_file():
        warnings.warn("DDNet's map_test not run: set TWCODEC_DDNET_BUILD to a DDNet build folder")

        def check(path: Path) -> None:
            pass

        return check

    def check(path: Path) -> None:
        done = subprocess.run([str(tool), str(path)], capture_output=True, text=True, cwd=path.parent, timeout=60)
        out = done.stdout + done.stderr
        assert done.returncode == 0 and "successfully" in out and "erroneous" not in out, (
            f"DDNet's map_test refused {path}:\n{done.stdout}{done.stderr}"
        )

    return check
