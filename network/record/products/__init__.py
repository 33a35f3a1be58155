"""The graph's derived products, written byte for byte deterministic (docs/record.md;
issue 17; issue 34's room ``products``).

``products`` writes and checks them; ``incremental`` re-derives only what a merge touched.

May import: ``derive``, ``read``, the record's models and the derived views it writes
(``panel``, ``dormancy``, ``pertinence``). Nothing above the record.
"""
