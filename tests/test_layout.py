"""The package's architecture, as the Layout section of docs/architecture.md states it: folders
by role, dependencies in one direction, no import cycle, no oversized module."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO

PACKAGE = REPO / "compat"
MAX_LINES = 600  # lines as ruff formats them (110 columns)

# what each part of the package may import from compat (besides itself); the order of
# docs/architecture.md's Layout: core knows no framework, adapters no records, results no harness,
# the judge (comparison rules) only core
ALLOWED = {
    "core": set(),
    "devices": {"core"},
    "adapters": {"core", "devices"},
    "judge": {"core"},
    "specs": {"core"},
    "results": {"core"},
    "dashboard": {"core", "judge", "results"},  # judge: the oracle's bounds, for the accuracy page
    "harness": {"core", "devices", "adapters", "judge", "results", "specs"},
    "cli": {"core", "devices", "adapters", "judge", "results", "specs", "harness", "dashboard"},
    "__main__": {"cli"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """compat modules ``path`` imports, at module level or inside functions."""
    found = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in found if name == "compat" or name.startswith("compat.")}


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {
        name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()
    }


def part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "compat"


def test_no_import_cycle():
    edges = graph()
    # a package's __init__ importing its own submodules is how it re-exports them, not a cycle of roles
    edges = {
        m: {d for d in deps if not (m.count(".") < d.count(".") and d.startswith(m + "."))}
        for m, deps in edges.items()
    }
    state: dict[str, int] = {}
    cycles = []

    def visit(module, trail):
        state[module] = 1
        for dependency in sorted(edges[module]):
            if state.get(dependency) == 1:
                cycles.append(trail[trail.index(dependency) :] + [dependency])
            elif dependency not in state:
                visit(dependency, trail + [dependency])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_each_part_imports_only_what_the_layout_allows():
    wrong = []
    for module, dependencies in graph().items():
        mine = part(module)
        if mine == "compat":
            continue
        for dependency in dependencies:
            theirs = part(dependency)
            if theirs not in (mine, "compat") and theirs not in ALLOWED[mine]:
                wrong.append(f"{module} imports {dependency}")
    assert not wrong, "\n".join(sorted(wrong))


def test_no_module_over_the_size_limit():
    sizes = {module_name(p): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    assert not {m: n for m, n in sizes.items() if n > MAX_LINES}


def test_the_readme_layout_names_every_part():  # the Layout moved from the README to docs/
    page = (REPO / "docs" / "architecture.md").read_text()
    layout = page.split("## Layout", 1)[1].split("\n## ", 1)[0]
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert all(f"compat/{folder}/" in layout for folder in folders), (folders, layout)


def shares_module_fixtures(tree: ast.Module) -> bool:
    """A fixture of scope "module" (a module's child runs, its dashboard, ...)."""
    return any(
        isinstance(d, ast.Call)
        and any(k.arg == "scope" and getattr(k.value, "value", None) == "module" for k in d.keywords)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        for d in node.decorator_list
    )


def test_a_test_module_sharing_fixtures_is_one_xdist_group():
    """Under pytest-xdist a module's tests are spread over the workers, each of which makes
    the module's fixtures anew (a child run twice over); compat's scheduler keeps a group together."""
    loose = [
        path.name
        for path in sorted((REPO / "tests").glob("test_*.py"))
        if shares_module_fixtures(tree := ast.parse(path.read_text()))
        and "xdist_group" not in ast.unparse(tree)
    ]
    assert not loose, f"give these modules pytestmark = pytest.mark.xdist_group(...): {loose}"


# names that mean one thing in the whole package: a second class of the same name is a clash
ONE_DEFINITION = ("Divergence", "Bound")


def test_each_name_of_one_meaning_is_one_class():
    defined: dict[str, list[str]] = {name: [] for name in ONE_DEFINITION}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name in defined:
                defined[node.name].append(module_name(path))
    assert all(len(where) <= 1 for where in defined.values()), defined


CHECKER_LINES = 150  # what specs call, and nothing else: judging, calling and keeping live elsewhere
PUBLIC_METHODS = 15  # a class with more serves several audiences


def classes_of(folder: Path):
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                yield module_name(path), node


def test_the_checker_stays_thin():
    [checker] = [node for _, node in classes_of(PACKAGE / "harness") if node.name == "Checker"]
    assert checker.end_lineno - checker.lineno + 1 <= CHECKER_LINES


def test_no_harness_class_has_too_many_public_methods():
    crowded = {}
    for module, node in classes_of(PACKAGE / "harness"):
        public = [
            f.name
            for f in node.body
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and not f.name.startswith("_")
        ]
        if len(public) > PUBLIC_METHODS:
            crowded[f"{module}.{node.name}"] = len(public)
    assert not crowded, crowded
