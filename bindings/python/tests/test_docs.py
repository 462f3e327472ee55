"""`help(twcodec)` documents everything: every public class, function, method and property of
the module has a docstring (from the Rust doc comment; PyO3 leaves `__doc__` None without
one). Dunder methods are left out: Python gives slot wrappers (`__len__`, `__repr__`) its own
generic text, whatever the Rust side says."""

import twcodec._twcodec as native


def undocumented():
    missing = []

    def check(where, obj):
        if isinstance(obj, staticmethod):
            obj = obj.__func__
        if not (getattr(obj, "__doc__", None) or "").strip():
            missing.append(where)

    for name in sorted(dir(native)):
        if name.startswith("_"):
            continue
        obj = getattr(native, name)
        if not (isinstance(obj, type) or callable(obj)):
            continue  # __version__
        check(f"twcodec.{name}", obj)
        if not isinstance(obj, type) or issubclass(obj, BaseException):
            continue  # an exception's members are BaseException's and OSError's
        for member, attr in sorted(vars(obj).items()):
            if not member.startswith("_"):
                check(f"twcodec.{name}.{member}", attr)
    return missing


def test_everything_public_has_a_docstring():
    missing = undocumented()
    assert not missing, "no docstring (add a /// doc comment in bindings/python/src):\n" + "\n".join(missing)
