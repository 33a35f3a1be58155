"""The trainer's reward is the gate's verdict and nothing weaker (issue 14; seed 004): a
good proof scores 1, and `sorry`, a user axiom, native_decide without a waiver and an
echoed answer(…) score 0; without a toolchain nothing scores (None, never 1). Judged with
the recorded stand-in over recordings the gate scenarios already hold."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from network.errors import LemmataError
from network.gate.lean.toolchain import MissingToolchain
from network.gate.sandbox.sandbox import Sandbox
from network.trainer.prompts import render
from network.trainer.reward import gate_reward, proof_reward
from tests.gate_scenarios import ND, P_NATIVE_MID, PROOF_MID, T, base_repo

sys.path.insert(0, str(Path(__file__).parent))
from standin import RecordedToolchain
from test_questions import ECHO_STMT, _variant


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[Path, str]:
    b, base = base_repo(tmp_path / "g")
    return b.root, base


def _proof(repo: tuple[Path, str], text: str, **kw: object) -> object:
    root, base = repo
    kw.setdefault("toolchain", RecordedToolchain)
    return proof_reward(root, base, target=T, node="mid", text=text, sandbox=Sandbox(),
                        **kw)  # type: ignore[arg-type]


def test_a_good_proof_scores_one(repo: tuple[Path, str]) -> None:
    got = _proof(repo, PROOF_MID)
    assert got.reward == 1.0 and got.verdict == "pass" and got.diagnostics == ()


@pytest.mark.parametrize(("name", "text", "step", "code"), [
    ("sorry", PROOF_MID.replace("simpa using Demo.base_lemma n", "sorry"), 5, "sorry-used"),
    ("user axiom", "axiom Demo.cheat : False\n\n" + PROOF_MID, 2, "axiom-declared"),
    ("native_decide, no waiver", P_NATIVE_MID, 5, "native-code-used"),
])
def test_a_cheat_scores_zero(repo: tuple[Path, str], name: str, text: str, step: int,
                             code: str) -> None:
    got = _proof(repo, text)
    assert got.reward == 0.0, name
    assert (got.first_failing_step, got.code) == (step, code)
    assert any(d.code == code for d in got.diagnostics)


def test_an_echoed_answer_scores_zero(repo: tuple[Path, str]) -> None:
    """Formal Conjectures #4923: answer(…) restating its other side holds by rfl; the gate
    refuses it at step 6 before any build, and the reward follows the gate."""
    root, base = repo
    files = {p: (d.decode() if isinstance(d, bytes) else d)
             for p, d in _variant("v", "Demo.v", ECHO_STMT).items() if d is not None}
    got = gate_reward(root, base, files, target=T, node="v", toolchain=RecordedToolchain,
                      sandbox=Sandbox(), submitter="alice")
    assert got.reward == 0.0 and got.code == "answer-restates-target"
    # no toolchain changes nothing: the refusal needs no Lean, and it is still a 0
    none = gate_reward(root, base, files, target=T, node="v", toolchain=MissingToolchain,
                       sandbox=Sandbox(), submitter="alice")
    assert none.reward == 0.0


def test_no_toolchain_is_no_reward_never_one(repo: tuple[Path, str]) -> None:
    got = _proof(repo, PROOF_MID, toolchain=MissingToolchain)
    assert got.reward is None and got.verdict == "toolchain-missing"


def test_bytes_the_stand_in_never_saw_are_not_judged(repo: tuple[Path, str]) -> None:
    """A model's unrecorded output: the stand-in answers toolchain-missing, so the reward
    is None (nothing checked), never a pass."""
    got = _proof(repo, PROOF_MID + "-- a policy's sample\n")
    assert got.reward is None


def test_a_statement_edit_riding_with_a_proof_scores_zero(repo: tuple[Path, str]) -> None:
    root, base = repo
    got = proof_reward(root, base, target=T, node="mid", text=PROOF_MID, sandbox=Sandbox(),
                       toolchain=RecordedToolchain,
                       extra=None)
    assert got.reward == 1.0
    edited = gate_reward(root, base, {f"{ND}/mid/Proof.lean": PROOF_MID,
                                      f"{ND}/mid/Statement.lean": "theorem Demo.mid : True "
                                      ":= trivial\n"},
                         target=T, node="mid", toolchain=RecordedToolchain,
                         sandbox=Sandbox())
    assert edited.reward == 0.0


def test_a_hostile_path_is_refused_before_any_commit(repo: tuple[Path, str]) -> None:
    root, base = repo
    with pytest.raises(LemmataError) as err:
        gate_reward(root, base, {"../escape.lean": "x"}, target=T, node="mid",
                    toolchain=RecordedToolchain, sandbox=Sandbox())
    assert err.value.code == "hostile-path"


def test_repair_prompt_shows_codes_not_messages(repo: tuple[Path, str]) -> None:
    """The reward's diagnostics feed a repair prompt: step and code, no gate message."""
    got = _proof(repo, PROOF_MID.replace("simpa using Demo.base_lemma n", "sorry"))
    bundle = {"target": T, "node": "mid", "meta": {"declaration": "Demo.mid", "deps": []},
              "files": {"Statement": {"text": "theorem Demo.mid (n : Nat) : n + 0 + 0 = n "
                                              ":= by\n  sorry\n"}}}
    text = render(bundle, "repair", attempt="my attempt", diagnostics=got.diagnostics)
    assert "step 5: sorry-used" in text and "my attempt" in text
