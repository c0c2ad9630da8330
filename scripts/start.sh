#!/usr/bin/env bash
# Sets everything up, then runs Strata's main job. Until the node exists this is the state
# store benchmark in quick mode (under a minute); pass --full for the real numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${1:-}" = "--full" ]; then
  exec npm run --silent bench:store
fi
exec npm run --silent bench:store -- --quick
