#!/usr/bin/env python3
"""Python tiktoken's counting throughput on the exact texts peteos counts for
a context (role + ": " + json.dumps(content, ensure_ascii=False)), to compare
with loki-sessions on the same texts.

Usage: bench_tiktoken.py CONTEXT.json [THREADS]   (TIKTOKEN_CACHE_DIR must hold the BPE files)
Prints the tokens and, best of 3 runs each, the seconds and tokens per second
of one thread (encode_ordinary text by text) and of tiktoken's threaded batch
encoder (encode_ordinary_batch(texts, num_threads=THREADS), THREADS = the
cores unless given).
"""
import json
import os
import sys
import time

import tiktoken

ctx = json.load(open(sys.argv[1], encoding="utf-8"))
threads = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count()
texts = []
for m in ctx["messages"]:
    content = m.get("content", [])
    texts.append("%s: %s" % (m.get("role", ""), json.dumps(content, ensure_ascii=False) if content else ""))
enc = tiktoken.get_encoding("cl100k_base")


def best_of_3(count):
    best, total = None, 0
    for _ in range(3):
        start = time.perf_counter()
        total = count()
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    return total, best


total, one = best_of_3(lambda: sum(len(enc.encode_ordinary(t)) for t in texts))
batch_total, batch = best_of_3(
    lambda: sum(len(t) for t in enc.encode_ordinary_batch(texts, num_threads=threads))
)
assert batch_total == total, (batch_total, total)
print(json.dumps({
    "tiktoken": tiktoken.__version__,
    "tokens": total,
    "messages": len(texts),
    "runs": "best of 3",
    "one_thread": {"seconds": one, "tokens_per_s": total / one},
    "batch": {"threads": threads, "seconds": batch, "tokens_per_s": total / batch},
}))
