"""The trainer (issue 14): proposer policies learned from the record, judged only by the
gate, submitting like any contributor.

This milestone is torch-free: the dataset compiler (:mod:`network.trainer.dataset`), the
prompt contract (:mod:`network.trainer.prompts`) and the reward (:mod:`network.trainer.reward`).
Nothing here imports torch, transformers, peft, ray, trl or vllm; docs/trainer.md says
what exists and what does not yet.
"""
