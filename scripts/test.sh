#!/usr/bin/env bash
# Installs everything, makes sure the loopback services are up, lints (Biome, biome.json), type-checks, and runs the
# whole test suite: both lanes of scripts/test.mjs (`npm test` alone is the fast lane). Arguments go to
# scripts/test.mjs (filters, --lane=).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/services.sh
# The installed binary (a devDependency): npx would reach for the registry if it were missing.
node_modules/.bin/biome lint .
npx tsc -p tsconfig.json --noEmit
exec node scripts/test.mjs "$@"
