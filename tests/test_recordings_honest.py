"""No recording claims what the pinned Lean could not answer for its bytes (issue 10).

The stand-in's answers are declared by hand (tests/gate_scenarios.py). Only the
``lean``-marked audit (tests/test_recordings_audit.py) can show they are what Lean says;
this test, which needs no Lean, holds out the claims that are false on their face. It runs
every gate scenario as the recordings are made (tests/fixtures/toolchain/make_recordings.py)
with a recorder that reads each call's workspace bytes next to its declared answer, and
fails on:

* a module whose Lean text has a ``sorry`` answered without ``sorryAx`` in its axioms (or
  ``sorryAx`` for text without one);
* an allowed axiom answered without the identity (module, type hash) pinned for the
  toolchain in network/gate/axioms/;
* a build that passes while a module proves, without ``sorry``, one of the known-false
  propositions below;
* a witness type that is not the existential of its statement's data binders (``∃ _,
  True`` for every statement was the old answer);
* a ``describe`` answer whose version is not exactly the pin's.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import RecordingToolchain, record_all

from network.gate.lean.axioms import pinned_table
from network.gate.lean.lean_toolchain import pin_version
from network.gate.sandbox.workspace import Workspace, name_components

#: propositions that are false, so no sorry-free proof of one builds (the old fixtures
#: claimed some of these did)
KNOWN_FALSE = (
    "∃ n : Nat, 2 < n ∧ n = 0",
    "¬ ∀ n : Nat, n + 0 + 0 = n",
    "¬ ∃ n : Nat, True",
    "¬ ∀ (n : Nat) (h : 2 < n), n ≠ 0",
    "∀ (n : Nat) (h : 2 < n), n = 0",
)


def lean_code(text: str) -> str:
    """``text`` without comments (``--`` to end of line, ``/- … -/`` blocks, doc comments
    included) and string literals: what Lean elaborates."""
    text = re.sub(r"/-.*?-/", " ", text, flags=re.DOTALL)
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    return re.sub(r"--[^\n]*", "", text)


def has_sorry(text: str) -> bool:
    """A ``sorry`` token in the code of ``text``."""
    return re.search(r"(?<![\w.'])sorry(?![\w'])", lean_code(text)) is not None


def module_text(files: dict[str, bytes], module: str) -> str | None:
    """The source of ``module`` among a workspace's input files, if it holds it."""
    rel = "/".join(name_components(module)) + ".lean"
    data = files.get(rel)
    return None if data is None else data.decode("utf-8", "replace")


def data_binders(statement: str, decl: str) -> list[str]:
    """The data binders of ``decl`` in a statement file, as the fixtures write them:
    ``(x y : T)`` groups before the colon and a leading ``∀ x … ,`` after it; a binder
    named ``h…`` is a hypothesis. Enough for the fixtures, not a Lean parser."""
    code = lean_code(statement)
    m = re.search(rf"theorem {re.escape(decl)}(?![\w.'])", code)
    assert m, f"no theorem {decl} in {statement!r}"
    rest, names = code[m.end():].lstrip(), []
    while rest[:1] in ("(", "{", "[", "⦃"):  # the binder groups before the colon
        close = {"(": ")", "{": "}", "[": "]", "⦃": "⦄"}[rest[0]]
        group, rest = rest[1:].split(close, 1)
        if ":" in group:
            names += group.split(":", 1)[0].split()
        rest = rest.lstrip()
    body = rest.removeprefix(":").split(":=", 1)[0].strip()
    if body.startswith("∀"):
        head = body[1:].split(",", 1)[0]
        for group in re.findall(r"\(([^():]+):", head) or [head.split(":", 1)[0]]:
            names += group.split()
    return [n for n in names if not n.startswith("h")]


def exists_names(expected: str) -> list[str]:
    """The bound names of a printed existential ``∃ a b, …`` ([] when it is none)."""
    if not expected.startswith("∃"):
        return []
    return expected[1:].split(",", 1)[0].split()


def rows_of(method: str, result: dict[str, Any]) -> list[dict[str, Any]]:
    if method == "check_witness":
        return [result]
    return list(result.get("theorems") or [])


def problems(files: dict[str, bytes], method: str, args: dict[str, Any],
             result: dict[str, Any], pin: str) -> list[str]:
    """Every face-false claim in one declared answer for a workspace with ``files``."""
    out: list[str] = []
    if method == "describe":
        if result.get("ok") and result.get("lean_version") != pin_version(pin):
            out.append(f"describe answers version {result.get('lean_version')} for {pin}")
        return out
    if method == "build" and result.get("ok"):
        for rel, data in sorted(files.items()):
            code = lean_code(data.decode("utf-8", "replace")) if rel.endswith(".lean") else ""
            for prop in KNOWN_FALSE:
                for m in re.finditer(r"[\w.'»]\s*:\s*" + re.escape(prop) + r"\s*:=", code):
                    if not has_sorry(code[m.end():m.end() + 40]):
                        out.append(f"{rel} proves the false {prop!r} and the build passes")
    solution = {"check_statement": "solution_module", "check_relation": "solution_module",
                "check_witness": "witness_module"}.get(method)
    texts: list[str | None] = []
    if solution is not None:
        texts = [module_text(files, args[solution])]
    elif method == "join_relation":
        texts = [module_text(files, args["premise"][0]), module_text(files, args["relation"][0])]
    known = [t for t in texts if t is not None]
    table = pinned_table(pin) or {}
    for row in rows_of(method, result):
        axioms = row.get("axioms") or []
        if known and any(has_sorry(t) for t in known) != ("sorryAx" in axioms):
            out.append(f"{method} {args.get(solution or 'premise')}: sorry in the text is "
                       f"{any(has_sorry(t) for t in known)} but the axioms are {axioms}")
        ids = {i["name"]: i for i in row.get("axiom_identities") or []}
        for a in axioms:
            if a in table and (a not in ids or ids[a]["module"] != table[a].module
                               or ids[a]["type_sha256"] != table[a].type_sha256):
                out.append(f"{method}: {a} is answered without its pinned identity")
    if method == "check_witness" and result.get("ok"):
        stmt = module_text(files, args["statement_module"])
        expected = str(result.get("expected_type"))
        if "_" in exists_names(expected):
            out.append(f"witness type {expected!r} has an anonymous binder")
        if stmt is not None and exists_names(expected) != data_binders(stmt, args["decl"]):
            out.append(f"witness type {expected!r} is not the existential of "
                       f"{args['decl']}'s data binders {data_binders(stmt, args['decl'])}")
        if result.get("witness_type") != expected:
            out.append(f"a passing witness of type {result.get('witness_type')!r} is not "
                       f"{expected!r}")
    return out


class Inspecting(RecordingToolchain):
    """Records as make_recordings.py does, and checks each answer against its bytes.

    A check workspace holds the solution only as a carried .olean (issue 10's trust
    domains), so the Lean sources every workspace of a scenario held (the scratch build's
    included) are kept per scenario and a check's solution text is read from them."""

    found: ClassVar[list[str]] = []
    seen: ClassVar[dict[str, dict[str, bytes]]] = {}

    def _call(self, workspace: Workspace, method: str, args: dict[str, Any]
              ) -> dict[str, Any] | str:
        result = super()._call(workspace, method, args)
        files = workspace.input_files()
        seen = Inspecting.seen.setdefault(self.scenario.name, {})
        seen.update({k: v for k, v in files.items() if k.endswith(".lean")})
        if isinstance(result, dict):
            for p in problems({**seen, **files}, method, args, result,
                              self.spec.lean_toolchain):
                Inspecting.found.append(f"{self.scenario.name}: {p}")
        return result

    def describe(self) -> Any:
        info = super().describe()
        answer = {"ok": info.ok, "lean_version": info.lean_version}
        for p in problems({}, "describe", {}, answer, self.spec.lean_toolchain):
            Inspecting.found.append(f"{self.scenario.name}: {p}")
        return info


def test_no_recording_contradicts_its_fixture(tmp_path: Path) -> None:
    Inspecting.found, Inspecting.seen = [], {}
    store = record_all(tmp_path, recorder=Inspecting)
    assert store, "no scenario ran"
    assert Inspecting.found == []


def test_no_service_flow_recording_contradicts_its_fixture(tmp_path: Path) -> None:
    """The same rules over the service flow make_api_recordings.py records."""
    import anyio
    from api_flow_support import PROOF_MID_RACER, FlowNet, agent_flow, flow_scenario

    scenario, store = flow_scenario(), {}
    Inspecting.found, Inspecting.seen = [], {}
    net = FlowNet.create(tmp_path, lambda spec: Inspecting(spec, scenario, store))
    with net.serve() as (url, _app):
        anyio.run(agent_flow, url)
        anyio.run(lambda: agent_flow(url, pseudonym="racer", proof=PROOF_MID_RACER,
                                     claim=False))
    net.run_queue()
    assert store, "the flow asked nothing of the toolchain"
    assert Inspecting.found == []


# --- the rules themselves can fail ------------------------------------------------------

PIN = "leanprover/lean4:v4.22.0"
SORRY_PROOF = b"theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n  sorry\n"
FILES = {"Lemmata/demo/mid/Proof.lean": SORRY_PROOF,
         "Lemmata/demo/mid/Statement.lean": SORRY_PROOF}
CS = {"solution_module": "Lemmata.demo.mid.Proof", "theorems": ["Demo.mid"]}


def _row(axioms: list[str], ids: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"ok": True, "theorems": [{"name": "Demo.mid", "axioms": axioms,
                                      "axiom_identities": ids or []}]}


def test_a_sorry_proof_without_sorry_ax_is_held_out() -> None:
    got = problems(FILES, "check_statement", CS, _row(["propext"]), PIN)
    assert any("sorry in the text is True" in p for p in got)
    assert not [p for p in problems(FILES, "check_statement", CS, _row(["sorryAx"]), PIN)
                if "sorry" in p]


def test_sorry_in_a_comment_is_not_sorry() -> None:
    assert not has_sorry("theorem t : True := trivial -- no sorry here\n/- sorry -/\n")
    assert has_sorry("theorem t : True := by\n  sorry\n")


def test_an_allowed_axiom_without_its_pinned_identity_is_held_out() -> None:
    proof = {"Lemmata/demo/mid/Proof.lean": b"theorem Demo.mid : True := trivial\n"}
    got = problems(proof, "check_statement", CS, _row(["propext"]), PIN)
    assert got == ["check_statement: propext is answered without its pinned identity"]
    e = (pinned_table(PIN) or {})["propext"]
    impostor = [{"name": "propext", "module": "Lemmata.demo.mid.Proof",
                 "type_sha256": e.type_sha256}]
    assert problems(proof, "check_statement", CS, _row(["propext"], impostor), PIN)
    real = [{"name": "propext", "module": e.module, "type_sha256": e.type_sha256}]
    assert problems(proof, "check_statement", CS, _row(["propext"], real), PIN) == []


@pytest.mark.parametrize("prop", KNOWN_FALSE)
def test_a_false_theorem_that_builds_is_held_out(prop: str) -> None:
    files = {"Lemmata/demo/x/Proof.lean": f"theorem Demo.x : {prop} := by\n  decide\n".encode()}
    assert problems(files, "build", {}, {"ok": True}, PIN)
    stated = {"Lemmata/demo/x/Statement.lean": f"theorem Demo.x : {prop} := by\n  sorry\n".encode()}
    assert problems(stated, "build", {}, {"ok": True}, PIN) == []


def test_a_placeholder_witness_type_is_held_out() -> None:
    stmt = b"theorem Demo.mid (n : Nat) : n + 0 + 0 = n := by\n  sorry\n"
    files = {"Lemmata/demo/mid/Statement.lean": stmt,
             "Lemmata/demo/mid/Witness.lean": b"theorem Demo.mid.witness : True := trivial\n"}
    args = {"statement_module": "Lemmata.demo.mid.Statement", "decl": "Demo.mid",
            "witness_module": "Lemmata.demo.mid.Witness"}
    for ty in ("∃ _, True", "True"):
        ans = {"ok": True, "expected_type": ty, "witness_type": ty, "axioms": []}
        assert problems(files, "check_witness", args, ans, PIN), ty
    ok = {"ok": True, "expected_type": "∃ n, True", "witness_type": "∃ n, True", "axioms": []}
    assert problems(files, "check_witness", args, ok, PIN) == []


def test_a_describe_of_another_version_is_held_out() -> None:
    assert problems({}, "describe", {}, {"ok": True, "lean_version": "4.22.0-rc1"}, PIN)
    assert problems({}, "describe", {}, {"ok": True, "lean_version": "4.22.0"}, PIN) == []
