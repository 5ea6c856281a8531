#!/usr/bin/env bash
# The test command (README, .ci/run): installs dependencies, builds with warnings as errors, runs
# every test through ctest (GPU tests report skipped without a GPU), then the report gate.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
build=${BUILD_DIR:-build-ci}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOLLBENCH_WERROR=ON
cmake --build "$build" -j "${BUILD_JOBS:-$(nproc)}"
ctest --test-dir "$build" --output-on-failure -j "${TEST_JOBS:-$(nproc)}"
bash ci/gate-reports.sh "$build/reports/collreport"
