#!/bin/bash
# Installs Switchyard from a build tree into a fresh prefix, then builds
# the consumer program against that prefix alone, twice: as a CMake
# project with find_package(Switchyard), and with a plain compiler line
# from `pkg-config switchyard`. Each build must load libswitchyard from
# the prefix, compute the right results, and trace its dgemm and dgeqrf.
#
#   check_install.sh CMAKE BUILD_DIR LIBDIR C_COMPILER PKG_CONFIG
#
# LIBDIR is the install's library directory, relative to the prefix.
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: $0 CMAKE BUILD_DIR LIBDIR C_COMPILER PKG_CONFIG" >&2; exit 2; }
cmake=$1 build=$2 libdir=$3 cc=$4 pkg_config=$5
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

# Runs one build of the consumer with the trace on and checks it.
check_consumer() {
  local program=$1
  local libraries
  libraries=$(ldd "$program")  # not piped into grep -q: ldd could die of SIGPIPE
  if ! grep -qF "=> $prefix/$libdir/libswitchyard.so" <<< "$libraries"; then
    echo "FAIL: $program does not load libswitchyard from $prefix/$libdir" >&2
    ldd "$program" >&2
    exit 1
  fi
  SWITCHYARD_TRACE=stderr "$here/../expect_output.sh" \
    --stdout '^consumer: switchyard [0-9.]+, dgemm ok, dgeqrf ok$' \
    --stderr '^switchyard: call=.* dgemm ' \
    --stderr '^switchyard: call=.* dgeqrf ' \
    --no-stdout 'switchyard:' \
    -- "$program"
}

"$cmake" --install "$build" --prefix "$prefix"

"$cmake" -S "$here" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc"
"$cmake" --build "$work/cmake-build"
check_consumer "$work/cmake-build/consumer"

flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" "$pkg_config" --cflags --libs switchyard)
echo "pkg-config switchyard: $flags"
# $flags is split into words on purpose.
"$cc" "$here/consumer.c" -o "$work/consumer-pkg-config" $flags
export LD_LIBRARY_PATH="$prefix/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
check_consumer "$work/consumer-pkg-config"
echo "PASS: installed package works through CMake and pkg-config"
