#!/bin/bash
# Runs compare_pgeqrf under mpirun on 4 processes with libswitchyard.so preloaded and both
# routines forced to the TSQR, and fails unless it reports every case agreeing with ScaLAPACK
# and the trace shows each routine taken by the TSQR.
#
#   run_compare.sh LIBRARY PROGRAM
set -u
library=$1 program=$2
command -v mpirun > /dev/null || { echo "SKIP: no mpirun"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# CI runs as root; containers often forbid the cross-memory attach Open MPI's shared-memory
# transport uses for large messages, and copying through the shared segment instead costs
# these small runs nothing.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
timeout 300 mpirun --oversubscribe -np 4 -x LD_PRELOAD="$library" \
  -x SWITCHYARD_ROUTE_PDGEQRF=cpu -x SWITCHYARD_ROUTE_PSGEQRF=cpu \
  -x SWITCHYARD_TRACE="$work/trace" "$program" > "$work/out" 2>&1
status=$?
fail() {
  echo "FAIL: $*"
  tail -30 "$work/out"
  exit 1
}
[ $status -eq 0 ] || fail "mpirun exited with $status"
grep -q "^PASS" "$work/out" || fail "no PASS line"
for routine in pdgeqrf psgeqrf; do
  grep -q " $routine m=.* route=cpu " "$work/trace" || fail "the trace shows no $routine taken"
done
grep -h "^PASS" "$work/out"
