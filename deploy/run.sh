#!/usr/bin/env bash
# One command for a newcomer: install everything, build, and start the whole mesh in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup.sh
exec node deploy/local/start.mjs
