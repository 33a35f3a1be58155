"""Attack review (issue 35 item 3): whose declaration a ledger-line/v2 carries.

postmerge_ledger.add() stamps ``att.disclosure`` (the pull request opener's declaration,
from its body block or its record) on EVERY line built from that attestation, including
the step-9 ``review`` line credited to the approving reviewer, a different person who
declared nothing. The ledger then says the reviewer's credit was earned with the models
the submitter named (whatever the submitter chose to write there), and the registration's
authors and automation block are derived from these lines (D-19 v3.37).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import precheck_raw, scenarios
from standin import RecordedToolchain

from network.gate.postmerge.postmerge import postmerge_files
from network.gate.run import run_gate
from network.gate.sandbox.sandbox import Sandbox
from network.record import models as m
from tests.graphs import BUILDER_GATE_KEY_ID
from tests.test_gate_run import KEY

SUBMITTERS = m.Disclosure(method="agent", models=["submitter-bot-9000"], framework="x")


def test_the_reviewers_line_does_not_carry_the_submitters_disclosure(tmp_path: Path) -> None:
    sc = scenarios()["root-proof-reviewed"]
    b, base, head = sc.build(tmp_path / "g")
    out = run_gate(b.root, base, head, toolchain=RecordedToolchain, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(b.root, base, head), submitter=sc.submitter,
                   review=sc.review, disclosure=SUBMITTERS)
    assert out.verdict == "pass", out.to_dict()
    repo = pygit2.Repository(str(b.root))
    repo.references["refs/heads/main"].set_target(pygit2.Oid(hex=head))
    pm = postmerge_files(b.root, head, out.attestations, pull_request="local/9",
                         submitter="alice", sandbox=Sandbox(), gate_key=KEY,
                         key_id=BUILDER_GATE_KEY_ID, toolchain=RecordedToolchain)
    lines = [(m.LedgerLineV2 if b'"ledger-line/v2"' in v else m.LedgerLine
              ).model_validate_json(v)
             for p, v in sorted(pm.files.items()) if p.startswith("ledger/")]
    by = {(ln.line, ln.identity): ln for ln in lines}
    assert ("proof", "alice") in by and ("review", "rita") in by, list(by)
    proof = by[("proof", "alice")]
    assert isinstance(proof, m.LedgerLineV2) and proof.disclosure == SUBMITTERS
    review = by[("review", "rita")]
    # rita declared nothing; alice's declaration is not hers
    assert not isinstance(review, m.LedgerLineV2), (
        f"rita's review line is a ledger-line/v2 carrying alice's declaration "
        f"{review.disclosure.model_dump()}")
