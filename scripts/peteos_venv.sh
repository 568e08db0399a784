#!/usr/bin/env bash
# Makes (once) a venv holding peteos 0.6.13 from PyPI, plus any packages
# given, and prints its python. Fails, saying why, when it cannot: callers
# (.ci/run, scripts/bench.sh) rely on peteos being there.
#   scripts/peteos_venv.sh [PACKAGE...]      venv: $PETEOS_VENV, else $TMPDIR/loki-sessions-peteos-venv
set -euo pipefail
venv=${PETEOS_VENV:-${TMPDIR:-/tmp}/loki-sessions-peteos-venv}

# A Python >= 3.12 (peteos needs one): on the PATH, else from pyenv.
find_python() {
  local c
  for c in python3.13 python3.12; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      echo "$c"; return 0
    fi
  done
  if command -v pyenv >/dev/null 2>&1; then
    for c in "$(pyenv root)"/versions/3.1[2-9]*/bin/python3; do
      [ -x "$c" ] && { echo "$c"; return 0; }
    done
  fi
  return 1
}

# True when the venv holds peteos 0.6.13 and every package asked for
# (importing peteos needs a config file, so only its presence is checked).
ready() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" - "$@" >/dev/null 2>&1 <<'PY'
import importlib.metadata as m, importlib.util, sys
assert importlib.util.find_spec("peteos") is not None
assert m.version("peteos") == "0.6.13", m.version("peteos")
for name in sys.argv[1:]:
    m.version(name)
PY
}

if ! ready "$@"; then
  py=$(find_python) || { echo "error: no Python >= 3.12 found (peteos 0.6.13 needs one)" >&2; exit 1; }
  [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
  timeout 300 "$venv/bin/pip" install -q "peteos==0.6.13" "$@" >&2
  ready "$@" || { echo "error: peteos 0.6.13 is not installed in $venv" >&2; exit 1; }
fi
echo "$venv/bin/python"
