"""Every import of every module follows the layers of docs/architecture.md (read from there)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "src" / "callbreak"
PAGE = ROOT / "docs" / "architecture.md"
ROW = re.compile(r"^\|\s*(\d+)\s*\|(.*)\|(.*)\|\s*$")


def read_layers() -> dict[str, tuple[int, frozenset[str]]]:
    """Layer and allowed third-party packages by name, from the page's table."""
    layers: dict[str, tuple[int, frozenset[str]]] = {}
    for line in PAGE.read_text().splitlines():
        match = ROW.match(line)
        if not match:
            continue
        third = {word.strip() for word in match[3].split(",")} - {"none", ""}
        for name in re.findall(r"`([\w.]+)`", match[2]):
            layers[name] = (int(match[1]), frozenset(third))
    return layers


LAYERS = read_layers()


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def place(module: str) -> tuple[str, int, frozenset[str]]:
    """The table's name that covers ``module`` (the longest match), its layer and packages."""
    short = module.removeprefix("callbreak.") if module != "callbreak" else "callbreak"
    candidates = [name for name in LAYERS if short == name or short.startswith(name + ".")]
    assert candidates, f"{module} is in no layer of docs/architecture.md"
    name = max(candidates, key=len)
    return (name, *LAYERS[name])


def imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, at any depth of the code (lazy imports included)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.append((node.lineno, submodule if submodule in MODULES else node.module))
    return found


def test_the_page_has_the_layers() -> None:
    assert LAYERS["cards"][0] < LAYERS["players"][0] < LAYERS["seating"][0] < LAYERS["cli"][0]


def problems(module: str, path: Path) -> list[str]:
    """The imports of ``module`` (its source at ``path``) that break the layers."""
    name, layer, allowed = place(module)
    found = []
    for line, target in imports(path):
        top = target.split(".")[0]
        if top == "callbreak":
            other, other_layer, _ = place(target)
            package = target.rpartition(".")[0]
            same_package = other == name or (
                package == module.rpartition(".")[0] and package != "callbreak"
            )
            if other_layer > layer or (other_layer == layer and not same_package):
                found.append(f"line {line}: {target} (layer {other_layer}, {other})")
        elif top not in sys.stdlib_module_names and top != "__future__" and top not in allowed:
            found.append(f"line {line}: {target} is not allowed in layer {layer}")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_go_down(module: str) -> None:
    assert problems(module, MODULES[module]) == []


def test_the_check_catches_upward_sideways_and_foreign_imports(tmp_path: Path) -> None:
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
