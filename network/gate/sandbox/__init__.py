"""Where untrusted Lean runs, and how the gate reads what it left (D-4 step 3; issue 34's
room ``sandbox``).

The bubblewrap sandbox, the lake workspace written from pins alone, the scratch folders
and the link-safe reading and writing of host files (``safe_io``).

May import: the layers below the gate only (``lean`` builds on it, so it imports nothing
else of the gate).
"""
