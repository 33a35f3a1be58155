"""Test doubles of the trainer (tests only, never product code).

:class:`RecordedEngine` is an :class:`network.trainer.engines.Engine` that answers a
prompt with a recorded text chosen by the prompt's own ``Target:`` and ``Node:`` lines
(prompt/v1's header): the recorded good proofs the stand-in toolchain has recordings for
(``tests/api_flow_support.py``'s tutorial proof, ``tests/gate_scenarios.py``'s
``PROOF_MID``). It stands in for a policy that has learned those proofs, so the proposer's
whole path to a pull request runs without a GPU or a trained model; a node it has no
answer for gets an empty sample, which the proposer never prechecks.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence

from network.trainer.engines import Generation, Serving


class RecordedEngine:
    """Answers by (target, node); ``version`` is the adapter version it claims to serve."""

    def __init__(self, answers: Mapping[tuple[str, str], str], *, version: int = 3) -> None:
        self.answers = dict(answers)
        digest = hashlib.sha256(repr(sorted(self.answers.items())).encode()).hexdigest()
        self._serving = Serving("sha256:" + "0" * 64, f"v{version}", version, digest)
        self.prompts: list[str] = []

    def serving(self) -> Serving:
        return self._serving

    def sync(self, adapter_dir: object, version: int) -> Serving:
        raise NotImplementedError("a recorded engine serves one fixed adapter")

    def generate(self, prompts: Sequence[str], *, samples: int, max_new_tokens: int,
                 temperature: float, seed: int) -> list[list[Generation]]:
        out: list[list[Generation]] = []
        for p in prompts:
            self.prompts.append(p)
            t = re.search(r"^Target: (.+)$", p, re.MULTILINE)
            n = re.search(r"^Node: (.+)$", p, re.MULTILINE)
            text = self.answers.get((t.group(1), n.group(1)) if t and n else ("", ""), "")
            out.append([Generation(text, len(text.encode()))] * samples)
        return out


class VersionedEngine:
    """An engine whose answers depend on the adapter version it serves: ``answers[v]``
    maps (target, node) to a text. ``sync`` serves what the adapter folder holds (its
    files' digest), as an engine that really loaded them would; ``stale=True`` makes a
    sync that reports success but goes on serving the old adapter (ms-swift #9855)."""

    def __init__(self, answers: Mapping[int, Mapping[tuple[str, str], str]], *,
                 stale: bool = False) -> None:
        self.answers = {v: dict(a) for v, a in answers.items()}
        self.stale = stale
        self._serving = Serving("sha256:" + "1" * 64, None, None, None)

    def serving(self) -> Serving:
        return self._serving

    def sync(self, adapter_dir: object, version: int) -> Serving:
        from network.trainer.engines import files_sha256

        if not self.stale:
            self._serving = Serving(self._serving.base_revision, f"v{version}", version,
                                    files_sha256(str(adapter_dir)))
        return self._serving

    def generate(self, prompts: Sequence[str], *, samples: int, max_new_tokens: int,
                 temperature: float, seed: int) -> list[list[Generation]]:
        table = self.answers.get(self._serving.version or 0, {})
        out: list[list[Generation]] = []
        for p in prompts:
            t = re.search(r"^Target: (.+)$", p, re.MULTILINE)
            n = re.search(r"^Node: (.+)$", p, re.MULTILINE)
            text = table.get((t.group(1), n.group(1)) if t and n else ("", ""), "")
            out.append([Generation(text, len(text.encode()))] * samples)
        return out
