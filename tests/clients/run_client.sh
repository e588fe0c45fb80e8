#!/bin/bash
# Runs a real client program (NumPy, SciPy, Octave, R) twice, without
# Switchyard and with libswitchyard.so preloaded and a trace, and fails unless
# both give the same results to rounding and the trace shows the routines
# Switchyard is expected to see in each of the client's cases.
#
# usage: run_client.sh LIBRARY CASES [VAR=VALUE...] -- PROGRAM [ARG...]
#   CASES      space-separated CASE=ROUTINE,... : the routed routines the
#              case calls directly (not from inside another routed call), all
#              of them and no others; CASE= when it calls none
#   VAR=VALUE  environment of the preloaded run; SWITCHYARD_ROUTE_X=ROUTE
#              also requires every call of X to have taken ROUTE
#   PROGRAM    the client; it writes its results to the file named by its last
#              argument and marks each case in the trace ("case CASE")
set -u
here=$(cd "$(dirname "$0")" && pwd)
library=$1 cases=$2
shift 2
settings=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do settings+=("$1"); shift; done
shift

fail() { echo "FAIL: $*"; exit 1; }
source "$here/../check_forced_route.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$@" "$work/plain" > "$work/plain.out" 2>&1 \
  || { cat "$work/plain.out"; fail "$* failed without Switchyard"; }
env "${settings[@]}" SWITCHYARD_TRACE="$work/trace" LD_PRELOAD="$library" \
  "$@" "$work/preloaded" > "$work/preloaded.out" 2>&1 \
  || { cat "$work/preloaded.out"; fail "$* failed under Switchyard"; }
if grep -q '^switchyard:' "$work/preloaded.out"; then
  cat "$work/preloaded.out"; fail "Switchyard printed warnings"
fi

awk -v tolerance=1e-12 -f "$here/compare_results.awk" "$work/plain" "$work/preloaded" \
  || fail "results differ under Switchyard"

# Each case's routines called at depth 0; nested calls depend on the route
# the outer call took, so they are not part of what a case is expected to do.
for expected in $cases; do
  name=${expected%%=*}
  want=$(echo "${expected#*=}" | tr , '\n' | sort -u | paste -sd' ')
  seen=$(awk -v name="$name" '
      /^case / { inside = ($2 == name); found = found || inside; next }
      inside && / depth=0 / { print $5 }
      END { if (!found) print "(case not marked)" }' "$work/trace" | sort -u | paste -sd' ')
  [ "$seen" = "$want" ] || fail "case $name: Switchyard saw [$seen], expected [$want]"
done

for setting in "${settings[@]}"; do
  case $setting in
    SWITCHYARD_ROUTE_*=*)
      routine=$(echo "${setting%%=*}" | sed 's/^SWITCHYARD_ROUTE_//' | tr A-Z a-z)
      check_forced_route "$work/trace" "$routine" "${setting#*=}" || exit $?
      ;;
  esac
done
echo "PASS: $(basename "${@: -1}") ($(grep -c '^switchyard:' "$work/trace") calls traced) ${settings[*]}"
