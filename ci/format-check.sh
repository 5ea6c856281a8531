#!/usr/bin/env bash
# Checks that every C++/CUDA source of the repository is as the repository's .clang-format writes
# it, with the pinned clang-format of ci/setup.sh. Lists the files that differ; `--fix` rewrites
# them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=${CLANG_FORMAT:-clang-format-14}
command -v "$formatter" >/dev/null || { echo "ci/format-check.sh: $formatter not found (ci/setup.sh installs it)" >&2; exit 1; }
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h' '*.cc')
if [ "${1:-}" = "--fix" ]; then
  "$formatter" -i "${files[@]}"
  exit 0
fi
differing=()
for file in "${files[@]}"; do
  "$formatter" --dry-run --Werror "$file" >/dev/null 2>&1 || differing+=("$file")
done
if ((${#differing[@]})); then
  printf 'ci/format-check.sh: %s differs from .clang-format\n' "${differing[@]}" >&2
  echo "ci/format-check.sh: ${#differing[@]} of ${#files[@]} files differ ($formatter); fix with: bash ci/format-check.sh --fix" >&2
  exit 1
fi
echo "ci/format-check.sh: ${#files[@]} files formatted"
