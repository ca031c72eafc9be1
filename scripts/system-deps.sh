#!/usr/bin/env bash
# Debian packages the project needs: age and zstd (the archive must read without
# us), sqlite3 (inspecting restored stores). Optional extras: chromium (HTML export
# test) and restic (benchmarks) with `system-deps.sh --extras`.
set -euo pipefail
want=(age zstd sqlite3)
if [[ "${1:-}" == "--extras" ]]; then want+=(chromium restic); fi
missing=()
for pkg in "${want[@]}"; do
  bin="$pkg"
  dpkg -s "$pkg" >/dev/null 2>&1 || command -v "$bin" >/dev/null 2>&1 || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "system-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
echo "system-deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
