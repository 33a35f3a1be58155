"""Every Lean call the gate makes, and what it reads back (DESIGN.md "Lean"; D-4 steps 1,
4-8; issue 34's room ``lean``).

The one toolchain interface (``toolchain``) and its real adapter (``lean_toolchain``), the
typed results and checker reports, axiom identity (``axioms``), the kernels and the public
soundness record (``kernels``, ``kernel_replay``), the olean screen, finding and installing
pinned toolchains (``detect``, ``install``) and step 6's anti-echo check (``answers``). The
checkers' ``.lean`` programs lie beside these modules.

May import: ``screens``, ``sandbox``, ``result``, ``diff`` and the layers below the gate.
Never ``steps``, ``queue``, ``postmerge``, ``github``, ``records`` or ``run``.
"""
