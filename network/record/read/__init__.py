"""Reading a graph into typed models (docs/record.md; issue 17; issue 34's room ``read``).

The loader and the one parser of record bytes (``loader``, ``parse``, ``plain``), where the
bytes come from (``source``), the scoped base graph of one submission, the blob cache, the
forked prefetching worker, reloading after a merge and the per-target scan.

May import: the record's models and layout, and the layers below the record. Never
``derive``, ``products`` or anything else that reads through it.
"""
