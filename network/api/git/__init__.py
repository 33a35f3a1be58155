"""The forge over git's smart HTTP for plain-git contributors (issue 11; issue 34's room
``git``).

May import: ``identity``, ``submit`` (a push becomes a submission), ``deps`` and the
foundation.
"""
