#!/bin/bash
# Fails unless a shared library exports (as defined functions) every name
# after --has, and none after --lacks.
#
#   check_exports.sh LIBRARY --has NAME... [--lacks NAME...]
set -u
library=$1
shift
exported=$(nm -D --defined-only "$library" | awk '$2 ~ /^[TtWiu]$/ {print $3}' | sort -u) ||
  { echo "FAIL: cannot read the symbols of $library"; exit 1; }
mode= missing=0
for arg in "$@"; do
  case $arg in
    --has | --lacks) mode=$arg; continue ;;
  esac
  found=$(grep -cxF -- "$arg" <<< "$exported")
  if [ "$mode" = --has ] && [ "$found" -eq 0 ]; then
    echo "FAIL: $library does not export $arg"; missing=1
  elif [ "$mode" = --lacks ] && [ "$found" -ne 0 ]; then
    echo "FAIL: $library exports $arg"; missing=1
  fi
done
[ $missing -eq 0 ] && echo "PASS: $(basename "$library") exports what it should"
exit $missing
