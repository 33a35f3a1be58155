"""The merge queue (D-4, issue 16; issue 34's room ``queue``).

The strictly ordered queue over the forge, its health, and its journal of what one judged
pull request's handling has done.

May import: ``run``, ``postmerge``, ``attestation``, ``diff`` and everything they import.
Never ``github``.
"""
