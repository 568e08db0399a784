#!/usr/bin/env bash
# Screenshots of each pane from a real terminal run: the release binary runs
# in tmux on a demo store with every agent's sessions (Loki's, and Claude
# Code's, Codex's and Gemini CLI's in a home of its own), each pane is
# captured with its colours
# (capture-pane -e), turned into HTML (scripts/ansi_to_html.py) and
# photographed by headless Chromium. Needs tmux and chromium (Debian:
# apt-get install tmux chromium fonts-dejavu-core fonts-noto-cjk).
#   scripts/screenshots.sh [OUT_DIR]   (default: screenshots/)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-screenshots}
cols=120 rows=34
mkdir -p "$out"
# Chromium takes an absolute path; OUT_DIR may be either.
out=$(cd "$out" && pwd)
cargo build --release --quiet
bin=$PWD/target/release/loki-sessions
work=$(mktemp -d)
trap 'tmux -L shots kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin" --root "$work/store" --user demo demo --sessions 300 --messages 24 --big-context 3000 \
  --agents-home "$work/home" >/dev/null
# No config, agents' folders or trash of the user's: a home, config, cache
# and data folder of the run's own.
mkdir -p "$work/config" "$work/cache" "$work/data"
tmux -L shots -f /dev/null new-session -d -s s -x $cols -y $rows \
  "env -u CLAUDE_CONFIG_DIR -u CODEX_HOME -u COPILOT_HOME -u QWEN_HOME HOME=$work/home TERM=xterm-256color XDG_CONFIG_HOME=$work/config XDG_CACHE_HOME=$work/cache XDG_DATA_HOME=$work/data $bin --root $work/store --user demo; sleep 60"

keys() { for k in "$@"; do tmux -L shots send-keys -t s "$k"; sleep 0.3; done; }
text() { tmux -L shots send-keys -t s -l "$1"; sleep 0.6; }
shot() {
  sleep 1
  tmux -L shots capture-pane -e -p -t s > "$work/$1.ansi"
  python3 scripts/ansi_to_html.py "$work/$1.ansi" $cols $rows > "$work/$1.html"
  # Headless Chromium now and then crashes on start: try again.
  for attempt in 1 2 3; do
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
      --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
      --user-data-dir="$work/chrome" --window-size=$((cols * 9 + 30)),$((rows * 18 + 24)) \
      --screenshot="$out/$1.png" "file://$work/$1.html" 2>/dev/null && break
    [ "$attempt" = 3 ] && { echo "chromium failed on $1" >&2; exit 1; }
  done
  echo "$out/$1.png"
}

sleep 3
shot list
text "login"; shot search
keys Tab; shot viewer
keys Enter; shot message
keys Escape Tab; shot transcript
keys Tab t; text "6"; shot trim
keys Escape b; shot trim-budget
keys Escape c; shot contexts
keys Escape w; shot breakdown
keys Escape End Up Space Space; shot drop
keys Escape R; text "100"; shot resumable
keys Escape Escape; sleep 0.5; keys C-u C-f; text "connection refused"; shot messages
keys C-u C-f C-g; shot purge
keys y; shot purge-confirm
keys n Escape; sleep 0.5; keys F1; shot help
keys Escape; sleep 0.5; keys F10; sleep 1; shot dashboard
# Claude Code's sessions alone (F4 twice: Loki's, then Claude Code's), one read.
keys Escape; sleep 0.5; keys F4 F4; shot agents
keys Tab; sleep 1; shot agent-viewer
# One deleted (it goes to the trash of the run's data folder), the trash shown.
keys Escape; sleep 0.5; keys F8; sleep 0.5; keys y; sleep 1; keys F3; sleep 1; shot trash
