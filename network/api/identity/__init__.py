"""Who a caller is (D-19 v3.28/v3.29, D-23, D-35; issue 34's room ``identity``).

Identities, write tokens and recovery codes (``identity``), the pseudonyms a new identity
may take and their look-alike screen (``pseudonyms``, ``confusables``), the web session's
stored form (``session_store``) and the role acts the service files for a person
(``role_acts``).

May import: ``network.api``'s foundation (``service``, ``db``, ``settings``, ``guidance``)
and the layers below the service. Never the routes' rooms (``people``, ``submit``,
``records``, ``frontier``, ``git``) or the app.
"""
