#!/bin/bash
# The demo: a Fortran least-squares fit (DGELS on a tall matrix) run through
# Switchyard, printing its answer and the report of the calls it made.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
build/tools/switchyard run --report -- build/fortran/lsq_fit
