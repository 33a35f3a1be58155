"""What the gate reads in Lean text without elaborating it (D-4 step 2, D-9, D-10;
issues 9, 28, 32, 37; issue 34's room ``screens``).

The lexer (``lean_lex``), the command reader (``lean_commands``), the import-time screen,
the text rules and the Unicode screen.

May import: ``result`` and the layers below the gate. Nothing else of the gate.
"""
