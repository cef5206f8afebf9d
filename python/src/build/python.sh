#!/usr/bin/env bash
# Runs python3 with the given arguments (make_wheel.py and its step). Without python3 on the PATH,
# a build outside CI skips the wheel with a warning, so that Java-only builds (./dev/quickstart.sh)
# need no Python; in CI (CI=true or 1) it fails, as the integration tests that need python3 do.
set -euo pipefail
if ! command -v python3 > /dev/null 2>&1; then
  message="There is no 'python3' command on the PATH, which builds and tests the spark-flightsql wheel. Install Python 3.9 or newer with its venv module (Debian: python3 python3-venv)."
  if [[ "${CI:-}" == "true" || "${CI:-}" == "1" ]]; then
    echo "[ERROR] $message" >&2
    exit 1
  fi
  echo "[WARNING] $message Skipping the wheel." >&2
  exit 0
fi
exec python3 "$@"
