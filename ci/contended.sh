#!/usr/bin/env bash
# Runs one command under one fault made by another program, collbench_contend (for
# ci/device-run.sh real_faults): starts the generator, waits for its ready line, runs the command,
# then stops the generator (SIGTERM) and waits for it. With --cpu-starve the generator can only be
# ready once the command runs: the command starts as soon as the generator says it is waiting for
# its target, and the generator catches it within milliseconds. The generator writes its ground
# truth to TRUTH_FILE once ready (no file: it never was).
# Usage: CONTEND=PATH/collbench_contend ci/contended.sh TRUTH_FILE CONTEND_ARGS... -- COMMAND...
#   READY_TIMEOUT_S (60): how long the generator may take to be ready.
# Exit status: the command's; 1 without running it when a GPU load never became ready; 2 bad usage.
set -uo pipefail
contend=${CONTEND:-$(dirname "$0")/../bundle/bin/collbench_contend}
truth=${1:?usage: contended.sh TRUTH_FILE CONTEND_ARGS... -- COMMAND...}
shift
load=()
while (($#)) && [ "$1" != "--" ]; do load+=("$1"); shift; done
if [ "${1:-}" != "--" ] || (($# < 2)); then
  echo "contended.sh: usage: contended.sh TRUTH_FILE CONTEND_ARGS... -- COMMAND..." >&2
  exit 2
fi
shift
ready_timeout_s=${READY_TIMEOUT_S:-60}
logs=$(mktemp -d)
generator="" command=""

stop_generator() {  # SIGTERM, then SIGKILL after 20 s; prints what the generator said
  if [ -n "$generator" ]; then
    kill -TERM "$generator" 2>/dev/null
    for _ in $(seq 200); do kill -0 "$generator" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$generator" 2>/dev/null && echo "contended.sh: collbench_contend ignored SIGTERM: killed"
    wait "$generator"
    echo "contended.sh: collbench_contend exit status $?"
    generator=""
  fi
  sed 's/^/  contend stdout: /' "$logs/out" 2>/dev/null
  sed 's/^/  contend stderr: /' "$logs/err" 2>/dev/null
}
cleanup() {
  [ -n "$command" ] && kill -TERM "$command" 2>/dev/null && wait "$command"
  stop_generator
  rm -rf "$logs"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# wait_for FILE PATTERN SECONDS [PID]: until FILE holds PATTERN; 1 when the time passes, the
# generator ends or process PID ends first.
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -q -- "$2" "$1"; do
    if ((SECONDS >= deadline)) || ! kill -0 "$generator" 2>/dev/null ||
      { [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; }; then
      grep -q -- "$2" "$1"
      return
    fi
    sleep 0.02
  done
}

rm -f "$truth"
: >"$logs/out"
: >"$logs/err"
"$contend" "${load[@]}" --truth "$truth" >"$logs/out" 2>"$logs/err" &
generator=$!
if [[ " ${load[*]} " == *" --cpu-starve "* ]]; then
  if ! wait_for "$logs/err" "waiting:" 30; then
    echo "contended.sh: collbench_contend did not start waiting for its target: command not run" >&2
    exit 1
  fi
  "$@" </dev/null &
  command=$!
  wait_for "$logs/out" "ready:" "$ready_timeout_s" "$command" ||
    echo "contended.sh: collbench_contend never pinned its target: the command ran unstarved" >&2
else
  if ! wait_for "$logs/out" "ready:" "$ready_timeout_s"; then
    echo "contended.sh: collbench_contend not ready (it ended, or $ready_timeout_s s passed): command not run" >&2
    exit 1
  fi
  # In the background, so that a SIGTERM (the step's timeout) reaches the trap at once.
  "$@" </dev/null &
  command=$!
fi
wait "$command"
status=$?
command=""
echo "contended.sh: command exit status $status"
exit "$status"
