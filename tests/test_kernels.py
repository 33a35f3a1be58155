"""The kernels step 4 runs, the public soundness record and ``toolchain-known-unsound``
(issue 37; network/gate/lean/kernels.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from network.gate.lean import kernels as K
from network.gate.lean.kernels import (
    Kernel,
    KernelVerdict,
    SoundnessRecord,
    ToolchainRange,
    judge_kernels,
    kernel_set,
    known_unsound,
    toolchain_fixed,
)
from network.record.models import GateSpec

C1 = "1" * 40
C2 = "2" * 40


def spec(pin: str = "leanprover/lean4:v4.34.1", **kernel: Any) -> GateSpec:
    """A gate-spec pinning ``pin``; ``kernel`` its replay settings."""
    body: dict[str, Any] = {"schema": "gate-spec/v1", "lean_toolchain": pin}
    if kernel:
        body["kernel"] = kernel
    return GateSpec.model_validate(body)


def record(*entries: dict[str, Any], nanoda: str | None = C1,
           lean4lean: str | None = C2) -> SoundnessRecord:
    return SoundnessRecord.model_validate({
        "format": "lemmata-soundness-record/v1", "as_of": "2026-12-07", "checkers": {},
        "pins": {"nanoda": {"repo": "https://example.org/nanoda", "commit": nanoda},
                 "lean4lean": {"repo": "https://example.org/lean4lean", "commit": lean4lean}},
        "entries": [{"kind": "kernel", "summary": "s", "sources": ["https://example.org/x"],
                     **e} for e in entries]})


# --- toolchain ranges --------------------------------------------------------------------

@pytest.mark.parametrize(("pin", "fixed"), [
    ("v4.27.0", False), ("v4.32.1", False), ("v4.32.2", True), ("v4.32.9", True),
    ("v4.33.0-rc1", False), ("v4.33.0-rc9", False), ("v4.33.0", True), ("v4.40.0", True),
    ("v4.31.5", False), ("v5.0.0", True),
])
def test_fixed_on_its_own_line_or_after_the_last_fix(pin: str, fixed: bool) -> None:
    rng = ToolchainRange(fixed=["v4.32.2", "v4.33.0"])
    assert toolchain_fixed(f"leanprover/lean4:{pin}", rng) is fixed


def test_nightlies_and_introduced() -> None:
    rng = ToolchainRange(fixed=["v4.34.0"], fixed_nightly="2026-08-20")
    assert toolchain_fixed("leanprover/lean4:nightly-2026-08-20", rng)
    assert not toolchain_fixed("leanprover/lean4:nightly-2026-08-19", rng)
    assert not toolchain_fixed("leanprover/lean4:nightly-2026-09-01",
                               ToolchainRange(fixed=["v4.34.0"]))  # no word: affected
    old = ToolchainRange(fixed=["v4.34.0"], introduced="v4.30.0")
    assert toolchain_fixed("leanprover/lean4:v4.29.1", old)
    assert not toolchain_fixed("leanprover/lean4:v4.30.0", old)
    assert not toolchain_fixed("leanprover/lean4:v4.27.0", ToolchainRange(fixed=[]))


# --- which bugs a kernel set catches -----------------------------------------------------

def test_a_bug_every_kernel_falls_to_makes_the_pin_unsound() -> None:
    rec = record({"id": "b1", "toolchains": {"fixed": ["v4.33.0"]},
                  "checkers": {"lean": "fooled", "nanoda": "fooled", "lean4lean": "unknown"}})
    assert [b.id for b in known_unsound(spec("leanprover/lean4:v4.27.0"), rec)] == ["b1"]
    assert known_unsound(spec("leanprover/lean4:v4.33.0"), rec) == ()


def test_one_unaffected_kernel_catches_a_bug() -> None:
    entry = {"id": "b1", "toolchains": {"fixed": ["v4.34.1"]},
             "checkers": {"lean": "fooled", "nanoda": "not-fooled"}}
    assert known_unsound(spec("leanprover/lean4:v4.27.0"), record(entry)) == ()
    # the same pin where the record pins no nanoda: nothing catches it
    assert [b.id for b in known_unsound(spec("leanprover/lean4:v4.27.0"),
                                        record(entry, nanoda=None))] == ["b1"]


def test_unknown_and_missing_words_count_as_fooled() -> None:
    rec = record({"id": "b1", "toolchains": {"fixed": ["v4.34.1"]},
                  "checkers": {"lean": "fooled"}})
    assert [b.id for b in known_unsound(spec("leanprover/lean4:v4.30.0"), rec)] == ["b1"]


def test_an_independent_kernel_counts_fixed_only_at_a_listed_commit() -> None:
    entry = {"id": "nanoda-k", "checkers": {"lean": "not-fooled", "nanoda": "fooled"},
             "fixed_commits": {"nanoda": [C1]}}
    only_nanoda = spec()
    # Lean's own kernel is not fooled, so the pin stands whatever nanoda's commit
    assert known_unsound(only_nanoda, record(entry, nanoda="3" * 40, lean4lean=None)) == ()
    both = {**entry, "checkers": {"lean": "fooled", "nanoda": "fooled"},
            "toolchains": {"fixed": []}}
    assert known_unsound(only_nanoda, record(both, nanoda=C1, lean4lean=None)) == ()
    assert [b.id for b in known_unsound(only_nanoda, record(
        both, nanoda="3" * 40, lean4lean=None))] == ["nanoda-k"]
    assert [b.id for b in known_unsound(only_nanoda, record(
        both, nanoda=None, lean4lean=None))] == ["nanoda-k"]


def test_bypass_entries_never_make_a_pin_unsound() -> None:
    rec = record({"id": "verifiers#2177", "kind": "bypass",
                  "checkers": {"lean": "fooled", "nanoda": "fooled", "lean4lean": "fooled"}})
    assert known_unsound(spec("leanprover/lean4:v4.27.0"), rec) == ()


def test_kernel_set_follows_the_gate_spec() -> None:
    rec = record()
    assert kernel_set(spec(), rec) == (Kernel("lean", "4.34.1"), Kernel("nanoda", C1),
                                       Kernel("lean4lean", C2))
    # a kernel the record cannot pin is not in the set
    assert kernel_set(spec(), record(lean4lean=None)) == (Kernel("lean", "4.34.1"),
                                                          Kernel("nanoda", C1))
    comp = spec(replay="comparator", second_kernel="nanoda")
    assert kernel_set(comp, record(lean4lean=None)) == (
        Kernel("lean", "4.34.1"), Kernel("lean-export", "4.34.1"), Kernel("nanoda", C1))
    # Comparator's own kernel answers through the statement check, not the replay
    assert K.replayed_kernels(comp, rec) == (Kernel("lean", "4.34.1"), Kernel("nanoda", C1),
                                             Kernel("lean4lean", C2))
    assert K.replayed_kernels(spec(), rec) == kernel_set(spec(), rec)


# --- judging the kernels' answers -------------------------------------------------------

EXPECTED = (Kernel("lean", "4.34.1"), Kernel("nanoda", C1), Kernel("lean4lean", C2))


def verdicts(**say: str) -> list[KernelVerdict]:
    return [KernelVerdict(k.name, k.version, say.get(k.name, "accept"),  # type: ignore[arg-type]
                          None if say.get(k.name, "accept") == "accept" else "x", "msg")
            for k in EXPECTED]


def test_every_kernel_accepting_passes() -> None:
    assert judge_kernels(EXPECTED, verdicts()) == (None, "")


def test_one_refusal_among_acceptances_is_a_disagreement() -> None:
    code, detail = judge_kernels(EXPECTED, verdicts(nanoda="refuse"))
    assert code == "kernel-disagreement" and "nanoda" in detail
    assert judge_kernels(EXPECTED, verdicts(lean="refuse", nanoda="refuse",
                                            lean4lean="refuse"))[0] == "kernel-replay-failed"


def test_a_missing_repeated_or_other_version_kernel_never_passes() -> None:
    got = verdicts()
    assert judge_kernels(EXPECTED, got[:2])[0] == "kernel-set-incomplete"
    assert judge_kernels(EXPECTED, [*got, got[0]])[0] == "kernel-set-incomplete"
    other = [got[0], KernelVerdict("nanoda", "9" * 40, "accept"), got[2]]
    assert judge_kernels(EXPECTED, other)[0] == "kernel-set-incomplete"
    unpinned = (Kernel("lean", "4.34.1"), Kernel("nanoda", None))
    assert judge_kernels(unpinned, [got[0], KernelVerdict("nanoda", None, "accept")])[
        0] == "kernel-set-incomplete"
    assert judge_kernels(EXPECTED, [])[0] == "kernel-set-incomplete"


def test_a_kernel_that_did_not_run_keeps_its_code() -> None:
    got = verdicts()
    got[1] = KernelVerdict("nanoda", C1, "not-run", "toolchain-missing", "not installed")
    assert judge_kernels(EXPECTED, got)[0] == "toolchain-missing"
    got[1] = KernelVerdict("nanoda", C1, "not-run", None, "")
    assert judge_kernels(EXPECTED, got)[0] == "toolchain-missing"


# --- the shipped record ------------------------------------------------------------------

def test_the_shipped_record_is_valid_and_every_entry_cites_a_source() -> None:
    rec = K.soundness_record()
    assert rec.entries
    for e in rec.entries:
        assert e.sources, e.id
        assert all(re.match(r"^https://[^\s]+$", s) for s in e.sources), e.id
        if e.kind == "kernel":
            assert e.toolchains is not None or e.fixed_commits, e.id
        else:
            assert e.defence is not None, f"{e.id}: no defence named"
    for fact in rec.upstream:
        assert fact.sources


def test_v4_27_0_is_known_unsound() -> None:
    """The pin 28 of graph/'s targets and Formal Conjectures 488aade use. With Lean's kernel
    alone lean4#14576 is among the bugs (the issue's example); with nanoda beside it, the
    sources say nanoda was not fooled by #14576 (lean4 PR #14577, v4.32.2's notes), but
    #14807 fooled both, and nothing is known of nanoda on #14616."""
    shipped = K.soundness_record()
    lean_alone = shipped.model_copy(update={"pins": {}})
    alone = [b.id for b in known_unsound(spec("leanprover/lean4:v4.27.0"), lean_alone)]
    assert "lean4#14576" in alone
    with_nanoda = [b.id for b in known_unsound(spec("leanprover/lean4:v4.27.0"))]
    assert "lean4#14807" in with_nanoda and "lean4#14576" not in with_nanoda


def test_v4_34_0_stands_only_beside_nanoda() -> None:
    """lean4#15241 and #15289 (fixed in v4.34.1): nanoda was not affected, Lean's own kernel
    is not known to be safe, so v4.34.0 needs nanoda in the set; v4.34.1 does not."""
    lean_alone = K.soundness_record().model_copy(update={"pins": {}})
    assert known_unsound(spec("leanprover/lean4:v4.34.0")) == ()
    assert {b.id for b in known_unsound(spec("leanprover/lean4:v4.34.0"), lean_alone)} == {
        "lean4#15241", "lean4#15289"}
    assert known_unsound(spec("leanprover/lean4:v4.34.1"), lean_alone) == ()


def test_the_test_graphs_pin_is_sound() -> None:
    from tests.graphs import DEFAULT_TOOLCHAIN
    assert known_unsound(spec(DEFAULT_TOOLCHAIN)) == ()


# --- installing the pinned kernels ---------------------------------------------------------

def test_install_kernels_builds_each_pinned_commit(tmp_path: Any, monkeypatch: Any) -> None:
    from network import proc
    from network.errors import LemmataError
    from network.gate.lean import install

    monkeypatch.setattr(K, "soundness_record", lambda: record(lean4lean=None))
    calls: list[list[str]] = []

    def run(argv: list[str], cwd: Any = None, timeout_s: float = 0) -> proc.Completed:
        calls.append(list(argv))
        if argv[-2:] == ["rev-parse", "HEAD"]:
            return proc.Completed(0, head + "\n", "", tuple(argv))
        if argv[:2] == ["cargo", "build"]:
            (cwd / "target" / "release").mkdir(parents=True)
            (cwd / "target" / "release" / "nanoda_bin").write_text("bin")
        return proc.Completed(0, "", "", tuple(argv))

    head = C1
    said: list[str] = []
    install.install_kernels(pins_root=tmp_path, run=run, say=said.append)
    tools = tmp_path / "tools"
    assert (tools / "nanoda_bin").read_text() == "bin"
    assert (tools / "nanoda_bin.commit").read_text() == C1 + "\n"
    assert ["git", "-C", str(tools / "src" / "nanoda"), "checkout", "--quiet", "--detach",
            C1] in calls
    assert any("lean4lean: the soundness record pins no commit" in s for s in said)
    assert not (tools / "lean4lean").exists()
    head = "9" * 40  # the checkout is not the pinned commit: nothing is built
    (tools / "nanoda_bin.commit").unlink()
    calls.clear()
    with pytest.raises(LemmataError) as exc:
        install.install_kernels(pins_root=tmp_path, run=run)
    assert exc.value.code == "toolchain-install-failed"
    assert not any(c[:1] == ["cargo"] for c in calls)
    assert not (tools / "nanoda_bin.commit").exists()


def test_every_defence_names_real_code_and_tests() -> None:
    """A bypass entry's defence is a file of this repository and tests that exist (so the
    record cannot claim a defence nobody wrote)."""
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    for e in K.soundness_record().entries:
        if e.defence is None:
            continue
        assert (root / e.defence.where).is_file(), (e.id, e.defence.where)
        assert e.defence.tests, f"{e.id}: a defence without a test"
        for ref in e.defence.tests:
            path, _, name = ref.partition("::")
            text = (root / path).read_text(encoding="utf-8")
            assert re.search(rf"^def {re.escape(name)}\(", text, re.MULTILINE), (e.id, ref)
