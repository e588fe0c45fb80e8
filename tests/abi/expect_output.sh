#!/bin/bash
# Runs a command and checks its exit status and its stdout and stderr,
# each on its own, against extended regular expressions (grep -E).
#
#   expect_output.sh [--stdout RE]... [--stderr RE]... [--no-stdout RE]...
#                    [--no-stderr RE]... -- COMMAND [ARGS...]
#
# --stdout/--stderr RE: some line of that stream must match RE.
# --no-stdout/--no-stderr RE: no line of that stream may match RE.
# The command must exit 0. Both streams are shown, then what failed.
set -u

checks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --stdout | --stderr | --no-stdout | --no-stderr)
      [ $# -ge 2 ] || { echo "expect_output.sh: $1 needs a pattern" >&2; exit 2; }
      checks+=("$1" "$2")
      shift 2 ;;
    --) shift; break ;;
    *) echo "expect_output.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "expect_output.sh: no command given" >&2; exit 2; }

dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT

"$@" >"$dir/stdout" 2>"$dir/stderr"
status=$?

failures=()
[ "$status" -eq 0 ] || failures+=("exit status $status")
for ((i = 0; i < ${#checks[@]}; i += 2)); do
  option=${checks[i]} pattern=${checks[i + 1]}
  stream=${option#--}
  stream=${stream#no-}
  if grep -Eq -- "$pattern" "$dir/$stream"; then
    [ "$option" = "--$stream" ] || failures+=("a line of $stream matches: $pattern")
  else
    [ "$option" != "--$stream" ] || failures+=("no line of $stream matches: $pattern")
  fi
done

echo "---- stdout of: $*"
cat "$dir/stdout"
echo "---- stderr"
cat "$dir/stderr"
echo "----"
for failure in "${failures[@]+"${failures[@]}"}"; do echo "FAIL: $failure"; done
[ ${#failures[@]} -eq 0 ] || exit 1
echo "ok: exit 0 and $((${#checks[@]} / 2)) output checks passed"
