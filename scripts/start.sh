#!/usr/bin/env bash
# Sets everything up, then starts a local single-validator Strata node. The first run
# initialises a home (STRATA_HOME, default ~/.strata) with funded development accounts and
# prints them with their keys; point viem, ethers or `cast` at http://127.0.0.1:8545.
# Stop it with Ctrl-C (a clean shutdown).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
home="${STRATA_HOME:-$HOME/.strata}"
if [ ! -f "$home/config/genesis.json" ]; then
  node dist/src/cli/stratad.js init --chain-id strata-local-1 local --home "$home"
fi
exec node --max-semi-space-size=64 dist/src/cli/stratad.js start --home "$home"
