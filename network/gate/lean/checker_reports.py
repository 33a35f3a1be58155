"""The gate's checker reports read into typed results: pure, tested without Lean.

Each checker program of ``network/gate/lean/*.lean`` prints one JSON report
(:func:`network.gate.lean.toolchain.parse_checker_output`); the functions here turn a report
into the :mod:`network.gate.lean.toolchain_results` object its
:class:`~network.gate.lean.lean_toolchain.LeanToolchain` method returns, failing closed
(``checker-output-malformed``) on any field of the wrong shape: the statement comparison
and its axioms (steps 4-5, D-4 v3.27, issue 10's axiom identities), a relation (D-12
#2/#3, D-30), a witness (step 7), used constants (step 8, v3.25), a partial's holes (D-12
#5, D-29), hazards (step 6), a definitional-equality test (D-12 offload rule, v3.21) and a
merged proof's outline (D-3 v3.30). A verdict is read from these fields only, never from
message text (LEAN_NOTES "Never parse data for verdicts").
:mod:`network.gate.lean.lean_toolchain` re-exports every name here (issue 17).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from network.gate.lean.axioms import identity_problems, is_native_axiom, type_sha256
from network.gate.lean.toolchain_results import (
    AxiomIdentity,
    CompareResult,
    DefEqResult,
    HazardFinding,
    HazardsResult,
    Hole,
    HoleBinder,
    HolesResult,
    OutlineKind,
    OutlineResult,
    OutlineStep,
    TermRef,
    TheoremComparison,
    UsedConstantsResult,
    WitnessResult,
)
from network.gate.sandbox.workspace import name_components


def _names(value: Any) -> tuple[str, ...]:
    """A JSON list of strings, sorted and deduplicated; anything else raises ValueError."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"expected a list of names, got {value!r}"[:200])
    return tuple(sorted(set(value)))


def axiom_identities_from_report(value: Any) -> tuple[AxiomIdentity, ...]:
    """A checker's ``axiom_info`` rows → identities (the key text hashed with SHA-256);
    a missing list is no identities (step 5 then refuses allowed axioms: fail closed).

    Raises:
        ValueError: a row is not ``{"name": str, "module": str|null, "type_key": str|null}``.
    """
    if value is None:
        return ()
    if not isinstance(value, list):
        raise TypeError("axiom_info is not a list")
    out = []
    for row in value:
        if not isinstance(row, dict):
            raise TypeError(f"bad axiom_info row {row!r}"[:200])
        name, module, key = row.get("name"), row.get("module"), row.get("type_key")
        if not isinstance(name, str) or not isinstance(module, (str, type(None))) \
                or not isinstance(key, (str, type(None))):
            raise TypeError(f"bad axiom_info row {row!r}"[:200])
        out.append(AxiomIdentity(name, module, None if key is None else type_sha256(key)))
    return tuple(sorted(out, key=lambda a: a.name))


def compare_result_from_report(report: Mapping[str, Any],
                               permitted_axioms: Sequence[str],
                               toolchain: str | None = None) -> CompareResult:
    """CheckStatement's report → :class:`CompareResult`. Python, not the checker, decides
    ``ok``: axioms are re-judged against ``permitted_axioms`` here, and, given the pin
    ``toolchain``, each allowed one against the pinned axiom table
    (:func:`network.gate.lean.axioms.identity_problems`; code ``axiom-identity-mismatch``).

    A malformed report gives ``checker-output-malformed``; an empty theorem list is a
    failure (nothing was checked).
    """
    try:
        rows = report["theorems"]
        if not isinstance(rows, list) or not rows:
            raise ValueError("no theorems in report")
        out: list[TheoremComparison] = []
        permitted = set(permitted_axioms)
        for row in rows:
            axioms = _names(row["axioms"])
            native = tuple(a for a in axioms if is_native_axiom(a))
            out.append(TheoremComparison(
                name=str(row["name"]), found=row["found"] is True,
                type_equal=row["type_equal"] is True,
                mismatched_constants=_names(row["mismatched_constants"]),
                axioms=axioms,
                disallowed_axioms=tuple(a for a in axioms if a not in permitted),
                sorry="sorryAx" in axioms, native=native,
                axiom_identities=axiom_identities_from_report(row.get("axiom_info"))))
    except (KeyError, TypeError, ValueError) as exc:
        return CompareResult(False, "checker-output-malformed", detail=str(exc)[:500])
    code = None
    for check, c in ((lambda t: not t.found, "declaration-missing"),
                     (lambda t: not t.type_equal or t.mismatched_constants,
                      "statement-mismatch"),
                     (lambda t: t.sorry, "sorry-used"),
                     (lambda t: t.native, "native-code-used"),
                     (lambda t: t.disallowed_axioms, "axiom-not-permitted"),
                     (lambda t: toolchain is not None and identity_problems(
                         t.axioms, t.axiom_identities, permitted_axioms, toolchain),
                      "axiom-identity-mismatch")):
        if any(check(t) for t in out):
            code = c
            break
    return CompareResult(code is None, code, tuple(out))


def _ref_json(t: TermRef) -> dict[str, Any]:
    return {"module": name_components(t.module), "decl": name_components(t.decl)}


def _relation_request_problem(kind: str, left: TermRef, right: TermRef | None,
                              kinds: Sequence[str]) -> str:
    """Why a relation request cannot be sent ("" when it can)."""
    if kind not in kinds:
        return f"unknown relation kind {kind!r}"
    if left.hole is not None or (right is not None and right.hole is not None):
        return "relations compare declarations, not holes"
    if kind in ("implies", "implies-not") and right is None:
        return f"{kind} needs a right side"
    return ""


def relation_result_from_report(report: Mapping[str, Any],
                                permitted_axioms: Sequence[str],
                                toolchain: str | None = None) -> CompareResult:
    """CheckRelation's report → :class:`CompareResult` (one row), judged as
    :func:`compare_result_from_report` judges CheckStatement's; on a mismatch the detail
    names the expected and the actual type (both pretty-printed by Lean, for people)."""
    res = compare_result_from_report(report, permitted_axioms, toolchain)
    if res.code == "checker-output-malformed":
        return res
    detail = str(report.get("detail") or "")
    if res.code in ("statement-mismatch", "declaration-missing"):
        exp, act = report.get("expected_type"), report.get("actual_type")
        detail = "; ".join(x for x in (detail, f"expected {exp}" if exp else "",
                                       f"found {act}" if act else "") if x)
    return CompareResult(res.ok, res.code, res.theorems, detail[:2000])


def witness_result_from_report(report: Mapping[str, Any], witness_decl: str,
                               permitted_axioms: Sequence[str],
                               toolchain: str | None = None) -> WitnessResult:
    """Witness's report → :class:`WitnessResult` (step 7); given the pin ``toolchain``, an
    allowed axiom that is not the pinned one fails it (``axiom-identity-mismatch``)."""
    try:
        found = report["found"] is True
        matches = report["type_matches"] is True
        axioms = _names(report.get("axioms", []))
        identities = axiom_identities_from_report(report.get("axiom_info"))
        expected = report.get("expected_type")
        actual = report.get("witness_type")
    except (KeyError, TypeError, ValueError) as exc:
        return WitnessResult(False, "checker-output-malformed", witness_decl,
                             detail=str(exc)[:500])
    disallowed = tuple(a for a in axioms if a not in set(permitted_axioms))
    impostors = ([] if toolchain is None or not found or not matches or disallowed
                 else identity_problems(axioms, identities, permitted_axioms, toolchain))
    ok = found and matches and not disallowed and not impostors
    detail = ("" if ok else "witness declaration missing" if not found
              else "witness type is not the expected existential" if not matches
              else f"witness uses {', '.join(disallowed)}" if disallowed
              else "; ".join(impostors))
    code = None if ok else "axiom-identity-mismatch" if impostors else "witness-failed"
    return WitnessResult(ok, code, witness_decl,
                         str(expected) if expected is not None else None,
                         str(actual) if actual is not None else None, axioms, disallowed,
                         detail, identities)


def used_constants_from_report(report: Mapping[str, Any],
                               decls: Sequence[str]) -> UsedConstantsResult:
    """UsedConstants' report → :class:`UsedConstantsResult`; a missing declaration is
    ``declaration-missing``."""
    try:
        missing = _names(report.get("missing", []))
        constants = _names(report["constants"])
        modules = _names(report["modules"])
    except (KeyError, TypeError, ValueError) as exc:
        return UsedConstantsResult(False, "checker-output-malformed", tuple(decls),
                                   detail=str(exc)[:500])
    if missing:
        return UsedConstantsResult(False, "declaration-missing", tuple(decls), constants,
                                   modules, f"missing: {', '.join(missing)}")
    return UsedConstantsResult(True, None, tuple(decls), constants, modules)


def holes_from_report(report: Mapping[str, Any], decl: str) -> HolesResult:
    """ExtractHoles' report → :class:`HolesResult`."""
    try:
        if report.get("found") is not True:
            return HolesResult(False, "declaration-missing", decl,
                               detail=f"{decl} is not in the partial's module")
        holes = []
        for i, h in enumerate(report["holes"], start=1):
            binders = tuple(HoleBinder(str(b["name"]), str(b["type"]),
                                       b.get("binder_info", "default"))
                            for b in h.get("binders", []))
            holes.append(Hole(int(h.get("index", i)), str(h["name"]), str(h["goal"]), binders,
                              str(h.get("statement", "")),
                              int(h["line"]) if h.get("line") is not None else None,
                              int(h["column"]) if h.get("column") is not None else None))
    except (KeyError, TypeError, ValueError) as exc:
        return HolesResult(False, "checker-output-malformed", decl, detail=str(exc)[:500])
    return HolesResult(True, None, decl, tuple(holes))


def hazards_from_report(report: Mapping[str, Any], checkers: Sequence[str]) -> HazardsResult:
    """Hazards' report → :class:`HazardsResult`, keeping only requested checkers' findings;
    a missing declaration is ``declaration-missing``."""
    try:
        missing = _names(report.get("missing", []))
        findings = tuple(
            HazardFinding(str(f["checker"]), str(f["decl"]), str(f["location"])[:200],
                          str(f["subterm"]), str(f.get("proposition", "")),
                          str(f["message"]),
                          int(f["line"]) if f.get("line") is not None else None)
            for f in report["findings"] if f["checker"] in set(checkers))
    except (KeyError, TypeError, ValueError) as exc:
        return HazardsResult(False, "checker-output-malformed", detail=str(exc)[:500])
    if missing:
        return HazardsResult(False, "declaration-missing", findings,
                             f"missing: {', '.join(missing)}")
    return HazardsResult(True, None, findings)


def defeq_from_report(report: Mapping[str, Any]) -> DefEqResult:
    """DefEq's report → :class:`DefEqResult`."""
    defeq = report.get("defeq")
    comparable = report.get("comparable")
    if not isinstance(comparable, bool) or (comparable and not isinstance(defeq, bool)):
        return DefEqResult(False, "checker-output-malformed", detail="bad DefEq report")
    if not comparable:
        return DefEqResult(True, None, None, False, str(report.get("detail", ""))[:500])
    return DefEqResult(True, None, bool(defeq), True)


def outline_from_report(report: Mapping[str, Any], module: str,
                        decls: Sequence[str]) -> OutlineResult:
    """Outline's report → :class:`OutlineResult` (D-3 v3.30). A missing declaration is
    ``declaration-missing``; a report of another shape is ``checker-output-malformed``.
    A step is vouched for only when the checker says ``reads_back: true`` with no ``why``
    and a claim string; any other step is kept Lean only here too, with its label, kind,
    constants and automation (facts of the kernel term) but no claim and no goal: the
    Python side never shows a claim the checker did not vouch for."""
    try:
        missing = _names(report.get("missing", []))
        rows = report["steps"]
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise TypeError("steps is not a list of objects")
        steps = []
        for row in rows:
            kind = row["kind"]
            if kind not in get_args(OutlineKind):
                raise ValueError(f"unknown step kind {kind!r}")
            decl = str(row["decl"])
            if decl not in decls:
                raise ValueError(f"a step of an unrequested declaration {decl!r}")
            index, depth = row["index"], row.get("depth", 0)
            if not (isinstance(index, int) and isinstance(depth, int)) or index < 1 or depth < 0:
                raise ValueError("index/depth are not counts")
            name = row.get("name")
            vouched = (row.get("reads_back") is True and row.get("why") is None
                       and isinstance(row.get("claim"), str) and isinstance(name, str))
            goal = row.get("goal")
            why = row.get("why")
            steps.append(OutlineStep(
                decl, index, kind, depth, name=str(name) if name is not None else None,
                lean_only=not vouched,
                why=None if vouched else str(why or "not-vouched")[:100],
                claim=str(row["claim"]) if vouched else None,
                goal=str(goal) if vouched and isinstance(goal, str) else None,
                constants=tuple(sorted(_names(row.get("constants", [])))),
                automation=_names(row.get("automation", [])),
                hole=row.get("hole") is True))
    except (KeyError, TypeError, ValueError) as exc:
        return OutlineResult(False, "checker-output-malformed", module, tuple(decls),
                             detail=str(exc)[:500])
    if missing:
        return OutlineResult(False, "declaration-missing", module, tuple(decls),
                             detail=f"missing: {', '.join(missing)}")
    return OutlineResult(True, None, module, tuple(decls), tuple(steps))
