"""The stubs (`__init__.pyi`) name every public class, function and method, and no other."""

import ast
from pathlib import Path

import twcodec
import twcodec._twcodec as native

STUBS = Path(twcodec.__file__).with_name("__init__.pyi")


def stubbed():
    tree = ast.parse(STUBS.read_text())
    names, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
            classes[node.name] = {
                n.name for n in node.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")
            } | {
                n.target.id for n in node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
            }
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names - {"_Path", "_Form", "_Protocol", "_Item"}, classes


def test_stubs_match_the_module():
    names, classes = stubbed()
    assert names == set(twcodec.__all__)
    assert set(twcodec.__all__) == {n for n in dir(native) if not n.startswith("_")} | {"__version__"}
    for name, members in classes.items():
        cls = getattr(native, name)
        if issubclass(cls, BaseException):
            continue
        public = {m for m in dir(cls) if not m.startswith("_")}
        assert members == public, name
