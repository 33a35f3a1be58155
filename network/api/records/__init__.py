"""The routes of the record's words and acts (D-3, D-14, D-25 v3.35, D-30, D-32, D-35;
issue 34's room ``records``).

Literature proposals and readings, glosses and explainers (``words``), shelving,
registrations, the panel's motions and approvals (``panel``), pertinence signatures, the
formalization review's acts and reads (``reviews``, its routes ``review_routes``; D-9
v3.39), and the HTTP routes of record writes and curator acts (``record_routes``,
``record_acts``).

May import: ``people``, ``submit``, ``identity``, ``deps`` and the foundation. Never
``git`` or the app.
"""
