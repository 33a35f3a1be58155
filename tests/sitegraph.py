"""A rich fixture graph for the site tests (D-36): proofs, partials with holes, rival
routes, variants (resolves and refutes), a proposed crux, a shelving, postmortems, a
literature reading, glosses with label and claim, an explainer with an approval,
attestations with steps (pass and fail), and a ledger with a revocation."""

from __future__ import annotations

from pathlib import Path

from tests.graphs import DEFAULT_TOOLCHAIN, ZERO40, GraphBuilder, git_commit

T = "demo"
C = "calib"


INFORMAL = ("For every $n \\ge 1$ the property $P(n)$ holds, where\n\n"
            "$$P(n) \\iff \\sum_{k \\le n} k = \\frac{n(n+1)}{2}.$$\n\n"
            "See erdosproblems.com/1094 and arXiv:2101.00001; `lean $x$` is code and "
            "costs $5 and $6 stay text.")
"""The demo target's informal statement: inline and display maths, references, a dollar in
code, and dollars that are money (issue 15)."""


def build_rich_graph(root: Path, *, commit: bool = True) -> tuple[GraphBuilder, str | None]:
    """Write the rich graph under ``root``; returns the builder and the commit (or None)."""
    b = GraphBuilder(root)
    b.base()
    b.target(T, title="Demo conjecture", fidelity={"grade": "screened-and-signed"},
             informal_statement=INFORMAL)
    b.approach(T, "20260101T000000Z", "alice", "Split by parity", nodes=["root"])
    b.approach(T, "20260102T000000Z", "bob", "Induction on n", state="abandoned")
    b.node(T, "root")
    b.gloss(T, "root", "20260101T010000Z", "alice", label="Main theorem",
            text="$$\\forall n \\in \\mathbb{N},\\ P(n)$$ Every natural number has P.")
    route_a = b.partial(T, "root", "20260102T000000Z", "alice",
                        "-- approach: split by parity\n-- licence: CC-BY-4.0\n")
    b.hole(T, "root", 1, route_a, name="even case", witness=True)
    b.hole(T, "root", 2, route_a, name="odd case", witness=True)
    route_b = b.partial(T, "root", "20260103T000000Z", "bob",
                        "-- approach: induction on n\n")
    b.hole(T, "root", 3, route_b, name="step case")
    b.merge([route_a], date="2026-01-02", node="root")
    b.merge([route_b], date="2026-01-03", node="root")
    proof = b.proof(T, "root--h1", "theorem even_case : True := trivial\n")
    b.merge([proof], date="2026-01-04", node="root--h1")
    b.gloss(T, "root--h1", "20260104T010000Z", "carol", label="Even numbers have P",
            text="$$\\forall n,\\ 2 \\mid n \\to P(n)$$ The even half.")
    b.gloss(T, "root--h1", "20260105T000000Z", "carol", describes=proof,
            text="It halves n and uses the base case.", kind="explainer", approved_by=["steve"])
    b.postmortem(T, "root--h2", "20260106T000000Z", "dave", route_class="induction")
    b.postmortem(T, "root--h2", "20260107T000000Z", "erin", route_class="case-split",
                 failure_class="missing-library")
    lit = b.literature(T, "root--h2", "20260106T000000Z", "alice", "partial-results")
    b.literature(T, "root--h2", "20260107T000000Z", "steve", "partial-results", confirms=lit)
    route_c = b.partial(T, "root--h2", "20260107T120000Z", "erin",
                        "-- approach: reduce to primes\n")
    b.hole(T, "root--h2", 1, route_c, name="prime case")  # blocked: no witness yet
    b.merge([route_c], date="2026-01-07", node="root--h2")
    b.shelving(T, "root--h3", "20260108T000000Z", "steve", cause="induction will not reach")
    b.node(T, "variant-upper", variant={"of": "root", "relation": "resolves"},
           relation="-- relation\n")
    b.node(T, "variant-counter", variant={"of": "root", "relation": "refutes"},
           relation="-- relation\n")
    b.merge([f"targets/{T}/nodes/variant-upper/Relation.lean",
             f"targets/{T}/nodes/variant-counter/Relation.lean"], date="2026-01-08",
            node="variant-upper")
    b.node(T, "crux-gap", speculative=True)
    b.proposed_for(T, "crux-gap", "20260109T000000Z", "frank", "root--h2")
    # a failed gate run with steps
    b.write_json("attestations/fail-1.json", {
        "schema": "attestation/v1", "graph_id": b.graph_id, "target": T, "node": "root--h2",
        "artifact_kind": "proof", "artifacts": [], "toolchain": DEFAULT_TOOLCHAIN,
        "gate_spec_sha256": "0" * 64, "base_commit": ZERO40, "head_commit": ZERO40,
        "graph_commit": ZERO40, "verdict": "fail", "first_failing_step": 3,
        "steps": [{"step": 1, "name": "paths", "ok": True},
                  {"step": 3, "name": "build", "ok": False, "code": "lean-build-failed"}],
        "timestamp": "2026-01-09"})
    # a merged postmortem's run (a record, not a proof: issue 35) and a refusal of a pull
    # request that touched no node (an edit of frontier.json), published on root
    b.attest([f"targets/{T}/nodes/root--h2/attempts/20260106T000000Z-dave-postmortem.yaml"],
             artifact_kind="postmortem", date="2026-01-06", name="pm-dave")
    b.write_json("attestations/unplaced-1.json", {
        "schema": "attestation/v1", "graph_id": b.graph_id, "target": T, "node": "root",
        "artifact_kind": "unplaced", "artifacts": [], "toolchain": DEFAULT_TOOLCHAIN,
        "gate_spec_sha256": "0" * 64, "base_commit": ZERO40, "head_commit": ZERO40,
        "graph_commit": ZERO40, "verdict": "fail", "first_failing_step": 2,
        "steps": [{"step": 2, "name": "paths", "ok": False, "code": "gate-only-path"}],
        "timestamp": "2026-01-09"})
    # the calibration target, proved
    b.target(C, cls="calibration", calibration=True, title="Calibration: a proved fact",
             steward=None)
    b.node(C, "root")
    cproof = b.proof(C, "root", "theorem calib : True := trivial\n")
    b.merge([cproof], date="2026-01-10", node="root")
    # the ledger, with one revocation
    b.ledger_line(1, 1, "proof", "alice", T, route_a, node="root")
    b.ledger_line(2, 1, "proof", "bob", T, route_b, node="root")
    b.ledger_line(3, 1, "proof", "carol", T, proof, node="root--h1")
    b.ledger_line(5, 1, "proof", "alice", C, cproof, node="root")
    b.ledger_line(5, 2, "attempts", "dave", T,
                  f"targets/{T}/nodes/root--h2/attempts/20260106T000000Z-dave-postmortem.yaml",
                  node="root--h2")
    b.revocation(5, 3, "ledger/000002-1.json", reason="plagiarised route")
    sha = git_commit(root, "rich graph") if commit else None
    return b, sha


NODES = {T: ["crux-gap", "root", "root--h1", "root--h2", "root--h2--h1", "root--h3", "variant-counter",
             "variant-upper"], C: ["root"]}
"""Every node of the fixture graph by target (root--h3 is shelved: drawn on request)."""
