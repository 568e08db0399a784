#!/usr/bin/env bash
# Every figure of docs/PERFORMANCE.md, measured side by side on this machine.
#   scripts/bench.sh [WORK_DIR]
#   BENCH_ONLY=lookup,purge,list,memory,trim,count,tui,edits,search,stats,build,searchbench,live,idle,agents,hosts scripts/bench.sh
#   BENCH_SMOKE=1 scripts/bench.sh WORK_DIR   # CI: small stores, each part once
# Makes the stores (100 sessions; 10k sessions with one 10,000-message
# context; 100k sessions; a few other agents' sessions in a home folder)
# once in WORK_DIR, then: one session's commands (show, trim --dry-run,
# contexts, resume, by exact id, a Loki one and a Claude Code one) on 100k
# sessions against 100 (other agents' sessions present in both), purge
# --dry-run against list --json on the same store, list --json against cat
# of every meta.json (hyperfine, no shell in either), peak memory of listing
# 100k sessions without a search index and with one (each in its own cache
# folder, never the user's), a whole-process trim against peteos 0.6.13
# (counts not kept yet, and kept by an earlier trim; peteos in-process with
# stdlib json, as a whole process, and with json5 as installed; both must
# keep the same messages), Python tiktoken's throughput on the same texts
# (one thread, and its threaded batch encoder; cargo bench reports ours),
# the UI figures (cargo bench --bench tui), those of trimming by hand
# (cargo bench --bench edits), the message search against rg at 10k and
# 100k sessions (the same phrase, and the same sessions found) and the
# search figures (cargo bench --bench search), following the disk (cargo
# bench --bench live: an append to the screen, idle CPU, memory under
# appends), the binary idle on 20,000 sessions (asserted: at most 0.1% of a
# core and 150 MiB) and the other agents' figures (cargo bench --bench
# agents).
# BENCH_ONLY runs some parts. BENCH_SMOKE makes small stores and runs each
# part once, to check that every part still builds and answers (its
# figures mean nothing). Needs hyperfine, rg, GNU time, Python >= 3.12 (for
# peteos) and network access to PyPI the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-${TMPDIR:-/tmp}/loki-sessions-bench}
mkdir -p "$work"
only=${BENCH_ONLY:-}
part() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }
smoke=${BENCH_SMOKE:-}
# Runs of hyperfine (warm-up, measured); a smoke runs once.
if [ -n "$smoke" ]; then
  W=0 R=1 W3=0 R15=1 R10=1 R5=1 PETEOS_RUNS=1
  n10k=300 big_messages=8000 n100k=1000 budget=40000 n20k=300
else
  W=2 R=10 W3=3 R15=15 R10=10 R5=5 PETEOS_RUNS=5
  n10k=10000 big_messages=10000 n100k=100000 budget=50000 n20k=20000
fi
# The benches of cargo bench read it: small data and single runs.
if [ -n "$smoke" ]; then export LOKI_BENCH_SMOKE=1; fi
# A smoke checks that every part builds and answers, not how fast: it
# builds with the test profile, whose artifacts the tests just made, and
# shows the benches' errors (a run for figures keeps its output clean).
# (Their errors go to fd 3: stderr, or nowhere. Naming /dev/stderr instead
# would open the log again and truncate it.)
if [ -n "$smoke" ]; then
  profile=(--profile dev) bench_profile=(--profile dev) out_dir=debug
  exec 3>&2
else
  profile=(--release) bench_profile=() out_dir=release
  exec 3>/dev/null
fi
cargo build "${profile[@]}" --quiet
bin=${CARGO_TARGET_DIR:-$PWD/target}/$out_dir/loki-sessions
s100=$work/s100 s10k=$work/s10k s100k=$work/s100k agents=$work/agents
[ -d "$s100/users" ] || "$bin" --root "$s100" --user bench demo --sessions 100 --messages 6 --big-context 0 --plain >/dev/null
[ -d "$s10k/users" ] || "$bin" --root "$s10k" --user bench demo --sessions $n10k --messages 12 --big-context $big_messages --plain >/dev/null
[ -d "$s100k/users" ] || "$bin" --root "$s100k" --user bench demo --sessions $n100k --messages 6 --big-context 0 --plain >/dev/null
[ -d "$agents/.claude" ] || "$bin" --root "$work/agents-loki" --user bench demo --sessions 20 --agents-home "$agents" --plain >/dev/null
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); load $(cut -d' ' -f1-3 /proc/loadavg)"
# No run below reads the user's own cache (an empty one, or the bench's),
# nor the user's own agents' sessions (HOME is the bench's throughout).
empty_cache=$work/no-cache
rm -rf "$empty_cache" && mkdir -p "$empty_cache"
export XDG_CACHE_HOME=$work/cache
unset CLAUDE_CONFIG_DIR CODEX_HOME COPILOT_HOME QWEN_HOME
real_home=$HOME
# cargo and rustup are told where their homes are, so HOME is the bench's
# for every command below: one without agents' sessions, but where a part
# asks for the bench's agents (never the user's own folders).
export CARGO_HOME=${CARGO_HOME:-$real_home/.cargo}
if [ -z "${RUSTUP_HOME:-}" ] && [ -d "$real_home/.rustup" ]; then export RUSTUP_HOME=$real_home/.rustup; fi
no_agents=$work/home-no-agents
mkdir -p "$no_agents"
export HOME=$no_agents
median() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"; }

if part lookup; then
echo "== one session by exact id: 100k sessions vs 100 (other agents' sessions present), whole process"
export HOME=$agents
first() { "$bin" --root "$1" --user bench list --json ${2:+--agent $2} | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])'; }
id100=$(first "$s100") id100k=$(first "$s100k") claude=$(first "$s100" claude)
for cmd in "show %s --json" "trim %s --max-tokens 1000 --dry-run --json" "contexts %s --json" "resume %s --json"; do
  name=${cmd%% *}
  # Another agent's session is not trimmed (read-only): its row is left out.
  runs=("$s100 $id100 100" "$s100k $id100k 100k")
  [ "$name" = trim ] || runs+=("$s100 $claude claude100" "$s100k $claude claude100k")
  for run in "${runs[@]}"; do
    set -- $run
    # It answers with JSON (trim exits 1 when nothing would change).
    out=$("$bin" --root "$1" --user bench $(printf "$cmd" "$2")) || [ $? -eq 1 ] \
      || { echo "$name $2 failed" >&2; exit 1; }
    python3 -c 'import json,sys; json.loads(sys.argv[1])' "$out"
    hyperfine -N -i --warmup $W --runs $R --export-json "$work/lookup-$name-$3.json" \
      "$bin --root $1 --user bench $(printf "$cmd" "$2")" >/dev/null
  done
  python3 - "$work" "$name" <<'PY'
import json, os, sys
w, name = sys.argv[1:]
m = lambda k: json.load(open("%s/lookup-%s-%s.json" % (w, name, k)))["results"][0]["median"]
a, b = m("100"), m("100k")
line = "%-9s 100 sessions %.1f ms, 100k %.1f ms (%.2fx)" % (name, a * 1e3, b * 1e3, b / a)
if os.path.exists("%s/lookup-%s-claude100k.json" % (w, name)):
    c, d = m("claude100"), m("claude100k")
    line += "; a Claude Code session's id beside 100 sessions %.1f ms, beside 100k %.1f ms (%.2fx)" % (c * 1e3, d * 1e3, d / c)
print(line)
PY
done
export HOME=$no_agents
fi

if part purge; then
echo "== purge --dry-run --json vs list --json, the same 10k sessions (no search index; the purge's kept answers in their own cache folder)"
purge_cache=$work/purge-cache
hyperfine -N --warmup $W --runs $R --export-json "$work/purge-list.json" \
  "env XDG_CACHE_HOME=$empty_cache $bin --root $s10k --user bench list --json" >/dev/null
# Warm: an earlier preview's answers kept (the warm-up makes them), as for
# a second preview or the UI's; cold: the first purge of a store never seen.
rm -rf "$purge_cache"
hyperfine -N --warmup $W --runs $R --export-json "$work/purge.json" \
  "env XDG_CACHE_HOME=$purge_cache $bin --root $s10k --user bench purge --dry-run --json" >/dev/null
hyperfine -N --runs $R --prepare "rm -rf $purge_cache" --export-json "$work/purge-cold.json" \
  "env XDG_CACHE_HOME=$purge_cache $bin --root $s10k --user bench purge --dry-run --json" >/dev/null
XDG_CACHE_HOME=$purge_cache "$bin" --root "$s10k" --user bench purge --dry-run --json \
  | python3 -c 'import json,sys; p=json.load(sys.stdin); assert p["remove"] and p["keep"], "no plan"'
python3 -c 'import sys; l,p,c=map(float,sys.argv[1:]); print("list --json %.0f ms, purge --dry-run --json %.0f ms: %.2fx; a first purge (nothing kept) %.0f ms: %.2fx" % (l*1e3, p*1e3, p/l, c*1e3, c/l))' \
  "$(median "$work/purge-list.json")" "$(median "$work/purge.json")" "$(median "$work/purge-cold.json")"
fi

if part list; then
echo "== list --json on 10k sessions (no search index) vs cat of every meta.json (xargs, no shell)"
find "$s10k/users/bench/session" -mindepth 2 -maxdepth 2 -name meta.json -print0 > "$work/metas0"
hyperfine -N --warmup $W3 --runs $R15 --export-json "$work/list.json" \
  "env XDG_CACHE_HOME=$empty_cache $bin --root $s10k --user bench list --json" >/dev/null
hyperfine -N --warmup $W3 --runs $R15 --export-json "$work/cat.json" \
  "xargs -0 -a $work/metas0 cat" >/dev/null
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
l = json.load(open(w + "/list.json"))["results"][0]["median"]
c = json.load(open(w + "/cat.json"))["results"][0]["median"]
n = open(w + "/metas0", "rb").read().count(b"\0")
print("list --json %.1f ms, cat of %d meta.json %.1f ms, ratio %.2f" % (l * 1000, n, c * 1000, l / c))
PY
fi

if part memory; then
echo "== peak memory, list --json on 100k sessions, without a search index and with one (second run of each: page cache warm)"
"$bin" --root "$s100k" --user bench index >/dev/null
for cache in "$empty_cache" "$XDG_CACHE_HOME"; do
  what=$([ "$cache" = "$empty_cache" ] && echo "without an index" || echo "with an index")
  XDG_CACHE_HOME=$cache "$bin" --root "$s100k" --user bench list --json >/dev/null
  XDG_CACHE_HOME=$cache /usr/bin/time -f "$what: %M KiB peak RSS, %e s" "$bin" --root "$s100k" --user bench list --json >/dev/null
done
fi

big=$(XDG_CACHE_HOME=$empty_cache "$bin" --root "$s10k" --user bench list --json | python3 -c 'import json,sys; print(max(json.load(sys.stdin), key=lambda i: i["messages"] or 0)["id"])')
sessions=$work/peteos-sessions
if part trim || part count; then
rm -rf "$sessions" && mkdir -p "$sessions"
cp -a "$s10k/users/bench/session/$big/memory" "$sessions/$big"
py=$(scripts/peteos_venv.sh tiktoken)
cache=$work/tiktoken-cache && mkdir -p "$cache"
assets=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tiktoken-rs-*/assets | tail -n 1)
cp "$assets/cl100k_base.tiktoken" "$cache/9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
fi
if part trim; then
echo "== trim --max-tokens on the $big_messages-message context: counts not kept yet, and kept by an earlier trim"
fresh=$work/trim-fresh-cache kept=$work/trim-kept-cache
hyperfine --warmup 1 --runs $R15 --export-json "$work/trim.json" \
  --prepare "rm -rf $work/trimcopy $fresh && cp -a $sessions/$big $work/trimcopy" \
  "env XDG_CACHE_HOME=$fresh $bin --root $s10k --user bench trim $work/trimcopy --max-tokens $budget --json" >/dev/null
hyperfine --warmup 1 --runs $R15 --export-json "$work/trim-kept.json" \
  --prepare "rm -rf $work/trimcopy && cp -a $sessions/$big $work/trimcopy" \
  "env XDG_CACHE_HOME=$kept $bin --root $s10k --user bench trim $work/trimcopy --max-tokens $budget --json" >/dev/null
# Both keep the same messages, the kept counts being right.
for c in "$fresh" "$kept"; do
  rm -rf "$work/trimcopy" "$fresh" && cp -a "$sessions/$big" "$work/trimcopy"
  XDG_CACHE_HOME=$c "$bin" --root "$s10k" --user bench trim "$work/trimcopy" --max-tokens $budget --json > "$work/trim-ours-$(basename "$c").json"
done
cmp <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kept_message_ids"])' "$work/trim-ours-$(basename "$fresh").json") \
    <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kept_message_ids"])' "$work/trim-ours-$(basename "$kept").json") \
  || { echo "a trim with kept counts kept other messages" >&2; exit 1; }
cp "$work/trim-ours-$(basename "$kept").json" "$work/trim-ours.json"
echo '{}' > "$work/peteos.json"
export TIKTOKEN_CACHE_DIR=$cache PETEOS_SESSIONS_DIR=$sessions PETEOS_CONFIG=$work/peteos.json
# One run a process: a second run in the same process starts from what the
# first left (peteos caches counts in the messages it loaded) and keeps
# other messages, faster.
for i in $(seq $PETEOS_RUNS); do
  "$py" scripts/bench_peteos_trim.py stdlib "$big" $budget 1
done > "$work/peteos-stdlib.json"
"$py" scripts/bench_peteos_trim.py installed "$big" $budget 1 > "$work/peteos-json5.json"
# The same Python run as a whole process (start-up and imports included), for
# a like-for-like comparison with our whole-process figure.
hyperfine --warmup 1 --runs $R5 --export-json "$work/peteos-process.json" \
  "$py scripts/bench_peteos_trim.py stdlib $big $budget 1" >/dev/null
ctx=$(python3 -c "import json; print(json.load(open('$sessions/$big/session.json'))['active_context_id'])")
python3 - "$work" "$sessions/$big/$ctx.json" <<'PY'
import json, statistics, sys
w, context = sys.argv[1], sys.argv[2]
ours = json.load(open(w + "/trim.json"))["results"][0]["median"]
ours_kept = json.load(open(w + "/trim-kept.json"))["results"][0]["median"]
kept = json.load(open(w + "/trim-ours.json"))["kept_message_ids"]
std = [json.loads(line) for line in open(w + "/peteos-stdlib.json")]
j5 = json.load(open(w + "/peteos-json5.json"))
messages = {m["id"]: m for m in json.load(open(context))["messages"]}
def tool_result_only(mid):
    parts = messages[mid].get("content")
    return isinstance(parts, list) and parts and all(
        isinstance(p, dict) and p.get("type") == "tool_result" for p in parts)
# The same messages, but for the one documented difference (docs/FORMATS.md,
# section 8): peteos walks the dangling tool results in a set's order, which
# varies with Python's hash seed, and may drop a result loki-sessions keeps.
extras = []
for run in std + [j5]:
    theirs = run["kept_ids"]
    extra = set(kept) - set(theirs)
    if set(theirs) - set(kept) or not all(tool_result_only(m) for m in extra) \
            or [m for m in kept if m not in extra] != theirs:
        sys.exit("peteos (%s) kept %s messages, loki-sessions %d: not the same trim" % (run["mode"], run["kept"], len(kept)))
    extras.append(len(extra))
same = extras.count(0)
proc = json.load(open(w + "/peteos-process.json"))["results"][0]["median"]
runs = len(std) + 1
std, j5 = statistics.median(r["median_s"] for r in std), j5["median_s"]
print("the same %d messages kept (%d of %d peteos runs exactly; the others dropped up to %d tool results more, the documented difference); loki-sessions whole process %.0f ms (counts not kept), %.0f ms (counts kept); peteos in-process: stdlib json %.0f ms (%.2fx, %.2fx), json5 %.0f ms (%.1fx); peteos whole process (stdlib json) %.0f ms (%.2fx; counts kept %.2fx)"
      % (len(kept), same, runs, max(extras), ours * 1000, ours_kept * 1000, std * 1000, std / ours, std / ours_kept, j5 * 1000, j5 / ours, proc * 1000, proc / ours, proc / ours_kept))
PY
fi

if part count; then
echo "== token counting on the same texts (cl100k_base): one thread, and the threaded batch encoder on every core"
ctx=$(python3 -c "import json; print(json.load(open('$sessions/$big/session.json'))['active_context_id'])")
"$py" scripts/bench_tiktoken.py "$sessions/$big/$ctx.json" "$(nproc)" | tee "$work/tiktoken.json"
fi

if part tui; then
echo "== UI figures (cargo bench --bench tui)"
LOKI_BENCH_10K=$s10k LOKI_BENCH_100K=$s100k cargo bench "${bench_profile[@]}" --quiet --bench tui 2>&3 | tee "$work/tui.json"
fi

if part edits; then
echo "== trimming by hand on the 10,000-message context (cargo bench --bench edits)"
LOKI_BENCH_10K=$s10k cargo bench "${bench_profile[@]}" --quiet --bench edits 2>&3 | tee "$work/edits.json"
fi

if part search; then
phrase="connection refused"
for store in "$s10k" "$s100k"; do
n=$(basename "$store")
echo "== message search on $n, whole process, warm index, vs rg over the same conversation files: the same phrase"
"$bin" --root "$store" --user bench index >/dev/null
# Every hit, as JSON: the question checked below (rg -l lists every file).
hyperfine -N --warmup $W3 --runs $R10 --export-json "$work/search-$n.json" \
  "$bin --root $store --user bench search '\"$phrase\"' --limit 100000000 --json" >/dev/null
hyperfine -N --warmup 1 --runs $R5 --export-json "$work/search-files-$n.json" \
  "$bin --root $store --user bench search '\"$phrase\"' --limit 100000000 --json --no-index" >/dev/null
hyperfine -N --warmup 1 --runs $R10 --export-json "$work/rg-$n.json" \
  "rg -F -i -l '$phrase' $store/users/bench/session" >/dev/null
# Both find the same sessions (rg: the sessions of the files it lists).
"$bin" --root "$store" --user bench search "\"$phrase\"" --limit 100000000 --json > "$work/search-hits.json"
rg -F -i -l "$phrase" "$store/users/bench/session" > "$work/rg-files.txt" || true
python3 - "$work" "$store/users/bench/session" "$n" <<'PY'
import json, os, sys
w, folder, n = sys.argv[1:]
m = lambda f: json.load(open("%s/%s-%s.json" % (w, f, n)))["results"][0]["median"]
s, f, r = m("search"), m("search-files"), m("rg")
ours = {h["session_id"] for h in json.load(open(w + "/search-hits.json"))}
theirs = {os.path.relpath(p.strip(), folder).split(os.sep)[0] for p in open(w + "/rg-files.txt") if p.strip()}
if ours != theirs:
    sys.exit("search found %d sessions, rg %d: not the same question" % (len(ours), len(theirs)))
print("%s: both find the same %d sessions; search (index) %.1f ms, search --no-index %.0f ms, rg -F -i -l %.0f ms: index %.3fx of rg's time (%.1fx faster), --no-index %.2fx of rg"
      % (n, len(ours), s * 1000, f * 1000, r * 1000, s / r, r / s, f / r))
PY
done
fi

if part stats; then
echo "== stats by day over $n10k Claude Code sessions, whole process, warm index, vs ccusage daily on the same files"
stats_home=$work/stats-home
[ -d "$stats_home/.claude" ] || "$bin" --root "$work/stats-loki" --user bench demo --sessions 1 --big-context 0 --plain --agents-home "$stats_home" --claude-sessions $n10k >/dev/null
ccusage=${CCUSAGE:-$PWD/target/ccusage/node_modules/.bin/ccusage}
export HOME=$stats_home TZ=UTC
"$bin" --agent claude stats --json > "$work/stats-ours.json"
"$ccusage" claude session --json --offline > "$work/stats-ccusage.json" 2>/dev/null
hyperfine -N --warmup $W --runs $R --export-json "$work/stats.json" \
  "$bin --agent claude stats --json" >/dev/null
hyperfine -N --warmup $W --runs $R --export-json "$work/stats-cc.json" \
  "$ccusage claude daily --json --offline" >/dev/null
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
m = lambda f: json.load(open("%s/%s.json" % (w, f)))["results"][0]["median"]
ours = json.load(open(w + "/stats-ours.json"))
theirs = json.load(open(w + "/stats-ccusage.json"))["totals"]
# The same question: the same tokens in all (ccusage's session report
# counts a streamed message once, as stats does; its daily report counts a
# message without requestIds once a line, FORMATS.md section 9).
for ours_key, theirs_key in [("input", "inputTokens"), ("output", "outputTokens"),
                             ("cache_read", "cacheReadTokens"), ("cache_write", "cacheCreationTokens")]:
    if ours["totals"]["usage"][ours_key] != theirs[theirs_key]:
        sys.exit("stats and ccusage disagree on %s: not the same question" % ours_key)
s, c = m("stats"), m("stats-cc")
print("stats %.0f ms, ccusage claude daily %.0f ms: %.2fx of ccusage's time (%d days, %d sessions)"
      % (s * 1000, c * 1000, s / c, len(ours["rows"]), ours["totals"]["sessions"]))
PY
export HOME=$no_agents
unset TZ
fi

if part build; then
echo "== index build on 100k sessions from nothing, whole process: time and peak memory"
/usr/bin/time -f "%M KiB peak RSS, %e s" "$bin" --root "$s100k" --user bench index --rebuild >/dev/null
fi

if part searchbench; then
echo "== search figures (cargo bench --bench search)"
LOKI_BENCH_10K=$s10k LOKI_BENCH_100K=$s100k cargo bench "${bench_profile[@]}" --quiet --bench search 2>&3 | tee "$work/search-bench.json"
fi

if part live; then
echo "== following the disk: an append to the screen, idle CPU, memory under appends (cargo bench --bench live)"
LOKI_BENCH_10K=$s10k LOKI_BENCH_ONLY=latency,idle,soak cargo bench "${bench_profile[@]}" --quiet --bench live 2>&3 | tee "$work/live.txt"
fi

if part idle; then
echo "== the binary idle on $n20k sessions dated over three months (cargo bench --bench live, idle20k: asserted)"
s20k=$work/s20k
[ -d "$s20k/users" ] || "$bin" --root "$s20k" --user bench demo --sessions $n20k --messages 12 --big-context 0 --plain >/dev/null
LOKI_BENCH_20K=$s20k LOKI_BENCH_ONLY=idle20k cargo bench "${bench_profile[@]}" --quiet --bench live 2>&3 | tee "$work/idle.txt"
fi

if part agents; then
echo "== other agents' sessions: the viewer, the list, a fork, the search (cargo bench --bench agents)"
LOKI_BENCH_10K=$s10k cargo bench "${bench_profile[@]}" --quiet --bench agents 2>&3 | tee "$work/agents.txt"
fi

if part hosts; then
echo "== --host: the list of two hosts of $n10k sessions each against this machine's list of one, whole process"
# Each host a home of its own with a store of $n10k sessions, reached
# through tests/fake_ssh.sh (no sshd, no network: what is measured is
# ours, the two programs run at once and their answers put together; a
# real ssh adds one round trip per host, in parallel).
me=$(id -un)
for h in a b; do
  [ -d "$work/hosts/$h/.loki/users" ] || "$bin" --root "$work/hosts/$h/.loki" --user "$me" demo --sessions $n10k --messages 6 --big-context 0 --plain >/dev/null
done
printf '[hosts.a]\nssh = "a"\ncommand = "%s"\n[hosts.b]\nssh = "b"\ncommand = "%s"\n' "$bin" "$bin" >"$work/hosts.toml"
export LOKI_SESSIONS_SSH=$PWD/tests/fake_ssh.sh FAKE_SSH_HOMES=$work/hosts
rows=$("$bin" --config "$work/hosts.toml" --host a --host b list --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(len(r), sorted({x["host"] for x in r}))')
[ "$rows" = "$((2 * n10k)) ['a', 'b']" ] || { echo "hosts: $rows, not $((2 * n10k)) rows of a and b" >&2; exit 1; }
hyperfine -N --warmup $W --runs $R --export-json "$work/hosts-local.json" \
  "$bin --root $work/hosts/a/.loki --user $me list --json" >/dev/null
hyperfine -N --warmup $W --runs $R --export-json "$work/hosts-one.json" \
  "$bin --config $work/hosts.toml --host a list --json" >/dev/null
hyperfine -N --warmup $W --runs $R --export-json "$work/hosts-two.json" \
  "$bin --config $work/hosts.toml --host a --host b list --json" >/dev/null
# Two machines of one core each: each host pinned to a core of its own
# (taskset), against this machine's list pinned to one core.
if command -v taskset >/dev/null; then
  echo 0 >"$work/hosts/a.cpu"
  echo 1 >"$work/hosts/b.cpu"
  hyperfine -N --warmup $W --runs $R --export-json "$work/hosts-local1.json" \
    "taskset -c 0 $bin --root $work/hosts/a/.loki --user $me list --json" >/dev/null
  hyperfine -N --warmup $W --runs $R --export-json "$work/hosts-two1.json" \
    "$bin --config $work/hosts.toml --host a --host b list --json" >/dev/null
  rm -f "$work/hosts/a.cpu" "$work/hosts/b.cpu"
fi
python3 - "$work" <<'PY'
import json, os, sys
m = lambda f: json.load(open("%s/%s.json" % (sys.argv[1], f)))["results"][0]["median"]
l, o, t = m("hosts-local"), m("hosts-one"), m("hosts-two")
print("list here %.0f ms; one host %.0f ms (%.2fx: what asking and merging add); two hosts %.0f ms: %.2fx "
      "(target: at most 1.5x plus one ssh round trip; here both hosts' programs share this machine's cores)"
      % (l * 1e3, o * 1e3, o / l, t * 1e3, t / l))
if os.path.exists("%s/hosts-two1.json" % sys.argv[1]):
    l1, t1 = m("hosts-local1"), m("hosts-two1")
    print("two machines of one core each: list here on one core %.0f ms; two hosts, a core each, %.0f ms: %.2fx"
          % (l1 * 1e3, t1 * 1e3, t1 / l1))
PY
unset LOKI_SESSIONS_SSH FAKE_SSH_HOMES
fi
