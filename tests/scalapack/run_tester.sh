#!/bin/bash
# Runs one of ScaLAPACK's testers (Debian's scalapack-mpi-test: xdqr, xsqr, xdls, xsls) under mpirun
# with libswitchyard.so preloaded, and fails unless it reports every test passed (or skipped,
# as many as the input makes it skip: grids larger than the run, TZ on M > N) and, from the
# trace, the routine never declined for want of MPI and, where TAKEN is yes, was taken by the
# TSQR at least once (so that a run cannot pass without it). MODE forced puts the routine on
# the CPU TSQR, gpu on the TSQR on each process's GPU, and default leaves it to the routing.
# Where there is no NVIDIA driver, gpu instead checks that every call ran in ScaLAPACK and the
# trace says why.
#
#   run_tester.sh LIBRARY TESTER INPUT RANKS SKIPPED ROUTINE forced|gpu|default TAKEN
set -u
library=$1 tester=$2 input=$3 ranks=$4 skipped=$5 routine=$6 mode=$7 expect_taken=$8
command -v mpirun > /dev/null || { echo "SKIP: no mpirun"; exit 77; }
[ -x "$tester" ] || { echo "SKIP: no $tester (Debian's scalapack-mpi-test)"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The tester reads its input under the name Debian ships it with (QR.dat, LS.dat).
cp "$input" "$work/$(basename "$input" | sed 's/^.*_//')"
cd "$work" || exit 1
# CI runs as root; containers often forbid the cross-memory attach Open MPI's shared-memory
# transport uses for large messages, and copying through the shared segment instead costs
# these small runs nothing.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
route=() backend=cpu
[ "$mode" = forced ] && route=(-x "SWITCHYARD_ROUTE_${routine^^}=cpu")
[ "$mode" = gpu ] && route=(-x "SWITCHYARD_ROUTE_${routine^^}=gpu") backend=gpu
timeout 300 mpirun --oversubscribe -np "$ranks" -x LD_PRELOAD="$library" \
  -x SWITCHYARD_TRACE="$work/trace" "${route[@]}" "$tester" > out 2>&1
status=$?

fail() {
  echo "FAIL: $*"
  tail -30 out
  exit 1
}
[ $status -eq 0 ] || fail "mpirun exited with $status"
count() { sed -n "s/^ *\([0-9]*\) $1.*/\1/p" out | tail -1; }
total=$(sed -n 's/^Finished *\([0-9]*\) tests.*/\1/p' out | tail -1)
passed=$(count "tests completed and passed")
failed=$(count "tests completed and failed")
skips=$(count "tests skipped")
[ -n "$total" ] && [ -n "$passed" ] && [ -n "$failed" ] && [ -n "$skips" ] ||
  fail "no summary in the tester's output"
grep -q "END OF TESTS" out || fail "the tester did not finish"
[ "$failed" -eq 0 ] || fail "$failed tests failed"
[ "$skips" -eq "$skipped" ] || fail "$skips tests skipped, expected $skipped"
[ "$passed" -gt 0 ] && [ $((passed + skips)) -eq "$total" ] ||
  fail "$passed of $total tests passed"

taken=$(grep -c " $routine m=.* route=$backend " trace)
if [ "$mode" = gpu ] && [ ! -e /dev/nvidiactl ]; then
  [ "$taken" -eq 0 ] || fail "$taken $routine calls took the GPU route without a driver"
  grep -q " $routine m=.* route=fallback reason=\"forced gpu: " trace ||
    fail "no $routine call says why the GPU did not take it"
  echo "PASS: $passed of $total tests passed ($skips skipped by the input); no driver, so" \
    "every $routine call ran in ScaLAPACK"
  exit 0
fi
[ "$expect_taken" = no ] || [ "$taken" -gt 0 ] || fail "the trace shows no $routine taken by the TSQR"
if grep " $routine m=" trace | grep -E 'reason="[^"]*(MPI|another process|differ|communicator|memory)'; then
  fail "$routine declined for a reason that should not arise here"
fi
echo "PASS: $passed of $total tests passed ($skips skipped by the input); $taken $routine calls" \
  "took the TSQR ($backend)"
[ "$mode" != gpu ] || grep -o "on CUDA device [0-9]*" trace | sort | uniq -c
