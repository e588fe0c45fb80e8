#!/bin/bash
# Runs one reference BLAS/LAPACK test program with libswitchyard.so preloaded
# and fails unless the program reports every test passed AND the trace shows
# its calls went through Switchyard (on the forced route, when one is forced).
#
# usage: run_suite.sh PRELOAD KIND PROGRAM INPUT PASSED_LINES ROUTINES [VAR=VALUE...]
#   PRELOAD       LD_PRELOAD: libswitchyard.so (libswitchyard64.so for the
#                 64-bit programs), after the sanitizer's runtime in a
#                 sanitizer build
#   KIND          blas3 (summary in the file named by INPUT), cblas3 or lin (stdout)
#   INPUT         a file beside PROGRAM, or an absolute path
#   PASSED_LINES  how many "passed" lines a complete run prints
#   ROUTINES      comma-separated routines that must appear in the trace
#   VAR=VALUE     extra environment, e.g. SWITCHYARD_ROUTE_DGEMM=fallback
set -u
preload=$1 kind=$2 program=$3 input=$4 passed_lines=$5 routines=$6
shift 6

fail() { echo "FAIL: $*"; exit 1; }
source "$(dirname "$0")/../check_forced_route.sh"

# The test programs: on the PATH (the GPU machine stages them there), else
# where Debian's libblas-test and liblapack-test install them. The 64-bit ones
# of libblas64-test and liblapack64-test have the same names in their own
# folders, and are given with the folder: blas64/xblat3d, lapack64/xlintstd,
# looked for in each PATH folder too.
find_program() {
  command -v "$1" 2>/dev/null && return
  local path_dirs
  IFS=: read -r -a path_dirs <<< "$PATH"
  for dir in "${path_dirs[@]}" /usr/lib/x86_64-linux-gnu/blas /usr/lib/x86_64-linux-gnu/lapack \
      /usr/lib/x86_64-linux-gnu; do
    [ -x "$dir/$1" ] && { echo "$dir/$1"; return; }
  done
}
exe=$(find_program "$program")
[ -n "$exe" ] || fail "$program not found (install libblas-test and liblapack-test, or libblas64-test and liblapack64-test)"
case $input in
  /*) input_file=$input ;;                     # an input file of the project's own
  *) input_file=$(dirname "$exe")/$input ;;    # a standard one, beside the program
esac
[ -f "$input_file" ] || fail "$input_file not found"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
env "$@" SWITCHYARD_TRACE="$work/trace" LD_PRELOAD="$preload" "$exe" < "$input_file" \
  > stdout 2> stderr
status=$?
[ $status -eq 0 ] || { cat stdout stderr; fail "$program exited with status $status"; }

case $kind in
  blas3) summary=$(sed -n "1s/^'\([^']*\)'.*/\1/p" "$input_file"); output=$work/$summary ;;
  *) output=$work/stdout ;;
esac
[ -f "$output" ] || fail "$program wrote no output"

if grep -inE 'fail|\*\*\*' "$output" > failures; then
  head -20 failures
  fail "$program reports failures"
fi
if [ "$kind" = lin ]; then
  grep -q 'End of tests' "$output" || fail "$program did not finish"
fi
passed=$(grep -ciE 'passed' "$output")
[ "$passed" -ge "$passed_lines" ] || fail "$program printed $passed passed lines, expected $passed_lines"
if [ -s stderr ]; then cat stderr; fail "stderr is not empty"; fi

# The calls went through Switchyard, on the forced route where one is forced.
for routine in ${routines//,/ }; do
  grep -q " $routine " trace || fail "no $routine call in the trace"
  upper=$(echo "$routine" | tr a-z A-Z)
  forced=$(printf '%s\n' "$@" | sed -n "s/^SWITCHYARD_ROUTE_$upper=//p")
  if [ -n "$forced" ]; then
    check_forced_route trace "$routine" "$forced" || exit $?
  fi
done
echo "PASS: $program ($passed passed lines, $(wc -l < trace) calls traced) $*"
