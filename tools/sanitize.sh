#!/bin/bash
# The sanitizer builds, after the plain one in tools/test.sh (README "Tests"
# says what each runs and why):
#   build-asan  AddressSanitizer + UndefinedBehaviorSanitizer: the unit and ABI
#               tests, and the LIN suite with the CPU TSQR route forced and the
#               BLAS3 suite with gemm and syrk forced onto PoCL, preloaded, in
#               their 32-bit and 64-bit builds;
#   build-tsan  ThreadSanitizer: the tests that run on several threads (8
#               callers at once, the streamed gemm's transfers and its split
#               over three contexts of one device with its feed, the helper
#               threads of streamed host copies (not after fork(),
#               which ThreadSanitizer does not follow), the CPU TSQR
#               with and without pivoting, the CPU xORGQR and xORMQR, the
#               distributed TSQR on simulated processes and the CG's team).
# Both without CUDA: CI has no GPU, and device code is not instrumented.
set -euo pipefail
cd "$(dirname "$0")/.."

# build DIR SANITIZERS [TARGET...]
build() {
  local dir=$1 sanitize=$2
  shift 2
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSWITCHYARD_WITH_CUDA=OFF \
    -DSWITCHYARD_SANITIZE="$sanitize" > "$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
  cmake --build "$dir" -j"$(nproc)" ${1:+--target "$@"} >> "$dir.log" 2>&1 \
    || { tail -50 "$dir.log"; exit 1; }
}

# Every finding fails the test that made it (halt_on_error, and the build's
# -fno-sanitize-recover); the suites also fail on anything printed to stderr.
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

build build-asan address,undefined
cd build-asan
# abi.install builds an uninstrumented consumer against the installed
# library, which ASan refuses to start after; it tests packaging, not code.
# abi.ilp64_program's and abi.wide_geqrf's 64-bit fallback is Debian's
# libblas64/liblapack64 opened with RTLD_DEEPBIND, which the sanitizer runtimes
# refuse to open; so is Gels.SixtyFourBitName's (dgels_64_ runs in it without a
# GPU), and unit.fallback_override.local_scope's for the xGEQRT and xGEMQRT
# its spy library lacks. The same 64-bit entry points run instrumented, as
# libswitchyard64.so's, in the 64-bit suites below.
ctest -L 'unit|abi' -LE gpu \
  -E '^(abi\.(install|ilp64_program.*|wide_geqrf)|unit\.fallback_override\.local_scope|Gels\.SixtyFourBitName)$' \
  --output-on-failure \
  -j"$(nproc)"
ctest -R '^suite\.(xlintstd(\.tsqr|\.ilp64)?\.dgeqrf=cpu|xblat3d(\.ilp64)?\.d(gemm|syrk)=gpu)$' \
  --output-on-failure -j"$(nproc)"
cd ..

build build-tsan thread unit_abi unit_gemm_opencl unit_shared_feed unit_tsqr_cpu unit_cpu_apply_q \
  unit_scalapack unit_cg unit_internal
cd build-tsan
ctest -R '^(Threads\.|SharedFeed\.|HostCopies\.[^F]|GemmOpenCl\.Streamed|GemmSplitKOpenCl\.Streamed|unit\.gemm_opencl\.split_over_three_contexts|TsqrCpu\.|TsqrPivoted\.|CpuApplyQ\.|(Layouts/)?DistributedTsqr|Cg|Dsdcg\.)' \
  --output-on-failure -j"$(nproc)"
