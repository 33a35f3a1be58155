"""The gate on GitHub: the unprivileged export job, the trusted job that judges, signs and
merges, its artifact, and re-judging held pull requests (D-4, ruling 6; issue 34's room
``github``).

May import: ``run``, ``lean``, ``sandbox``, ``artifacts``, ``attestation``, ``diff``,
``result`` and the layers below the gate. Never ``queue`` or ``postmerge``.
"""
