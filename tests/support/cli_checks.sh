# The checks every command-line test (tests/*/*cli_test.sh) makes, sourced after setting
# cli_binary (the binary under test) and cli_name (how the lines name it). Each check prints
# "ok: ..." or "FAIL: ..."; cli_summary prints the totals and fails when any check failed.
passed=0
failures=0

record() {  # record NAME STATUS WHY: STATUS 0 passes; otherwise WHY says what went wrong
  if [ "$2" = 0 ]; then
    echo "ok: $1"; passed=$((passed + 1))
  else
    echo "FAIL: $1: $3"; failures=$((failures + 1))
  fi
}

# expect_one_line WANT_STATUS FRAGMENT ARGS...: the binary exits WANT_STATUS with exactly one line
# on stderr, holding FRAGMENT.
expect_one_line() {
  local want=$1 fragment=$2; shift 2
  local err status
  err=$("$cli_binary" "$@" 2>&1 >/dev/null); status=$?
  [ "$status" -eq "$want" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"$fragment"* ]]
  record "$cli_name $* -> $err" $? "exit $status (wanted $want, one line holding '$fragment')"
}

expect_usage_error() {  # expect_usage_error FRAGMENT ARGS...: bad input, exit 2
  expect_one_line 2 "$@"
}

cli_summary() {  # cli_summary LABEL
  echo "$1: $passed passed, $failures failed"
  [ "$failures" -eq 0 ]
}
