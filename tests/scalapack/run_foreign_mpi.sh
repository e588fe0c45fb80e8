#!/bin/bash
# Runs the MPICH build of a ScaLAPACK QR tester (Debian's scalapack-mpi-test ships both) as a
# single process, without a launcher, with libswitchyard.so preloaded and the routine forced
# to the TSQR, and fails unless the tester reports every test passed and the trace shows every
# call handed to ScaLAPACK because the program's MPI is not Open MPI: Switchyard must not
# talk to an MPI whose ABI it does not know.
#
#   run_foreign_mpi.sh LIBRARY TESTER INPUT ROUTINE
set -u
library=$1 tester=$2 input=$3 routine=$4
[ -x "$tester" ] || { echo "SKIP: no $tester (Debian's scalapack-mpi-test)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$input" "$work/QR.dat"
cd "$work" || exit 1
timeout 300 env LD_PRELOAD="$library" SWITCHYARD_TRACE="$work/trace" \
  "SWITCHYARD_ROUTE_${routine^^}=cpu" "$tester" > out 2>&1
status=$?
fail() {
  echo "FAIL: $*"
  tail -30 out
  exit 1
}
[ $status -eq 0 ] || fail "the tester exited with $status"
grep -q "END OF TESTS" out || fail "the tester did not finish"
total=$(sed -n 's/^Finished *\([0-9]*\) tests.*/\1/p' out | tail -1)
passed=$(sed -n 's/^ *\([0-9]*\) tests completed and passed.*/\1/p' out | tail -1)
[ -n "$total" ] && [ "$total" -gt 0 ] && [ "$passed" = "$total" ] ||
  fail "${passed:-no} of ${total:-no} tests passed"
calls=$(grep -c " $routine m=" trace)
foreign=$(grep -c " $routine m=.* route=fallback reason=\"the program's MPI is not Open MPI" trace)
[ "$calls" -gt 0 ] && [ "$foreign" -eq "$calls" ] ||
  fail "$foreign of $calls $routine calls declined for the program's MPI"
echo "PASS: $passed of $total tests passed; all $calls $routine calls went to ScaLAPACK"
