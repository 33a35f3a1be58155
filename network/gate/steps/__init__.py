"""The gate's steps, one module per step (D-4), moved out of ``network/gate/run.py``
(issue 17); :mod:`network.gate.run` keeps the plan per artifact kind and the loop, and
re-exports every name these modules hold.

Every step returns the one typed result, :class:`network.gate.result.StepResult` (step,
ok, code, diagnostics; STYLE.md rule 5), and what one step hands the next travels on the
artifact's run state, :class:`network.gate.steps.context._Run` (the comparison step 4
made and step 5 reads, the holes step 4 extracted and step 7 reads, the toolchain step 1
resolved).

* :mod:`~network.gate.steps.context`: the run's context and state, the review, helpers.
* :mod:`~network.gate.steps.static_steps`: steps 2, 6 (syntactic) 0 and 1, before any
  build; step 2 itself is :mod:`network.gate.steps.step2`.
* :mod:`~network.gate.steps.step0_precheck`, :mod:`~network.gate.steps.step1_toolchain`.
* :mod:`~network.gate.steps.plan` (what to build) and
  :mod:`~network.gate.steps.step3_build` (the two-domain build).
* :mod:`~network.gate.steps.step4_kernel` … :mod:`~network.gate.steps.step9_review`.
* :mod:`~network.gate.steps.decls`: declaration names and gate-written hole statements.
* :mod:`~network.gate.steps.outcome`: the outcome types and the attestation.

May import: ``lean``, ``screens``, ``sandbox``, ``records``, ``artifacts``, ``attestation``,
``diff``, ``result`` and the layers below the gate. Never ``run``, ``queue``,
``postmerge`` or ``github``, which build on the steps.
"""
