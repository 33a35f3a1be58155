"""The trainer (issue 14): proposer policies learned from the record, judged only by the
gate, submitting like any contributor.

The dataset compiler (:mod:`network.trainer.dataset`), the prompt contract
(:mod:`network.trainer.prompts`), the reward (:mod:`network.trainer.reward`), the engines
(:mod:`network.trainer.engines`), LoRA SFT with run identity and saved-policy admission
(:mod:`network.trainer.sft`), kernel-judged evaluation (:mod:`network.trainer.evaluate`),
the history (:mod:`network.trainer.history`) and what the CLI runs
(:mod:`network.trainer.pipeline`). Every ML import (torch, transformers, peft) is inside a
function, so importing any of these pulls in none; docs/trainer.md says what exists and
what does not yet.
"""
