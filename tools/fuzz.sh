#!/bin/bash
# The fuzz targets (tests/fuzz): builds them with clang in build-fuzz and runs
# each for SECONDS (default 600) on its corpus in tests/fuzz/corpus/<target>,
# failing on the first crash, leak, sanitizer report or timeout. New inputs go
# to build-fuzz/corpus/<target>, not into the repository; a crashing input is
# written to build-fuzz/ (crash-*) to be added to the corpus once fixed.
#   tools/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_cg_input fuzz_tuning_entry fuzz_env_config fuzz_argument_checks
  fuzz_dsdcg_arguments)

CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSWITCHYARD_WITH_CUDA=OFF -DSWITCHYARD_FUZZ=ON -DBUILD_TESTING=OFF \
  > build-fuzz.log 2>&1 || { cat build-fuzz.log; exit 1; }
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}" >> build-fuzz.log 2>&1 \
  || { tail -50 build-fuzz.log; exit 1; }

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t"
  # The repository's corpus first: every seed (and every past crash kept
  # there) is replayed before any new input is tried.
  build-fuzz/tests/fuzz/"$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=build-fuzz/ \
    "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" > "build-fuzz/$t.log" 2>&1 \
    || { tail -40 "build-fuzz/$t.log"; echo "fuzz.sh: $t failed"; exit 1; }
  echo "$t: $(grep -m1 -o 'Done [0-9]* runs in [0-9]* second(s)' "build-fuzz/$t.log")"
done
