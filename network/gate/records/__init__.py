"""Step 2's rules for the records that make roles and acts (D-4 step 2, D-14, D-30, D-32,
D-33; issue 34's room ``records``).

Actors and signatures (``actors``, ``references``), role records, panel and approval rules,
shelving reach, dormancy evidence, pertinence signatures and reviews of held proofs.

May import: ``artifacts``, ``diff``, ``result`` and the layers below the gate. Never
``steps``, ``run``, ``queue``, ``postmerge`` or ``github``.
"""
