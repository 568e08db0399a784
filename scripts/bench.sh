#!/usr/bin/env bash
# Every figure of docs/PERFORMANCE.md, measured side by side on this machine.
#   scripts/bench.sh [WORK_DIR]
# Makes the stores (10k sessions with one 10,000-message context; 100k
# sessions) once in WORK_DIR, then: list --json against cat of every
# meta.json (hyperfine), peak memory of listing 100k sessions, a whole-process
# trim against peteos 0.6.13 in-process (stdlib json, and json5 as installed),
# Python tiktoken's throughput on the same texts (one thread, and its threaded
# batch encoder; cargo bench reports ours), the UI figures (cargo bench
# --bench tui) and those of trimming by hand (cargo bench --bench edits).
# Needs hyperfine, GNU time, Python >= 3.12 (for peteos) and network access
# to PyPI the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-${TMPDIR:-/tmp}/loki-sessions-bench}
mkdir -p "$work"
cargo build --release --quiet
bin=$PWD/target/release/loki-sessions
s10k=$work/s10k s100k=$work/s100k
[ -d "$s10k/users" ] || "$bin" --root "$s10k" --user bench demo --sessions 10000 --messages 12 --big-context 10000 --plain >/dev/null
[ -d "$s100k/users" ] || "$bin" --root "$s100k" --user bench demo --sessions 100000 --messages 6 --big-context 0 --plain >/dev/null
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"

echo "== list --json on 10k sessions vs cat of every meta.json"
hyperfine -N --warmup 3 --runs 15 --export-json "$work/list.json" \
  "$bin --root $s10k --user bench list --json" >/dev/null
hyperfine --warmup 3 --runs 15 --export-json "$work/cat.json" \
  "cat $s10k/users/bench/session/*/meta.json" >/dev/null
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
l = json.load(open(w + "/list.json"))["results"][0]["median"]
c = json.load(open(w + "/cat.json"))["results"][0]["median"]
print("list --json %.1f ms, cat %.1f ms, ratio %.2f" % (l * 1000, c * 1000, l / c))
PY

echo "== peak memory, list --json on 100k sessions (second run: page cache warm)"
"$bin" --root "$s100k" --user bench list --json >/dev/null
/usr/bin/time -f "%M KiB peak RSS, %e s" "$bin" --root "$s100k" --user bench list --json >/dev/null

echo "== trim --max-tokens on the 10,000-message context (no cached counts)"
big=$("$bin" --root "$s10k" --user bench list --json | python3 -c 'import json,sys; print(max(json.load(sys.stdin), key=lambda i: i["messages"] or 0)["id"])')
sessions=$work/peteos-sessions
rm -rf "$sessions" && mkdir -p "$sessions"
cp -a "$s10k/users/bench/session/$big/memory" "$sessions/$big"
budget=50000
hyperfine --warmup 1 --runs 15 --export-json "$work/trim.json" \
  --prepare "rm -rf $work/trimcopy && cp -a $sessions/$big $work/trimcopy" \
  "$bin trim $work/trimcopy --max-tokens $budget --json" >/dev/null
py=$(scripts/peteos_venv.sh tiktoken)
cache=$work/tiktoken-cache && mkdir -p "$cache"
assets=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tiktoken-rs-*/assets | tail -n 1)
cp "$assets/cl100k_base.tiktoken" "$cache/9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
echo '{}' > "$work/peteos.json"
export TIKTOKEN_CACHE_DIR=$cache PETEOS_SESSIONS_DIR=$sessions PETEOS_CONFIG=$work/peteos.json
"$py" scripts/bench_peteos_trim.py stdlib "$big" $budget 5 > "$work/peteos-stdlib.json"
"$py" scripts/bench_peteos_trim.py installed "$big" $budget 1 > "$work/peteos-json5.json"
# The same Python run as a whole process (start-up and imports included), for
# a like-for-like comparison with our whole-process figure.
hyperfine --warmup 1 --runs 5 --export-json "$work/peteos-process.json" \
  "$py scripts/bench_peteos_trim.py stdlib $big $budget 1" >/dev/null
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
ours = json.load(open(w + "/trim.json"))["results"][0]["median"]
std = json.load(open(w + "/peteos-stdlib.json"))["median_s"]
j5 = json.load(open(w + "/peteos-json5.json"))["median_s"]
proc = json.load(open(w + "/peteos-process.json"))["results"][0]["median"]
print("loki-sessions whole process %.0f ms; peteos in-process: stdlib json %.0f ms (%.2fx), json5 %.0f ms (%.1fx); peteos whole process (stdlib json) %.0f ms (%.2fx)"
      % (ours * 1000, std * 1000, std / ours, j5 * 1000, j5 / ours, proc * 1000, proc / ours))
PY

echo "== token counting on the same texts (cl100k_base): one thread, and the threaded batch encoder on every core"
ctx=$(python3 -c "import json; print(json.load(open('$sessions/$big/session.json'))['active_context_id'])")
"$py" scripts/bench_tiktoken.py "$sessions/$big/$ctx.json" "$(nproc)" | tee "$work/tiktoken.json"

echo "== UI figures (cargo bench --bench tui)"
LOKI_BENCH_10K=$s10k LOKI_BENCH_100K=$s100k cargo bench --quiet --bench tui 2>/dev/null | tee "$work/tui.json"

echo "== trimming by hand on the 10,000-message context (cargo bench --bench edits)"
LOKI_BENCH_10K=$s10k cargo bench --quiet --bench edits 2>/dev/null | tee "$work/edits.json"

echo "== message search on 10k sessions, whole process, vs rg over the same conversation files"
export XDG_CACHE_HOME=$work/cache
"$bin" --root "$s10k" --user bench index >/dev/null
query="connection refused"
hyperfine -N --warmup 3 --runs 10 --export-json "$work/search.json" \
  "$bin --root $s10k --user bench search $query --limit 20" >/dev/null
hyperfine -N --warmup 1 --runs 5 --export-json "$work/search-files.json" \
  "$bin --root $s10k --user bench search $query --limit 20 --no-index" >/dev/null
hyperfine --warmup 1 --runs 10 --export-json "$work/rg.json" \
  "rg -F -i -l '$query' $s10k/users/bench/session" >/dev/null
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
m = lambda f: json.load(open(w + f))["results"][0]["median"]
s, f, r = m("/search.json"), m("/search-files.json"), m("/rg.json")
print("search (index) %.1f ms, search --no-index %.0f ms, rg -F -i -l %.0f ms: index %.1fx faster than rg, --no-index %.2fx of rg"
      % (s * 1000, f * 1000, r * 1000, r / s, f / r))
PY

echo "== index build on 100k sessions from nothing, whole process: time and peak memory"
/usr/bin/time -f "%M KiB peak RSS, %e s" "$bin" --root "$s100k" --user bench index --rebuild >/dev/null

echo "== search figures (cargo bench --bench search)"
LOKI_BENCH_10K=$s10k LOKI_BENCH_100K=$s100k cargo bench --quiet --bench search 2>/dev/null | tee "$work/search-bench.json"
