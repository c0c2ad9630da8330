#!/usr/bin/env bash
# Sets everything up, then runs every test: the layer rule (dependency-cruiser), the C++ suite
# (ctest) and the TypeScript suite (tap). Ends with one line "N passed, N failed" covering all.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

log=$(mktemp -d)
# The import rule of docs/ARCHITECTURE.md: an upward import between layers fails the run.
npx depcruise src --config .dependency-cruiser.cjs 2>&1 | tee "$log/layers.txt"
layers_rc=${PIPESTATUS[0]}
ctest --test-dir build --output-on-failure -j2 2>&1 | tee "$log/ctest.txt"
ctest_rc=${PIPESTATUS[0]}
npx tap 2>&1 | tee "$log/tap.txt"
tap_rc=${PIPESTATUS[0]}

# ctest: "100% tests passed, 0 tests failed out of 57"
c_total=$(grep -oE 'tests failed out of [0-9]+' "$log/ctest.txt" | grep -oE '[0-9]+$' || echo 0)
c_failed=$(grep -oE '[0-9]+ tests failed out of' "$log/ctest.txt" | grep -oE '^[0-9]+' || echo 0)
# tap: "# { total: 12, pass: 11, fail: 1 }" counts test files' assertions.
t_pass=$(grep -oE '# \{ total: [0-9]+, pass: [0-9]+' "$log/tap.txt" | tail -1 | grep -oE '[0-9]+$' || echo 0)
t_fail=$(grep -oE 'fail: [0-9]+' "$log/tap.txt" | tail -1 | grep -oE '[0-9]+$' || echo 0)
passed=$(( c_total - c_failed + t_pass ))
failed=$(( c_failed + t_fail ))
if [ "$layers_rc" -eq 0 ]; then passed=$(( passed + 1 )); else failed=$(( failed + 1 )); fi
# A runner that failed without counting a failure (crash, timeout) still fails the run.
if [ "$ctest_rc" -ne 0 ] && [ "$c_failed" -eq 0 ]; then failed=$(( failed + 1 )); fi
if [ "$tap_rc" -ne 0 ] && [ "$t_fail" -eq 0 ]; then failed=$(( failed + 1 )); fi
rm -rf "$log"
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
