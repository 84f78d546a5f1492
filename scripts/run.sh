#!/usr/bin/env bash
# Installs everything, then starts every role in one process on embedded defaults (SQLite, ./data bucket).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node bin/reeltime.mjs "$@"
