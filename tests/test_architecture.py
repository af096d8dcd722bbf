"""Every import of every module follows the layers of docs/architecture.md (read from there): the
page names every module, each with its layer and the third-party packages it may import;
relative imports are checked like absolute ones; no modules import each other in a loop. And
no function takes more parameters than the bound (eight; twelve in the compiled kernel)."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Collection, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "src" / "callbreak"
PAGE = ROOT / "docs" / "architecture.md"
ROW = re.compile(r"^\|\s*(\d+)\s*\|(.*)\|(.*)\|\s*$")


def read_layers(text: str) -> dict[str, tuple[int, frozenset[str]]]:
    """Layer and allowed third-party packages by module name, from the page's table."""
    layers: dict[str, tuple[int, frozenset[str]]] = {}
    for line in text.splitlines():
        match = ROW.match(line)
        if not match:
            continue
        third = {word.strip() for word in match[3].split(",")} - {"none", ""}
        for name in re.findall(r"`([\w.]+)`", match[2]):
            assert name not in layers, f"{name} is in two rows of docs/architecture.md"
            layers[name] = (int(match[1]), frozenset(third))
    return layers


LAYERS = read_layers(PAGE.read_text())


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}
PACKAGES = {module_name(path) for path in PACKAGE.rglob("__init__.py")}


def short(module: str) -> str:
    """A module as the page names it: without ``callbreak.``; the package itself is
    ``callbreak``."""
    return module if module == "callbreak" else module.removeprefix("callbreak.")


def home(module: str) -> str:
    """The package a module is in (a package's ``__init__`` is in the package itself)."""
    return module if module in PACKAGES else module.rpartition(".")[0]


def imports(
    module: str, path: Path, known: Collection[str] = frozenset(MODULES)
) -> list[tuple[int, str]]:
    """Every module ``path`` (the source of ``module``) imports, at any depth of the code (lazy
    imports and those only for type checking included), relative imports made absolute;
    ``known``: the package's modules."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = home(module).split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.append((node.lineno, submodule if submodule in known else base))
    return found


def place(module: str) -> tuple[int, frozenset[str]]:
    """The layer of ``module`` and the third-party packages its row allows."""
    name = short(module)
    assert name in LAYERS, f"{name} is in no row of docs/architecture.md"
    return LAYERS[name]


def problems(module: str, path: Path) -> list[str]:
    """The imports of ``module`` (its source at ``path``) that break the layers."""
    layer, allowed = place(module)
    found = []
    for line, target in imports(module, path):
        top = target.split(".")[0]
        if top == "callbreak":
            if target not in MODULES:
                found.append(f"line {line}: {target} is no module of the package")
                continue
            other_layer, _ = place(target)
            same_package = home(target) == home(module) and home(module) != "callbreak"
            if other_layer > layer or (other_layer == layer and not same_package):
                found.append(f"line {line}: {target} (layer {other_layer})")
        elif top not in sys.stdlib_module_names and top != "__future__" and top not in allowed:
            found.append(f"line {line}: {target} is not allowed in {short(module)}'s row")
    return found


def loops(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other in a loop (Tarjan's strongly connected
    components of more than one module, or a module that imports itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                other = stack.pop()
                group.append(other)
                if other == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Which of ``modules`` each imports."""
    known = frozenset(MODULES) | frozenset(modules)
    return {
        module: {target for _, target in imports(module, path, known) if target in modules}
        for module, path in modules.items()
    }


def test_the_page_has_the_layers() -> None:
    assert LAYERS["cards"][0] < LAYERS["players"][0] < LAYERS["seating"][0] < LAYERS["cli"][0]


def unnamed(layers: Mapping[str, object]) -> tuple[list[str], list[str]]:
    """The modules the page's table leaves out, and the names in it of no module."""
    names = {short(module) for module in MODULES}
    return sorted(names - set(layers)), sorted(set(layers) - names)


def test_the_page_names_every_module_and_no_other() -> None:
    assert unnamed(LAYERS) == ([], [])


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_go_down(module: str) -> None:
    assert problems(module, MODULES[module]) == []


def test_no_modules_import_each_other_in_a_loop() -> None:
    assert loops(import_graph(MODULES)) == []


def test_the_check_catches_upward_sideways_foreign_and_relative_imports(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import numpy\n"
        "def f():\n"
        "    from callbreak.seating import play_match\n"
        "    from callbreak import spec\n"
    )
    assert len(problems("callbreak.rules", bad)) == 2  # numpy, and a lazy upward import
    bad.write_text("from callbreak.web import tables\n")
    assert len(problems("callbreak.arena", bad)) == 1  # sideways between two apps
    assert problems("callbreak.web.app", bad) == []  # inside its own package
    # Third-party packages per module, not per layer: redis is the Redis backend's only.
    bad.write_text("import redis\n")
    assert problems("callbreak.web.redis_backend", bad) == []
    assert len(problems("callbreak.web.rooms", bad)) == 1
    assert len(problems("callbreak.arena", bad)) == 1
    # A relative import is checked as the absolute import it stands for.
    bad.write_text("from ..web import tables\nfrom . import kernel\nfrom .kernel import legal\n")
    assert problems("callbreak.players.expert", bad) == ["line 1: callbreak.web.tables (layer 9)"]


def test_the_check_catches_a_module_the_page_leaves_out() -> None:
    text = PAGE.read_text()
    assert "`web.hub`, " in text
    assert unnamed(read_layers(text.replace("`web.hub`, ", ""))) == (["web.hub"], [])


def test_the_check_catches_a_loop(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("from callbreak.web import b\n")
    (tmp_path / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from callbreak.web import a\n"
    )
    (tmp_path / "c.py").write_text("from . import a\n")
    graph = import_graph({f"callbreak.web.{n}": tmp_path / f"{n}.py" for n in "abc"})
    assert graph["callbreak.web.c"] == {"callbreak.web.a"}
    assert loops(graph) == [["callbreak.web.a", "callbreak.web.b"]]


# --- how many parameters a function takes ---------------------------------------------------

MOST_PARAMETERS = 8
"""No function in the package takes more: more is a value waiting to be named (a dataclass of
options, a named tuple of a position)."""
MOST_KERNEL_PARAMETERS = 12
"""The compiled kernel's bound: numba takes named tuples, but its hot loops pass a few arrays
and scalars beside them rather than build a tuple per card."""
KERNEL = "players.kernel"


def parameter_count(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> int:
    """Positional (positional-only included) and keyword-only parameters, ``self`` or ``cls``
    first not counted; ``*args`` and ``**kwargs`` count one each."""
    arguments = function.args
    names = [arg.arg for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names) + (arguments.vararg is not None) + (arguments.kwarg is not None)


def too_many_parameters(module: str, source: str) -> list[str]:
    """The functions (lambdas and nested ones too) of ``source`` over their module's bound."""
    bound = MOST_KERNEL_PARAMETERS if short(module) == KERNEL else MOST_PARAMETERS
    return [
        f"{module}.{getattr(node, 'name', 'lambda')} (line {node.lineno}): "
        f"{parameter_count(node)} parameters"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        and parameter_count(node) > bound
    ]


def test_no_function_takes_more_than_eight_parameters_nor_twelve_in_the_kernel() -> None:
    """Every function, method and lambda in src/callbreak, nested ones too, counted by
    ``parameter_count``: positional and keyword-only parameters, not ``self``/``cls``, and
    ``*args``/``**kwargs`` one each. At most eight, at most twelve in players/kernel.py."""
    found = [
        problem
        for module, path in sorted(MODULES.items())
        for problem in too_many_parameters(module, path.read_text())
    ]
    assert found == []


def test_the_parameter_count_reads_every_kind_of_parameter() -> None:
    source = (
        "class A:\n"
        "    def method(self, a, b, /, c, d=1, *rest, e, f=2, **more): pass\n"
        "def nine(a, b, c, d, e, f, g, h, i): pass\n"
        "def eight(a, b, c, d, e, f, g, *, h): pass\n"
        "twelve = lambda a, b, c, d, e, f, g, h, i, j, k, l: 0\n"
    )
    counts = {
        getattr(node, "name", "lambda"): parameter_count(node)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.Lambda)
    }
    assert counts == {"method": 8, "nine": 9, "eight": 8, "lambda": 12}
    assert too_many_parameters("callbreak.arena", source) == [
        "callbreak.arena.nine (line 3): 9 parameters",
        "callbreak.arena.lambda (line 5): 12 parameters",
    ]
    assert too_many_parameters("callbreak.players.kernel", source) == []
