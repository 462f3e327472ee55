"""I/O errors are the builtins Python raises for the same failure (`open()`'s), and still
`twcodec.Error` and `twcodec.IoError`: FileNotFoundError, PermissionError, IsADirectoryError."""

import errno
import os

import pytest

import twcodec


def check_io_error(error, builtin, subclass, code):
    """`error` is all of: the builtin, an OSError, twcodec.Error, twcodec.IoError, `subclass`."""
    assert isinstance(error, builtin)
    assert isinstance(error, OSError)
    assert isinstance(error, twcodec.Error) and isinstance(error, twcodec.IoError)
    assert type(error) is subclass
    assert (error.errno, error.kind) == (code, "io")
    assert error.strerror == os.strerror(code)
    # str() is the library's message only, not OSError's "[Errno 2] ..." form.
    assert not str(error).startswith("[Errno")


def test_classes():
    for name, builtin in [
        ("NotFoundError", FileNotFoundError),
        ("PermissionDeniedError", PermissionError),
        ("IsDirectoryError", IsADirectoryError),
    ]:
        cls = getattr(twcodec, name)
        assert cls.__module__ == "twcodec" and cls.__name__ == name
        assert issubclass(cls, twcodec.IoError) and issubclass(cls, builtin)
        assert issubclass(cls, twcodec.Error) and issubclass(cls, ValueError)
        assert cls.__doc__


def test_missing_file(tmp_path):
    missing = tmp_path / "missing.map"
    with pytest.raises(FileNotFoundError) as error:
        twcodec.Map.load(missing)
    check_io_error(error.value, FileNotFoundError, twcodec.NotFoundError, errno.ENOENT)
    assert error.value.filename == str(missing) == error.value.path
    assert str(error.value) == f"{missing}: cannot read: No such file or directory (os error 2)"
    # Caught as any of its classes.
    for cls in (OSError, twcodec.Error, twcodec.IoError, twcodec.NotFoundError, ValueError):
        with pytest.raises(cls):
            twcodec.Map.load(missing)
    try:
        twcodec.Map.load(str(missing))
    except OSError as caught:
        assert caught.errno == errno.ENOENT
    with pytest.raises(FileNotFoundError):
        twcodec.Datafile.open(missing)
    with pytest.raises(FileNotFoundError):
        twcodec.Demo.open(missing)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file"
)
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.map"
    path.write_bytes(twcodec.sample())
    path.chmod(0)
    try:
        with pytest.raises(PermissionError) as error:
            twcodec.Map.load(path)
    finally:
        path.chmod(0o644)
    check_io_error(error.value, PermissionError, twcodec.PermissionDeniedError, errno.EACCES)
    assert error.value.filename == str(path)
    assert str(error.value) == f"{path}: cannot read: Permission denied (os error 13)"


def test_directory(tmp_path):
    with pytest.raises(IsADirectoryError) as error:
        twcodec.Map.load(tmp_path)
    check_io_error(error.value, IsADirectoryError, twcodec.IsDirectoryError, errno.EISDIR)
    assert str(error.value) == f"cannot read {tmp_path}: it is a directory, not a regular file"
    with pytest.raises(IsADirectoryError) as error:
        twcodec.Map.sample().save(tmp_path)
    check_io_error(error.value, IsADirectoryError, twcodec.IsDirectoryError, errno.EISDIR)
    assert str(error.value) == f"cannot write {tmp_path}: it is a directory"


def test_save_into_a_missing_directory(tmp_path):
    path = tmp_path / "no" / "such" / "dir" / "out.map"
    with pytest.raises(FileNotFoundError) as error:
        twcodec.Map.sample().save(path)
    check_io_error(error.value, FileNotFoundError, twcodec.NotFoundError, errno.ENOENT)
    assert str(error.value) == (
        f"cannot write {path}: the directory {path.parent} does not exist"
    )
    assert not (tmp_path / "no").exists()


def test_other_errors_are_not_os_errors():
    with pytest.raises(twcodec.Error) as error:
        twcodec.Map.parse(twcodec.sample()[:100])
    assert not isinstance(error.value, OSError)
    assert error.value.kind == "malformed"
