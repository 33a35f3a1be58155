"""Target and node ids, and the one mapping from an id to its directory and Lean module.

Foundation ruling 3: target ids match ``[a-z0-9-]+``; node ids are paths under the target.
The root is ``root``; a hole is ``<parent>--h<k>``, numbered per node and never reused;
a revision is ``<id>@v<n>`` (D-8). Variants, speculative cruxes and the tutorial node take
a named first segment (``tutorial``, ``variant-upper-bound``). Nothing else in the code base
builds a node's path or module name.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from pathlib import PurePosixPath

from network.errors import LemmataError, define

define("bad-target-id", None, 422, "A target id does not match [a-z0-9]+(-[a-z0-9]+)*.",
       "Use lowercase letters, digits and single hyphens, at most 64 characters.")
define("bad-node-id", None, 422,
       "A node id is not root, a named first segment, <parent>--h<k> or <id>@v<n>.",
       "Use the node id grammar of graph/AGENTS.md.")
define("pseudonym-invalid", None, 422,
       "A pseudonym is not 1-39 ASCII letters, digits, '_', '.', '-' starting with a letter "
       "or digit.",
       "Choose a pseudonym matching [A-Za-z0-9][A-Za-z0-9_.-]{0,38}.")

TARGET_ID_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_FIRST = r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
_REV = r"(?:@v[1-9][0-9]*)?"
NODE_ID_RE = re.compile(rf"{_FIRST}{_REV}(?:--h[1-9][0-9]*{_REV})*")
MAX_ID_LEN = 200
ROOT = "root"
PSEUDONYM_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,38}")
"""A ledger identity's pseudonym (D-19): the service's, the forge's and the record's."""

_LEAN_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")
_LEAN_KEYWORDS = frozenset([
    "at", "by", "do", "else", "end", "fun", "have", "if", "in", "let", "match", "mut", "open",
    "section", "namespace", "then", "theorem", "where", "with", "from", "show", "import",
    "variable", "universe", "instance", "class", "structure", "def", "example", "lemma", "abbrev",
    "axiom", "inductive", "deriving", "calc",
])


def check_target_id(target: str) -> str:
    """Return ``target`` if it is a valid target id.

    Raises:
        LemmataError: ``bad-target-id``.
    """
    if len(target) > 64 or not TARGET_ID_RE.fullmatch(target):
        raise LemmataError("bad-target-id", f"{target!r} is not a target id")
    return target


def check_node_id(node: str) -> str:
    """Return ``node`` if it is a valid node id (ruling 3).

    Raises:
        LemmataError: ``bad-node-id``.
    """
    if len(node) > MAX_ID_LEN or not NODE_ID_RE.fullmatch(node):
        raise LemmataError("bad-node-id", f"{node!r} is not a node id")
    return node


@dataclass(frozen=True, order=True)
class NodeRef:
    """A node of a target: the pair every derivation keys on.

    Raises:
        LemmataError: ``bad-target-id`` or ``bad-node-id`` on construction.
    """

    target: str
    node: str

    def __post_init__(self) -> None:
        check_target_id(self.target)
        check_node_id(self.node)

    def __str__(self) -> str:
        return f"{self.target}/{self.node}"

    @property
    def dir(self) -> PurePosixPath:
        """The node's directory, relative to the graph root."""
        return node_dir(self.target, self.node)


def target_dir(target: str) -> PurePosixPath:
    """``targets/<target>`` relative to the graph root.

    Raises:
        LemmataError: ``bad-target-id``.
    """
    return PurePosixPath("targets") / check_target_id(target)


def node_dir(target: str, node: str) -> PurePosixPath:
    """``targets/<target>/nodes/<node>`` relative to the graph root.

    Raises:
        LemmataError: ``bad-target-id`` or ``bad-node-id``.
    """
    return target_dir(target) / "nodes" / check_node_id(node)


def hole_id(parent: str, k: int) -> str:
    """The id of hole ``k`` (1-based) of ``parent``: ``<parent>--h<k>``.

    Raises:
        LemmataError: ``bad-node-id`` when ``parent`` is invalid or ``k < 1``.
    """
    if k < 1:
        raise LemmataError("bad-node-id", f"hole number {k} must be at least 1")
    return check_node_id(f"{check_node_id(parent)}--h{k}")


def parent_of(node: str) -> str | None:
    """The node a hole was cut from, or None for a first-segment node.

    ``root--h2@v3`` → ``root``; ``root@v2--h1--h3`` → ``root@v2--h1``.
    """
    check_node_id(node)
    head, sep, _ = node.rpartition("--h")
    return head if sep else None


def revision_base(node: str) -> tuple[str, int]:
    """Split a trailing revision suffix: ``root--h1@v3`` → (``root--h1``, 3); no suffix → 1."""
    check_node_id(node)
    m = re.fullmatch(r"(.+)@v([1-9][0-9]*)", node)
    return (m.group(1), int(m.group(2))) if m else (node, 1)


def lean_component(name: str) -> str:
    """One Lean name component: ``name`` itself when it is an identifier, else «name».

    Raises:
        LemmataError: ``bad-node-id`` when the name contains « or » (never valid here).
    """
    if "«" in name or "»" in name:
        raise LemmataError("bad-node-id", f"{name!r} cannot be a Lean name component")
    if _LEAN_IDENT_RE.fullmatch(name) and name not in _LEAN_KEYWORDS:
        return name
    return f"«{name}»"


def module_name(target: str, node: str, file_stem: str) -> str:
    """The Lean module of one node file: ``Lemmata.«erdos-straus».root.Statement``.

    Args:
        target: target id.
        node: node id.
        file_stem: the file's name without ``.lean`` (Statement, Proof, Witness, ...).

    Raises:
        LemmataError: ``bad-target-id`` or ``bad-node-id``.
    """
    check_target_id(target)
    check_node_id(node)
    return ".".join(["Lemmata", lean_component(target), lean_component(node),
                     lean_component(file_stem)])


def module_path(target: str, node: str, file_stem: str) -> PurePosixPath:
    """Where lake expects that module's source: ``Lemmata/erdos-straus/root/Statement.lean``.

    Raises:
        LemmataError: ``bad-target-id`` or ``bad-node-id``.
    """
    check_target_id(target)
    check_node_id(node)
    return PurePosixPath("Lemmata") / target / node / f"{file_stem}.lean"


def defs_module_name(target: str, stem: str) -> str:
    """The Lean module of a definition file ``targets/<t>/defs/<stem>.lean``.

    Raises:
        LemmataError: ``bad-target-id``.
    """
    check_target_id(target)
    return ".".join(["Lemmata", lean_component(target), "Defs", lean_component(stem)])


def review_module_name(target: str, review_path: str) -> str:
    """The Lean module of a review's candidate or exhibit (D-9 v3.39): for
    ``targets/<t>/review/candidates/<stem>.lean`` (or its ``.yaml`` record),
    ``Lemmata.<t>.Review.Candidates.«<stem>»``; exhibits under ``Review.Exhibits``. A
    node id is lower case, so ``Review`` never meets a node's module.

    Raises:
        LemmataError: ``bad-target-id``; ``bad-node-id`` when the path is no candidate or
            exhibit of ``target``'s review.
    """
    folder, stem = _review_parts(target, review_path)
    return ".".join(["Lemmata", lean_component(target), "Review", folder.capitalize(),
                     lean_component(stem)])


def review_module_path(target: str, review_path: str) -> PurePosixPath:
    """Where lake expects that module's source: ``Lemmata/<t>/Review/Candidates/<stem>.lean``.

    Raises:
        LemmataError: as :func:`review_module_name`.
    """
    folder, stem = _review_parts(target, review_path)
    return PurePosixPath("Lemmata") / target / "Review" / folder.capitalize() / f"{stem}.lean"


def review_probe_module_name(target: str, exhibit_path: str, folder: str = "Probes") -> str:
    """The module of a statement the gate writes for a probe exhibit (D-9 v3.39):
    ``Lemmata.<t>.Review.<folder>.«<stem>»`` for ``targets/<t>/review/exhibits/<stem>.yaml``,
    ``folder`` ``Probes`` (the probe's statement) or ``Claims`` (the candidate's claim
    applied to its own predicates).

    Raises:
        LemmataError: as :func:`review_module_name`; ``bad-node-id`` for a path that is no
            exhibit, or another folder.
    """
    kind, stem = _review_parts(target, exhibit_path)
    if kind != "exhibits" or folder not in ("Probes", "Claims"):
        raise LemmataError("bad-node-id", f"{exhibit_path!r} is no exhibit")
    return ".".join(["Lemmata", lean_component(target), "Review", folder,
                     lean_component(stem)])


def review_probe_module_path(target: str, exhibit_path: str,
                             folder: str = "Probes") -> PurePosixPath:
    """Where lake expects that module: ``Lemmata/<t>/Review/<folder>/<stem>.lean``.

    Raises:
        LemmataError: as :func:`review_probe_module_name`.
    """
    review_probe_module_name(target, exhibit_path, folder)
    return PurePosixPath("Lemmata") / target / "Review" / folder / (
        f"{_review_parts(target, exhibit_path)[1]}.lean")


def _review_parts(target: str, review_path: str) -> tuple[str, str]:
    check_target_id(target)
    parts = review_path.split("/")
    if (len(parts) != 5 or parts[:3] != ["targets", target, "review"]
            or parts[3] not in ("candidates", "exhibits")
            or not _REVIEW_STEM_RE.fullmatch(parts[4])):
        raise LemmataError("bad-node-id", f"{review_path!r} is no candidate or exhibit of "
                           f"{target}'s review")
    return parts[3], parts[4].rsplit(".", 1)[0]


_REVIEW_STEM_RE = re.compile(r"[0-9]{8}T[0-9]{6}Z(?:\.[0-9a-f]{8})?-[A-Za-z0-9][A-Za-z0-9_.-]{0,38}"
                             r"\.(?:yaml|lean)")

SUBMISSION_ID_RE = re.compile(r"sub-[0-9a-f]{20}")
"""The one form of a submission id on every path (issue 35, item 7): ``sub-`` and 20 hex
digits, for proofs, record writes and plain-git pushes alike."""


def new_submission_id() -> str:
    """A fresh submission id, ``sub-`` and 20 random hex digits (:data:`SUBMISSION_ID_RE`;
    D-35: every submission becomes a pull request named by it)."""
    return "sub-" + secrets.token_hex(10)
