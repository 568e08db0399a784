#!/usr/bin/env python3
"""The peteos side of the trim benchmark: load a session with peteos 0.6.13
and run rolling_token_window in-process, timing only that (not Python's
start-up or imports). Nothing is saved.

Usage: PETEOS_SESSIONS_DIR=DIR bench_peteos_trim.py stdlib|installed UUID BUDGET RUNS
(scripts/bench.sh runs it with RUNS 1, a process a run: in one process a
second run starts from the token counts the first cached in the messages,
and keeps one message fewer.)
  stdlib     peteos with its JSON loader swapped for Python's stdlib json
  installed  peteos as installed (its loader parses with json5)
Prints the median seconds, the number of messages kept and their ids (in
order), which scripts/bench.sh compares with what loki-sessions keeps.
"""
import json
import statistics
import sys
import time

mode, uuid, budget, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

import peteos.utils.json as pjson
if mode == "stdlib":
    pjson.load = json.load
    pjson.loads = json.loads
from peteos.conversation.session import Session

times, kept, kept_ids = [], None, None
for _ in range(runs):
    start = time.perf_counter()
    session = Session.load(uuid)
    session._autosave = False
    child = session.active_context.rolling_token_window(budget, "cl100k_base")
    times.append(time.perf_counter() - start)
    kept = len(child.messages) if child is not None else None
    kept_ids = [m.id for m in child.messages] if child is not None else None
print(json.dumps({"mode": mode, "median_s": statistics.median(times), "runs": runs, "kept": kept,
                  "kept_ids": kept_ids}))
