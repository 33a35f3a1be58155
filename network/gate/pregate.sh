#!/bin/sh
# pregate.sh — run the gate's steps 1-2 and 4-8 on your committed change (D-27).
#
#   network/gate/pregate.sh [--graph DIR] [--base main] [--head HEAD] [--submitter P]
#                           [--sign ~/.ssh/id_ed25519] [--record]
#
# Prints JSON verdicts and the precheck attestation to paste into the pull request body
# (a fenced `precheck-attestation` block). Unsigned by default; --sign signs it with your
# SSH key (sshsig); --record appends a precheck record under the node's
# attempts/precheck/ (opt-in, D-34). Same code as the authoritative gate; the build runs in
# the same bubblewrap sandbox. Without Lean installed (elan) it answers toolchain-missing.
set -eu
exec "${LEMMATA:-lemmata}" pregate "$@"
