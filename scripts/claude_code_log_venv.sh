#!/usr/bin/env bash
# Makes (once) a venv holding claude-code-log 1.7.0 from PyPI, an
# independent reader of Claude Code sessions that the forks we write are
# checked with, and prints the path of its command. Fails, saying why,
# when it cannot.
#   scripts/claude_code_log_venv.sh     venv: $CLAUDE_CODE_LOG_VENV, else $TMPDIR/loki-sessions-claude-code-log-venv
set -euo pipefail
version=1.7.0
venv=${CLAUDE_CODE_LOG_VENV:-${TMPDIR:-/tmp}/loki-sessions-claude-code-log-venv}

# A Python >= 3.10: on the PATH, else from pyenv.
find_python() {
  local c
  for c in python3.13 python3.12 python3.11 python3.10 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
      echo "$c"; return 0
    fi
  done
  if command -v pyenv >/dev/null 2>&1; then
    for c in "$(pyenv root)"/versions/3.1[0-9]*/bin/python3; do
      [ -x "$c" ] && { echo "$c"; return 0; }
    done
  fi
  return 1
}

ready() {
  [ -x "$venv/bin/claude-code-log" ] && "$venv/bin/python" - >/dev/null 2>&1 <<PY
import importlib.metadata as m
assert m.version("claude-code-log") == "$version"
PY
}

if ! ready; then
  py=$(find_python) || { echo "error: no Python >= 3.10 found (claude-code-log needs one)" >&2; exit 1; }
  [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
  timeout 300 "$venv/bin/pip" install -q "claude-code-log==$version" >&2
  ready || { echo "error: claude-code-log $version is not installed in $venv" >&2; exit 1; }
fi
echo "$venv/bin/claude-code-log"
