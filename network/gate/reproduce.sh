#!/bin/sh
# reproduce.sh — re-run gate steps 1-8 for a published attestation (D-5).
#
#   network/gate/reproduce.sh GRAPH_REPO attestations/<id>.json
#
# Exits 0 when the rerun's attestation is identical to the published one once the
# run-environment fields (runner, merge_commit, signature) are masked (D-34), 1 when not.
# Needs the toolchain pinned in the target's gate-spec.json (elan) and bubblewrap.
set -eu
if [ "$#" -ne 2 ]; then
  echo "usage: $0 GRAPH_REPO ATTESTATION_JSON" >&2
  exit 3
fi
exec "${LEMMATA:-lemmata}" gate reproduce --graph "$1" --attestation "$2"
