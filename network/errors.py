"""The error catalog and the one error type for expected failures.

Every refusal the network makes, from the record loader, the gate, the service or the CLI,
names a code from :data:`CATALOG`. The catalog is published as ``errors.json`` (a product,
D-25/D-28) so an agent can look up what a code means and what to do about it.

A module defines the codes it raises with :func:`define` at import time, or imports a
module that does: never a code only a sibling defines, which would exist only if that
sibling happened to be imported first (issue 41; ``tests/test_catalog_defined_before_raised.py``
imports each module alone and holds it).

Expected failures raise :class:`LemmataError`. Gate steps do not raise: they return a
``StepResult`` whose ``code`` is a catalog code (STYLE.md rule 1 and 5).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ErrorCode:
    """One entry of the error catalog.

    Attributes:
        code: the kebab-case name, stable forever once published.
        step: the D-4 gate step that emits it (1-9), 0 for the bounce before the gate,
            or None when it is not a gate refusal.
        http_status: the HTTP status the service answers with.
        meaning: what happened, one sentence.
        action: what the caller should do about it, one sentence.
    """

    code: str
    step: int | None
    http_status: int
    meaning: str
    action: str


CATALOG: dict[str, ErrorCode] = {}


def define(code: str, step: int | None, http_status: int, meaning: str, action: str) -> ErrorCode:
    """Register a catalog entry; a code may be defined only once.

    Raises:
        ValueError: the code is already defined (a programming error).
    """
    if code in CATALOG:
        raise ValueError(f"error code {code!r} defined twice")
    entry = ErrorCode(code, step, http_status, meaning, action)
    CATALOG[code] = entry
    return entry


def define_once(code: str, step: int | None, http_status: int, meaning: str,
                action: str) -> ErrorCode:
    """:func:`define`, or the entry already registered under ``code`` (several modules of
    the service may name the same refusal; the first definition stands)."""
    if code in CATALOG:
        return CATALOG[code]
    return define(code, step, http_status, meaning, action)


class LemmataError(Exception):
    """An expected failure carrying a catalog code.

    Args:
        code: a key of :data:`CATALOG`.
        detail: what exactly was wrong, for the reader.
        path: the graph-relative file the problem is in, if any.
        field: the field within that file, dotted, if any.

    Raises:
        KeyError: the code is not in the catalog (a programming error).
    """

    def __init__(
        self, code: str, detail: str, *, path: str | None = None, field: str | None = None
    ) -> None:
        self.entry = CATALOG[code]
        self.code = code
        self.detail = detail
        self.path = path
        self.field = field
        where = f"{path}{':' + field if field else ''}: " if path else ""
        super().__init__(f"{code}: {where}{detail}")

    def to_dict(self) -> dict[str, Any]:
        """The JSON body used by the CLI and the service: code, detail, path, field, action."""
        return {
            "code": self.code,
            "detail": self.detail,
            "path": self.path,
            "field": self.field,
            "action": self.entry.action,
        }


@dataclass
class Problem:
    """One validation problem found while collecting (STYLE.md rule 4)."""

    code: str
    detail: str
    path: str | None = None
    field: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form: code, detail, path, field."""
        return {"code": self.code, "detail": self.detail, "path": self.path, "field": self.field}

    def __str__(self) -> str:
        where = f"{self.path}{':' + self.field if self.field else ''}: " if self.path else ""
        return f"{self.code}: {where}{self.detail}"


class ValidationFailed(LemmataError):
    """Raised once, after collecting, when a load or validation found problems.

    Attributes:
        problems: every problem found, in file order.
    """

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        first = self.problems[0] if self.problems else Problem("invalid-record", "no detail")
        super().__init__(
            "validation-failed",
            f"{len(self.problems)} problem(s); first: {first}",
        )


def register_all() -> None:
    """Import every module of the ``network`` package so each registers its codes.

    Modules define their codes at import time with :func:`define`; the published catalog
    must hold them all whichever modules the caller happened to import. Alembic's
    migration scripts are skipped (they act when imported).
    """
    import importlib
    import pkgutil

    import network

    for info in pkgutil.walk_packages(network.__path__, "network."):
        if ".migrations" in info.name:
            continue
        importlib.import_module(info.name)


def _package_modules() -> list[tuple[str, Path]]:
    """Every module :func:`register_all` imports, as (dotted name, source file), found on
    disk without importing anything: packages are folders holding ``__init__.py``."""
    import network

    out: list[tuple[str, Path]] = []
    stack = [(Path(p), "network") for p in network.__path__]
    while stack:
        folder, prefix = stack.pop()
        for entry in sorted(folder.iterdir()):
            if entry.is_dir() and (entry / "__init__.py").is_file():
                name = f"{prefix}.{entry.name}"
                if ".migrations" not in name:
                    out.append((name, entry / "__init__.py"))
                    stack.append((entry, name))
            elif entry.suffix == ".py" and entry.name != "__init__.py":
                name = f"{prefix}.{entry.stem}"
                if ".migrations" not in name:
                    out.append((name, entry))
    return out


_STATIC_CACHE: dict[tuple[str, int, int], list[tuple[ErrorCode, bool]] | None] = {}
_DEFINERS = {"define": False, "define_once": True}
_DEFINE_NAME_RE = re.compile(r"(?:^|[^A-Za-z0-9])define(?:$|[^A-Za-z0-9])")
_FIELDS = ("code", "step", "http_status", "meaning", "action")


def static_definitions(source: str) -> list[tuple[ErrorCode, bool]] | None:
    """The catalog entries a module's import would register, read from its source text.

    Only the plain form is read: module-level statements ``define(code, step, status,
    meaning, action)`` or ``define_once(...)`` whose arguments are literals, with both
    names imported from this module. Any other use of a name like ``define`` (a wrapper of
    one's own, a call inside a function or a condition, computed arguments, an attribute)
    makes the module unreadable: None is returned and the caller imports it instead.

    Args:
        source: the module's Python source.

    Returns:
        ``(entry, once)`` pairs in source order (``once`` for ``define_once``), or None
        when the module must be imported.
    """
    import ast

    if "define" not in source:
        return []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    top_calls: set[int] = set()
    entries: list[tuple[ErrorCode, bool]] = []
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in _DEFINERS):
            continue
        try:
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords
                      if k.arg is not None}
        except ValueError:
            return None
        values = dict(zip(_FIELDS, args))
        if (len(kwargs) != len(call.keywords) or len(args) > len(_FIELDS)
                or set(values) & set(kwargs)):
            return None
        values.update(kwargs)
        if set(values) != set(_FIELDS):
            return None
        entries.append((ErrorCode(**values), _DEFINERS[call.func.id]))
        top_calls.add(id(call.func))
    if _only_plain_uses(source, tree, len(top_calls)):
        return entries
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Name):
            if id(node) in top_calls:
                continue
            name = node.id
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _DEFINE_NAME_RE.search(f"{alias.name} {alias.asname or ''}") and (
                        node.module != __name__ or alias.name not in _DEFINERS
                        or alias.asname not in (None, alias.name)):
                    return None
        elif isinstance(node, ast.Import):
            name = " ".join(a.asname or a.name for a in node.names)
        if name is not None and _DEFINE_NAME_RE.search(name):
            return None
    return entries


def _only_plain_uses(source: str, tree: Any, top_calls: int) -> bool:
    """Whether every ``define`` in ``source``'s text is one of the ``top_calls``
    module-level calls' names or a name its module-level ``from network.errors import``
    lines import as they are. Any other node a walk of ``tree`` would refuse (a name, an
    attribute, a definition, an import holding ``define``) spells ``define`` in the text
    too, so the walk can be skipped. Only while no character beyond ASCII can stand in a
    name (an arrow in a comment can; a letter cannot): Python reads names after NFKC
    normalisation, so ``ｄｅｆｉｎｅ`` names ``define`` without spelling it."""
    import ast

    if any(("a" + ch).isidentifier() for ch in set(source) if not ch.isascii()):
        return False
    imported = sum(1 for stmt in tree.body if isinstance(stmt, ast.ImportFrom)
                   and stmt.module == __name__ for alias in stmt.names
                   if alias.name in _DEFINERS and alias.asname is None)
    return source.count("define") == top_calls + imported


def _module_definitions(path: Path) -> list[tuple[ErrorCode, bool]] | None:
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _STATIC_CACHE:
        _STATIC_CACHE[key] = static_definitions(path.read_text(encoding="utf-8"))
    return _STATIC_CACHE[key]


def full_catalog() -> dict[str, ErrorCode]:
    """Every code any module of the ``network`` package defines, without importing them all.

    Codes of imported modules are read from :data:`CATALOG`; a module not imported yet is
    read from its source by :func:`static_definitions`, and imported (as
    :func:`register_all` would) only when its definitions cannot be read that way. The
    result equals :data:`CATALOG` after :func:`register_all`; ``tests/test_error_catalog.py``
    holds the two equal.

    Raises:
        ValueError: a code defined twice (as importing both modules would).
    """
    import importlib
    import sys

    modules = _package_modules()
    for name, path in modules:
        if name not in sys.modules and _module_definitions(path) is None:
            importlib.import_module(name)
    found: dict[str, ErrorCode] = {}
    for name, path in modules:
        if name in sys.modules:
            continue
        for e, once in _module_definitions(path) or []:
            if e.code in found or e.code in CATALOG:
                if once:
                    continue
                raise ValueError(f"error code {e.code!r} defined twice")
            found[e.code] = e
    return {**CATALOG, **found}


def catalog_json() -> dict[str, Any]:
    """The ``errors.json`` product body: every code with its step, status, meaning, action.

    Every module's codes are included (:func:`full_catalog`), whichever modules the caller
    imported; codes are sorted so the product is byte-for-byte deterministic.

    Raises:
        ValueError: a code defined twice.
    """
    return {
        "schema": "errors/v1",
        "errors": [
            {
                "code": e.code,
                "step": e.step,
                "http_status": e.http_status,
                "meaning": e.meaning,
                "action": e.action,
            }
            for e in sorted(full_catalog().values(), key=lambda e: e.code)
        ],
    }


# --- the record (network/record) -------------------------------------------------------
define("validation-failed", None, 422, "One or more files of the graph failed validation.",
       "Read each listed problem, fix the file it names, and validate again.")
define("invalid-record", None, 422, "A record file does not match its JSON Schema.",
       "Fix the named field so the file matches the schema its `schema` field names.")
define("unknown-schema", None, 422, "A record names a schema kind or version that does not exist.",
       "Set the `schema` field to a published kind/version from schemas/.")
define("malformed-yaml", None, 422, "A YAML file could not be parsed.",
       "Fix the YAML syntax at the reported line.")
define("malformed-json", None, 422, "A JSON file could not be parsed.",
       "Fix the JSON syntax at the reported position.")
define("not-utf8", None, 422, "A text file is not valid UTF-8.",
       "Re-encode the file as UTF-8.")
define("file-too-large", None, 413, "A file exceeds the size the record accepts.",
       "Keep graph files under the published limit; put bulk data elsewhere.")
define("symlink-refused", None, 422, "The graph contains a symbolic link.",
       "Replace the link with a regular file; the record holds no links.")
define("hostile-path", None, 422,
       "A path is absolute, contains '..', a control character or a non-portable name.",
       "Use a plain relative path inside the graph.")
define("bad-id", None, 422, "A target or node id does not match the id grammar.",
       "Target ids match [a-z0-9-]+; node ids are root, <parent>--h<k> or <id>@v<n>.")
define("id-mismatch", None, 422, "A record's id field disagrees with the directory it is in.",
       "Make the id field equal to the directory name.")
define("statement-hash-mismatch", 2, 422,
       "META.yaml's statement_hash is not the SHA-256 of Statement.lean's bytes.",
       "Statements are immutable: restore Statement.lean to the bytes that were hashed.")
define("missing-file", None, 422, "A file the record requires is absent.",
       "Add the named file.")
define("dangling-reference", None, 422, "A record names a node, target or file that does not exist.",
       "Point the reference at an existing record or remove it.")
define("not-a-graph", None, 400, "The path or commit does not hold a graph repository.",
       "Pass the root of a graph (the folder holding targets/ and policy.json).")
define("git-error", None, 500, "A git operation failed.",
       "Check that the repository and commit exist; the message names the cause.")
define("products-differ", None, 409, "Committed products differ from what the record derives.",
       "Run `lemmata products GRAPH` and commit the result; never hand-edit products.")

# --- processes -------------------------------------------------------------------------
define("subprocess-timeout", None, 504, "A subprocess ran past its time limit and was killed.",
       "Retry; if it keeps happening the limit is too small for the work.")
define("subprocess-failed", None, 500, "A subprocess could not be started.",
       "Check the program is installed and on PATH.")

# --- codes the command line raises as a deeper module does ------------------------------
# Defined here, the one module both import: the command modules import their deeper
# modules inside each command, so a code defined there would be missing when the command
# raises it first (issue 41: a code is defined by its raiser or a module it imports).
define("forge-misconfigured", None, 503,
       "The service was asked to use a GitHub forge without a repository OWNER/NAME or "
       "without a token.",
       "The operator starts the service with --github-repo OWNER/NAME and sets "
       "LEMMATA_GITHUB_TOKEN in its environment.")
define("path-not-permitted", 2, 422, "A file lies outside the paths this artifact may touch.",
       "Touch only the paths graph/AGENTS.md lists for your artifact type.")
define("bad-private-key", None, 422, "A private key could not be read as an Ed25519 PEM key.",
       "Pass an unencrypted PKCS#8 PEM Ed25519 key (`lemmata` writes one with mode 0600).")
define("trusted-event-malformed", None, 422,
       "The trusted job's event is not a completed `workflow_run` of a `pull_request` gate "
       "run, or a field it needs (head SHA, repository) is missing or malformed.",
       "Run `lemmata gate trusted` only from the workflow_run workflow, with "
       "--event $GITHUB_EVENT_PATH.")
