"""The stubs (`__init__.pyi`) are exact: they name every public class, function, method and
property of the module and no other, with the bases and parameters the runtime has.

Each check collects every difference and fails once, with one line per difference naming the
class and member (`Map.crop: missing from the stubs`), so that a new method shows at once what
to add where. The runtime's parameters come from PyO3's `__text_signature__`
(`inspect.signature`); a stub with `@overload`s is not compared parameter by parameter.
"""

import ast
import inspect
from pathlib import Path

import twcodec
import twcodec._twcodec as native
from conftest import REPO

# The tree's stubs, which the installed package copies; the installed ones outside a checkout.
STUBS = REPO / "bindings" / "python" / "python" / "twcodec" / "__init__.pyi"
if not STUBS.is_file():
    STUBS = Path(twcodec.__file__).with_name("__init__.pyi")


def private(name):
    """`_Path`, `_Form`: the stubs' own aliases, and `_twcodec`; dunders are not private."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def dunder(name):
    return name.startswith("__") and name.endswith("__")


def decorators(node):
    return {
        d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else None
        for d in node.decorator_list
    }


class StubClass:
    def __init__(self, node):
        # Typing-only bases (`Iterator[Tick]`: the stubs say the class is an iterator) are
        # not classes of the runtime.
        self.bases = [ast.unparse(base) for base in node.bases if not isinstance(base, ast.Subscript)]
        # name -> "property" | "method" | "staticmethod" | "classmethod"
        self.members = {}
        # name -> the FunctionDef, None when it is overloaded
        self.functions = {}
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                self.members[item.target.id] = "property"
            elif isinstance(item, ast.FunctionDef):
                found = decorators(item)
                if "setter" in found or "deleter" in found:
                    continue
                if "property" in found:
                    kind = "property"
                elif "staticmethod" in found:
                    kind = "staticmethod"
                elif "classmethod" in found:
                    kind = "classmethod"
                else:
                    kind = "method"
                self.members[item.name] = kind
                overloaded = "overload" in found or item.name in self.functions
                self.functions[item.name] = None if overloaded else item


def read_stubs():
    """Module-level names (name -> FunctionDef, StubClass or None) of `__init__.pyi`."""
    tree = ast.parse(STUBS.read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = StubClass(node)
        elif isinstance(node, ast.FunctionDef):
            overloaded = "overload" in decorators(node) or node.name in names
            names[node.name] = None if overloaded else node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = None
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = None
    return {name: value for name, value in names.items() if not private(name)}


def runtime_kind(cls, name):
    """How `cls` has `name`: "property", "staticmethod", "classmethod" or "method"."""
    for klass in cls.__mro__:
        if name in vars(klass):
            attr = vars(klass)[name]
            break
    else:
        return None
    if isinstance(attr, staticmethod):
        return "staticmethod"
    if isinstance(attr, classmethod) or type(attr).__name__ == "classmethod_descriptor":
        return "classmethod"
    if inspect.isdatadescriptor(attr) and not callable(attr):
        return "property"
    return "method" if callable(attr) else "property"


def parameters(signature, drop_first):
    """(name, kind, has a default) of each parameter; positional-only counts as positional
    (PyO3 marks `self` positional-only, stubs do not), `self`/`cls` left out."""
    result = []
    for param in list(signature.parameters.values())[1 if drop_first else 0 :]:
        kind = param.kind
        if kind is inspect.Parameter.POSITIONAL_ONLY:
            kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        result.append((param.name, kind.description, param.default is not inspect.Parameter.empty))
    return result


def stub_parameters(node, drop_first):
    args = node.args
    params = []
    positional = args.posonlyargs + args.args
    first_default = len(positional) - len(args.defaults)
    for i, arg in enumerate(positional):
        params.append((arg.arg, "positional or keyword", i >= first_default))
    if args.vararg:
        params.append((args.vararg.arg, "variadic positional", False))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        params.append((arg.arg, "keyword-only", default is not None))
    if args.kwarg:
        params.append((args.kwarg.arg, "variadic keyword", False))
    return params[1 if drop_first else 0 :]


def runtime_signature(obj):
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def compare_parameters(where, runtime_obj, node, drop_first, problems, stub_drop=None):
    signature = runtime_signature(runtime_obj)
    if node is None or signature is None:
        return
    have = parameters(signature, drop_first)
    stub = stub_parameters(node, drop_first if stub_drop is None else stub_drop)
    if have != stub:
        problems.append(f"{where}: parameters differ: runtime ({show(have)}), stubs ({show(stub)})")


def show(params):
    """Parameters as Python writes them: `path, level=..., *, strict=...`."""
    parts, star = [], False
    for name, kind, default in params:
        if kind == "keyword-only" and not star:
            parts.append("*")
            star = True
        prefix = {"variadic positional": "*", "variadic keyword": "**"}.get(kind, "")
        star = star or kind == "variadic positional"
        parts.append(f"{prefix}{name}{'=...' if default else ''}")
    return ", ".join(parts)


def runtime_names():
    return {name for name in dir(native) if not private(name) and not (dunder(name) and name != "__version__")}


def test_module_names_match():
    stubs = read_stubs()
    runtime = runtime_names()
    problems = [f"twcodec.{n}: missing from the stubs" for n in sorted(runtime - set(stubs))]
    problems += [f"twcodec.{n}: in the stubs but not at runtime" for n in sorted(set(stubs) - runtime)]
    exported = set(twcodec.__all__)
    problems += [f"twcodec.{n}: not in twcodec.__all__" for n in sorted(runtime - exported)]
    problems += [f"twcodec.{n}: in twcodec.__all__ but not at runtime" for n in sorted(exported - runtime)]
    problems += [f"twcodec.{n}: in twcodec.__all__ but not importable" for n in sorted(exported) if not hasattr(twcodec, n)]
    assert not problems, "\n".join(problems)


def test_functions_match():
    problems = []
    for name, node in read_stubs().items():
        obj = getattr(native, name, None)
        if isinstance(node, ast.FunctionDef) and callable(obj):
            compare_parameters(f"twcodec.{name}", obj, node, False, problems)
        elif isinstance(node, ast.FunctionDef) and obj is not None:
            problems.append(f"twcodec.{name}: a function in the stubs, not callable at runtime")
    assert not problems, "\n".join(problems)


def test_classes_match():
    problems = []
    for name, stub in read_stubs().items():
        cls = getattr(native, name, None)
        if not isinstance(stub, StubClass) or not isinstance(cls, type):
            if isinstance(stub, StubClass) and cls is not None:
                problems.append(f"twcodec.{name}: a class in the stubs, not at runtime")
            continue
        runtime_bases = [b.__name__ for b in cls.__bases__ if b is not object]
        if runtime_bases != stub.bases:
            problems.append(f"{name}: bases differ: runtime {runtime_bases}, stubs {stub.bases}")
        exception = issubclass(cls, BaseException)
        # Exceptions: their attributes are set per instance (kind, offset, path, errno); only
        # what the stubs name must exist.
        public = set() if exception else {m for m in dir(cls) if not private(m) and not dunder(m)}
        documented = {m for m in stub.members if not dunder(m)}
        problems += [f"{name}.{m}: missing from the stubs" for m in sorted(public - documented)]
        if not exception:
            problems += [f"{name}.{m}: in the stubs but not at runtime" for m in sorted(documented - public)]
        for member, kind in sorted(stub.members.items()):
            if exception and member in {"kind", "offset", "path"}:
                continue
            have = runtime_kind(cls, member)
            if have is None:
                if dunder(member):
                    problems.append(f"{name}.{member}: in the stubs but not at runtime")
                continue
            if have != kind and not (dunder(member) and {have, kind} <= {"method", "staticmethod"}):
                problems.append(f"{name}.{member}: a {kind} in the stubs, a {have} at runtime")
                continue
            if kind == "property":
                continue
            node = stub.functions.get(member)
            if member in ("__init__", "__new__"):
                # The class's own signature has no `self`; the stub's `__init__` has.
                compare_parameters(f"{name}.{member}", cls, node, False, problems, stub_drop=True)
            else:
                compare_parameters(f"{name}.{member}", getattr(cls, member), node, kind != "staticmethod", problems)
    assert not problems, "\n".join(problems)
