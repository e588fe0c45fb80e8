#!/bin/bash
# Installs the Debian packages Switchyard builds and tests with, skipping
# those already present.
set -euo pipefail
packages=(
  build-essential cmake gfortran pkg-config
  libgtest-dev
  clang libclang-rt-14-dev                   # libFuzzer and clang's sanitizers (tools/fuzz.sh)
  libblas-dev liblapack-dev liblapacke-dev   # reference BLAS, CBLAS, LAPACK, LAPACKE
  libblas-test liblapack-test                # the reference test programs
  libblas64-dev liblapack64-dev              # 64-bit reference BLAS, LAPACK (libswitchyard64.so)
  libblas64-test liblapack64-test            # and their test programs
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd  # OpenCL loader and PoCL on the CPU
  python3-numpy python3-scipy octave r-base-core     # the client tests' programs
  openmpi-bin scalapack-mpi-test                     # mpirun, ScaLAPACK's xdqr and xsqr
  libopenmpi-dev libscalapack-openmpi-dev            # pdgeqrf-timing
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
