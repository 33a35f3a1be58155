"""The one path table of a graph repository (docs/record.md, D-3, D-34; issue 9).

Every file a graph may hold matches exactly one :class:`PathRule` of :data:`PATH_TABLE`:
a template such as ``targets/<target>/nodes/<node>/attempts/<ts>-<pseudonym>-partial.lean``
whose placeholders each stand for one grammar (:data:`PLACEHOLDERS`). There is no
catch-all folder: a path no template admits has no place in the record. docs/record.md's
tables list the same templates, and ``tests/test_gate_paths.py`` holds the two equal.

Each rule also says who writes the file and, for what a pull request may add, which
artifact kind it belongs to (the gate's :class:`~network.gate.artifacts.Kind` values), and
the most bytes such a file may hold beside the policy's ``max_file_bytes``: records are
small, Lean files and annexes may use the whole policy limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

Writer = Literal["contributor", "curator", "steward", "service", "operator", "gate", "product",
                 "maintainer"]

#: the bytes a YAML/JSON record may hold, whatever the policy allows (a record is a few
#: kilobytes; a bigger one is a mistake or an attack on every later reader)
RECORD_MAX_BYTES = 262_144

#: what each placeholder of a template stands for (a regular expression, one path segment
#: or part of one)
PLACEHOLDERS: dict[str, str] = {
    "target": r"[a-z0-9]+(?:-[a-z0-9]+)*",
    "node": r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:@v[1-9][0-9]*)?(?:--h[1-9][0-9]*(?:@v[1-9][0-9]*)?)*",
    "pseudonym": r"[A-Za-z0-9][A-Za-z0-9_.-]{0,38}",
    "ts": r"[0-9]{8}T[0-9]{6}Z(?:\.[0-9a-f]{8})?",
    "date": r"[0-9]{4}-[0-9]{2}-[0-9]{2}",
    "n": r"[1-9][0-9]*",
    "k": r"[1-9][0-9]*",
    "seq:06d": r"[0-9]{6}",
    "key_id": r"[a-z0-9][a-z0-9-]{0,63}",
    "id": r"[A-Za-z0-9][A-Za-z0-9@_.-]*",  # the gate's attestation_id, or a builder's
    "sha256": r"[0-9a-f]{64}",
    "hash": r"[0-9a-f]{64}",
    "Stem": r"[A-Za-z][A-Za-z0-9_]*",
    "kind": r"[a-z0-9]+(?:-[a-z0-9]+)*",
    "v": r"[1-9][0-9]*",
    "workflow": r"[a-z0-9]+(?:-[a-z0-9]+)*",
}
_PLACEHOLDER_RE = re.compile(r"<([A-Za-z_][A-Za-z0-9_]*(?::[0-9a-z]+)?)>")


@dataclass(frozen=True)
class PathRule:
    """One row of the path table.

    Attributes:
        template: the path with ``<placeholder>`` parts, exactly as docs/record.md writes it.
        writer: who writes the file (a pull request may add only ``contributor``,
            ``steward`` and ``curator`` rows, as its artifact kind allows).
        kind: the artifact kind a pull request adding it carries (a Kind value), or "".
        record: True for a YAML/JSON record (held to :data:`RECORD_MAX_BYTES`).
    """

    template: str
    writer: Writer
    kind: str = ""
    record: bool = False

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """The template as an anchored regular expression (placeholders as named groups)."""
        out, pos = [], 0
        for mt in _PLACEHOLDER_RE.finditer(self.template):
            out.append(re.escape(self.template[pos:mt.start()]))
            name = mt.group(1)
            out.append(f"(?P<{name.split(':')[0]}>{PLACEHOLDERS[name]})")
            pos = mt.end()
        out.append(re.escape(self.template[pos:]))
        return re.compile("".join(out))

    def max_bytes(self, policy_max: int) -> int:
        """The size limit for this row under a policy's ``max_file_bytes`` (bytes)."""
        return min(policy_max, RECORD_MAX_BYTES) if self.record else policy_max


_T = "targets/<target>/"
_N = _T + "nodes/<node>/"
_A = _N + "attempts/<ts>-<pseudonym>-"


def _rec(template: str, writer: Writer, kind: str = "") -> PathRule:
    return PathRule(template, writer, kind, record=True)


#: every path a graph may hold (docs/record.md, "Root of the graph", "A target", "A node")
PATH_TABLE: tuple[PathRule, ...] = (
    # root
    _rec("policy.json", "curator"),
    _rec("curators.json", "curator"),
    _rec("identities/<pseudonym>.yaml", "service"),
    _rec("names/<pseudonym>.yaml", "service"),
    _rec("keys/<key_id>.json", "operator"),
    _rec("log/merges/<seq:06d>.json", "gate"),
    _rec("attestations/<id>.json", "gate"),
    _rec("ledger/<seq:06d>-<k>.json", "gate"),
    _rec("frontier.json", "product"),
    _rec("info.json", "product"),
    _rec("errors.json", "product"),
    _rec("targets/index.json", "product"),
    _rec("schemas/<kind>/v<v>.json", "product"),
    PathRule("AGENTS.md", "maintainer"),
    PathRule("README.md", "maintainer"),
    PathRule("LICENSE", "maintainer"),
    PathRule("DCO.txt", "maintainer"),
    PathRule(".gitignore", "maintainer"),
    PathRule(".gitattributes", "maintainer"),
    PathRule(".github/workflows/<workflow>.yml", "maintainer"),
    # a target
    _rec(_T + "target.yaml", "curator"),
    _rec(_T + "gate-spec.json", "curator"),
    PathRule(_T + "defs/<Stem>.lean", "curator"),
    _rec(_T + "approaches/<ts>-<pseudonym>.yaml", "contributor", "approach"),
    _rec(_T + "status/<date>-<n>.yaml", "curator", "dormancy"),
    _rec(_T + "stewards/<pseudonym>.yaml", "curator", "steward"),
    _rec(_T + "registrations/<date>-<n>.yaml", "curator", "registration"),
    _rec(_T + "withdrawals/<ts>-<pseudonym>.yaml", "contributor", "withdrawal"),
    _rec(_T + "panel/motions/<ts>-<pseudonym>.yaml", "steward", "motion"),
    _rec(_T + "panel/votes/<ts>-<pseudonym>.yaml", "steward", "vote"),
    _rec(_T + "writeups/<ts>-<pseudonym>.yaml", "contributor", "writeup"),
    _rec(_T + "steward-acts/<ts>-<pseudonym>.yaml", "contributor", "steward-act"),
    # D-9 v3.39: the formalization review (docs/review.md)
    _rec(_T + "review/openings/<ts>-<pseudonym>.yaml", "steward", "review-opening"),
    _rec(_T + "review/candidates/<ts>-<pseudonym>.yaml", "contributor", "review-candidate"),
    PathRule(_T + "review/candidates/<ts>-<pseudonym>.lean", "contributor", "review-candidate"),
    _rec(_T + "review/exhibits/<ts>-<pseudonym>.yaml", "contributor", "review-exhibit"),
    PathRule(_T + "review/exhibits/<ts>-<pseudonym>.lean", "contributor", "review-exhibit"),
    _rec(_T + "review/attempts/<ts>-<pseudonym>.yaml", "contributor", "review-attempt"),
    _rec(_T + "review/tests/<ts>-<pseudonym>.yaml", "contributor", "review-test"),
    _rec(_T + "review/questions/<ts>-<pseudonym>.yaml", "contributor", "review-question"),
    _rec(_T + "review/answers/<ts>-<pseudonym>.yaml", "steward", "review-answer"),
    _rec(_T + "review/signatures/<ts>-<pseudonym>.yaml", "contributor", "review-signature"),
    _rec(_T + "graph.json", "product"),
    # a node
    _rec(_N + "META.yaml", "contributor", "variant"),
    PathRule(_N + "Statement.lean", "contributor", "variant"),
    PathRule(_N + "Witness.lean", "contributor", "witness"),
    PathRule(_N + "Context.lean", "gate"),
    PathRule(_N + "Proof.lean", "contributor", "proof"),
    PathRule(_N + "Refutation.lean", "contributor", "counterexample"),
    PathRule(_N + "Vacuity.lean", "contributor", "vacuity"),
    PathRule(_N + "Relation.lean", "contributor", "variant"),
    _rec(_A + "postmortem.yaml", "contributor", "postmortem"),
    PathRule(_A + "partial.lean", "contributor", "partial"),
    PathRule(_A + "partial.h<k>.witness.lean", "contributor", "partial"),
    PathRule(_A + "reduction.lean", "contributor", "reduction"),
    PathRule(_A + "reduction.h<k>.witness.lean", "contributor", "reduction"),
    PathRule(_A + "alternate.lean", "contributor", "alternate"),
    _rec(_N + "attempts/precheck/<hash>.json", "contributor", "precheck-record"),
    PathRule(_N + "annex/<sha256>.md", "contributor", "annex"),
    _rec(_N + "annex/<sha256>.yaml", "contributor", "annex"),
    _rec(_N + "literature/<ts>-<pseudonym>.yaml", "contributor", "literature"),
    _rec(_N + "gloss/<ts>-<pseudonym>.yaml", "contributor", "gloss"),
    _rec(_N + "explainer/<ts>-<pseudonym>.yaml", "contributor", "explainer"),
    _rec(_N + "withdrawals/<ts>-<pseudonym>.yaml", "contributor", "withdrawal"),
    _rec(_N + "proposed-for/<ts>-<pseudonym>.yaml", "contributor", "proposed-for"),
    _rec(_N + "shelving/<ts>-<pseudonym>.yaml", "steward", "shelving"),
    _rec(_N + "pertinence/<ts>-<pseudonym>.yaml", "steward", "pertinence"),
    _rec(_N + "approvals/<ts>-<pseudonym>.yaml", "steward", "approval"),
    _rec(_N + "reviews/<ts>-<pseudonym>.yaml", "steward", "proof-review"),
    _rec(_N + "waivers/native_decide.yaml", "contributor", "proof"),
    _rec(_N + "defects/<ts>-<pseudonym>.yaml", "contributor", "defect"),
    _rec(_N + "disputes/<ts>-<pseudonym>.yaml", "curator", "dispute"),
    _rec(_N + "revision-requests/<ts>-<pseudonym>.yaml", "contributor", "revision-request"),
    _rec(_N + "closure/route-<k>.json", "gate"),
    _rec(_N + "closure/resolves.json", "gate"),
    _rec(_N + "closure/refutes.json", "gate"),
    _rec(_N + "outline/Proof.json", "gate"),
    _rec(_N + "outline/<ts>-<pseudonym>-alternate.json", "gate"),
    _rec(_N + "outline/<ts>-<pseudonym>-partial.json", "gate"),
    _rec(_N + "outline/<ts>-<pseudonym>-reduction.json", "gate"),
)


def _literal_segments(template: str) -> tuple[tuple[int, str], ...]:
    """(index, text) of each path segment of ``template`` that holds no placeholder."""
    return tuple((i, seg) for i, seg in enumerate(template.split("/")) if "<" not in seg)


_BY_DEPTH: dict[int, list[tuple[PathRule, tuple[tuple[int, str], ...]]]] = {}
for _rule in PATH_TABLE:
    _BY_DEPTH.setdefault(_rule.template.count("/") + 1, []).append(
        (_rule, _literal_segments(_rule.template)))


def match(path: str) -> tuple[PathRule, dict[str, str]] | None:
    """The row that admits ``path`` and its placeholder values, or None when none does.

    Args:
        path: a graph-relative POSIX path.

    Returns:
        (rule, placeholder → value); templates never overlap, so at most one row admits a
        path (``tests/test_gate_paths.py`` holds that too). Rows are tried only where the
        path has their depth and literal segments, so a lookup costs a few comparisons.
    """
    segments = path.split("/")
    for rule, literals in _BY_DEPTH.get(len(segments), ()):
        if any(segments[i] != seg for i, seg in literals):
            continue
        mt = rule.regex.fullmatch(path)
        if mt is not None:
            return rule, mt.groupdict()
    return None
