"""Attack review (issue 35 item 3, commit 40fc3bc): a record's own disclosure reaches the
attestation (and a ledger-line/v2) with no bound, while the pull request body's
``lemmata-disclosure`` block is capped at 4096 bytes (attestation.MAX_DISCLOSURE_BYTES).

A postmortem is a contributor record held to RECORD_MAX_BYTES (256 KiB) at step 2, but its
``disclosure.models`` list has no length limit. Written in YAML flow style
(``models: [m,m,m,...]``, 2 bytes a model) it becomes indented JSON in the attestation
(``      "m",\\n``, 11 bytes a model): a 240 KB postmortem gives a 1.3 MB attestation, over
policy.max_file_bytes (1,000,000), which the loader reads as ``file-too-large`` and then
refuses the WHOLE graph (``ValidationFailed``): main no longer loads. Every run publishes
its attestation, refused or not, so the pull request need not even pass; a refused one is
worse, because ``disclosure-disagrees``'s message repeats the whole declaration.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain

from network.gate import attestation as A
from network.record import layout
from network.record import models as m
from tests.api_flow_support import FlowNet
from tests.test_disclosure_declared import _push

N_MODELS = 120_000


def _postmortem_text(n: int) -> str:
    head = ("schema: d13/v1\nnode: demo/mid\ncontributor: ann\nroute: strong induction\n"
            "route_class: induction\noutcome: exhausted\nterminal_goal_state: 'n : Nat'\n"
            "failure_class: missing-library\n")
    return head + "disclosure: {method: agent, models: [" + ",".join(["m"] * n) + "]}\n"


def _main_loads(net: FlowNet) -> str | None:
    try:
        net.main_graph()
    except Exception as exc:  # noqa: BLE001 - the point of the test
        return f"{type(exc).__name__}: {str(exc)[:300]}"
    return None


@pytest.mark.parametrize("body_block", [False, True], ids=["agreeing", "disagreeing"])
def test_a_postmortem_disclosure_cannot_make_main_unloadable(tmp_path: Path,
                                                             body_block: bool) -> None:
    text = _postmortem_text(N_MODELS)
    assert len(text.encode()) < layout.RECORD_MAX_BYTES  # an admissible record at step 2
    # the same declaration, as a body block, is dropped for its size
    assert A.disclosure_from_body(A.disclosure_block(
        m.Disclosure(method="agent", models=["m"] * N_MODELS))) is None
    net = FlowNet.create(tmp_path, RecordedToolchain)
    message = "postmortem of demo/mid"
    if body_block:  # refused at step 2 (disclosure-disagrees): it never merges
        message += "\n\n" + A.disclosure_block(m.Disclosure(method="human"))
    _push(tmp_path, net, message, text)
    items = net.run_queue()
    sizes = [(it.verdict, len(A.attestation_bytes(r.attestation)))
             for it in items for r in (it.outcome.runs if it.outcome else [])
             if r.attestation is not None]
    broken = _main_loads(net)
    assert broken is None, f"main no longer loads after {sizes}: {broken}"
    # refused at step 2 for its size, and no attestation carries the declaration
    firsts = [r.first_failing for it in items for r in (it.outcome.runs if it.outcome else [])]
    assert any(f is not None and (f.step, f.code) == (2, "disclosure-too-large")
               for f in firsts), firsts
    assert all(size < 100_000 for _, size in sizes), sizes
