#!/usr/bin/env bash
# Builds collbench here and packs what the GPU machine needs into bundle/ (carried to it by the
# device tool): the binaries, the GPU test binaries, the few Debian shared libraries that machine
# lacks (Google Benchmark, fmt), collbench's own shared kernel library, and libdw/libelf so nsys there can write real reports.
# Usage: ci/build-bundle.sh [BUILD_DIR] [TARGET...]   (default: every target; then carry "bundle"
# and run ci/device-run.sh there)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
# Outputs of targets the build no longer has (a binary that moved folders) must not be bundled.
ninja -C "$build" -t cleandead >/dev/null
ninja -C "$build" "$@"

rm -rf bundle
mkdir -p bundle/bin bundle/lib
# Every executable the build made (benchmarks, tools, GPU test binaries), without CMake's own and
# without the CPU-only tests, which CI runs (the carried tree must stay under the device's 64 MiB).
targets=("$@")
find "$build" -type f -executable \( -path '*/bench/*' -o -path '*/apps/*' -o -path '*/tests/*' -o -path '*/reports/*' \) \
  ! -path '*/CMakeFiles/*' ! -name '*.so*' ! -name '*.sh' ! -name '*_unit_tests' ! -name 'collreport_test' \
  ! -name 'collreport_fixtures' -print | while read -r file; do
    # With an explicit target list, ship only those (stale binaries of others stay behind).
    if ((${#targets[@]} == 0)) || [[ " ${targets[*]} " == *" $(basename "$file") "* ]]; then cp "$file" bundle/bin/; fi
  done
cp tests/collbench/cli_test.sh bundle/bin/
mkdir -p bundle/support && cp tests/support/cli_checks.sh bundle/support/  # what cli_test.sh sources
find "$build" -name 'libcollbench_*.so' ! -path '*/CMakeFiles/*' -exec cp {} bundle/lib/ \;
for lib in libbenchmark.so.1debian libfmt.so.9; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" bundle/lib/
done
bash ../shared/device/fetch-nsys-libs.sh bundle/nsys-lib >/dev/null
strip --strip-unneeded bundle/bin/* bundle/lib/libcollbench_*.so 2>/dev/null || true
du -sh bundle
ls bundle/bin
