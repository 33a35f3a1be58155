"""Writes that become pull requests (D-28, D-35, D-25 v3.21; issue 34's room ``submit``).

Prechecks (``precheck``) and hosted checks (``checks``), submissions and their routes, the
one path a record write takes to a pull request (``record_pr``, ``records``), collision-free
record file names (``names``) and the reconciliation of writes left ``opening``
(``openings``).

May import: ``identity``, ``frontier`` (a submission releases its claim), ``reads``,
``deps`` and the foundation. Never ``people``, ``records``, ``git`` or the app.
"""
