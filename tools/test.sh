#!/bin/bash
# The test command: installs what is missing, builds, and runs every test
# that needs no GPU (GPU tests carry the label gpu: ctest -L gpu), then the
# sanitizer builds' selection (tools/sanitize.sh) and a short run of each fuzz
# target (tools/fuzz.sh; its seeds and kept crashes are all replayed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
(cd build && ctest -LE gpu --output-on-failure -j"$(nproc)")
bash tools/sanitize.sh
bash tools/fuzz.sh 15
