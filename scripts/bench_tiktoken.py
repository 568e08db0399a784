#!/usr/bin/env python3
"""Python tiktoken's counting throughput on the exact texts peteos counts for
a context (role + ": " + json.dumps(content, ensure_ascii=False)), to compare
with loki-sessions on the same texts.

Usage: bench_tiktoken.py CONTEXT.json   (TIKTOKEN_CACHE_DIR must hold the BPE files)
Prints tokens, best seconds of 3 and tokens per second (one thread).
"""
import json
import sys
import time

import tiktoken

ctx = json.load(open(sys.argv[1], encoding="utf-8"))
texts = []
for m in ctx["messages"]:
    content = m.get("content", [])
    texts.append("%s: %s" % (m.get("role", ""), json.dumps(content, ensure_ascii=False) if content else ""))
enc = tiktoken.get_encoding("cl100k_base")
best, total = None, 0
for _ in range(3):
    start = time.perf_counter()
    total = sum(len(enc.encode_ordinary(t)) for t in texts)
    took = time.perf_counter() - start
    best = took if best is None else min(best, took)
print(json.dumps({"tokens": total, "seconds": best, "tokens_per_s": total / best, "messages": len(texts)}))
