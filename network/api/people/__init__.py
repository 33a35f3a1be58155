"""A signed-in person and the acts they take on the site (D-35 v3.33, D-32, D-4 step 9;
issue 34's room ``people``).

GitHub sign-in and the operator's link (``sign_in``), web sessions (``web_session``), the
signed pseudonym-login binding they file (``identity_records``), joining and leaving a panel
(``stewards``), display names, the person's own page (``me``) and reviews of held proofs
(``proof_reviews``).

May import: ``identity``, ``submit`` (a person's act is a record pull request), ``deps`` and
the foundation. Never ``records``, ``frontier``, ``git`` or the app.
"""
