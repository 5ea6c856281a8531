#!/usr/bin/env bash
# The test command (README, .ci/run): installs dependencies, checks the format, builds with
# warnings as errors, runs every test through ctest (GPU tests report skipped without a GPU), then
# the report gate.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
bash ci/format-check.sh
build=${BUILD_DIR:-build-ci}
# Device code is compiled to PTX only (compute_90): nothing runs it here, and machine-code
# generation (ptxas) is most of the build's time. ci/main.sh and ci/build-bundle.sh build sm_90 code.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOLLBENCH_WERROR=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90-virtual}"
cmake --build "$build" -j "${BUILD_JOBS:-$(nproc)}"
ctest --test-dir "$build" --output-on-failure -j "${TEST_JOBS:-$(nproc)}"
bash ci/gate-reports.sh "$build/reports/collreport"
