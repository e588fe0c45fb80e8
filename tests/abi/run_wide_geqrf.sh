#!/bin/bash
# Runs the 2^31 + 1 row SGEQRF (wide_geqrf.f90) through expect_output.sh when the machine has the
# 8 GiB its matrix takes and some to spare; otherwise says why and exits 77, which CTest reports
# as skipped.
#
#   run_wide_geqrf.sh EXPECT_OUTPUT [expect_output's options...] -- PROGRAM
set -u
available_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
needed_kib=$((10 * 1024 * 1024))
if [ "${available_kib:-0}" -lt "$needed_kib" ]; then
  echo "run_wide_geqrf.sh: $((available_kib / 1024)) MiB available, 10 GiB needed: not run"
  exit 77
fi
exec "$@"
