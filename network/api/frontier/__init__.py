"""The frontier as the service answers it (D-25, D-28, ruling 13; issue 34's room
``frontier``).

Its body and query form, the rendered and cached ``GET /frontier.json``, its pages, and the
live claim registry with its history (``claims``, ``claim_history``), which the frontier
shows beside each node.

May import: ``identity`` (a claim names its identity) and the foundation (``service``,
``db``, ``graphs``, ``transport``). Never ``people``, ``submit``, ``records``, ``git`` or the
app.
"""
