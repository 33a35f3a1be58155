"""What the gate writes on main after a merge (D-4, D-12, D-19, D-30, D-34; issue 34's
room ``postmerge``).

The post-merge job and its parts: the closure, the holes that become nodes, the ledger
lines, the outlines and the bytes it writes.

May import: ``run``, ``artifacts``, ``lean``, ``attestation``, ``diff`` and the layers below
the gate. Never ``queue`` or ``github``.
"""
