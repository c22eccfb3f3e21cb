#!/usr/bin/env bash
# One command for the whole test suite on a fresh machine: install everything, then `pnpm test`
# (build + typecheck, lint, unit, integration and black-box mesh tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh --tests
bash deploy/local/ensure-services.sh
exec pnpm test
