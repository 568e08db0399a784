#!/usr/bin/env python3
"""Plays a running agent on one Loki session, from another process, the way
an agent that follows loki-sessions' locking protocol writes:

  open the session directory, flock(LOCK_EX) it, check the path still names
  the directory we locked, re-read, change, write each file atomically (temp
  in the same directory, fsync, rename, fsync the directory), unlock.

Each round appends one message to the active context (at the "messages"
anchor, as peteos's Context.append does) and touches meta.json; the id of
every appended message is logged only after its write is durable. Every
fourth round from the second calls a tool, and the next one appends its
long result, so there are tool pairs to drop and results to clear.

Usage: agent_sim.py SESSION_DIR ROUNDS LOG_FILE [MAX_PAUSE]
(MAX_PAUSE: the longest pause between appends in seconds, default 0.004;
each pause is random up to it.)
"""
import fcntl
import json
import os
import random
import sys
import tempfile
import time
import uuid

session_dir, rounds, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
max_pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0.004
memory = os.path.join(session_dir, "memory")


def atomic_write(path, obj):
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".agent-tmp-")
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)
    dfd = os.open(folder, os.O_RDONLY)
    os.fsync(dfd)
    os.close(dfd)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def append_one(n):
    session = load(os.path.join(memory, "session.json"))
    ctx_path = os.path.join(memory, session["active_context_id"] + ".json")
    ctx = load(ctx_path)
    anchors = ctx["anchor_points"]
    at = [a[0] for a in anchors].index("messages")
    position = anchors[at][1]
    mid = "agent-%d-%s" % (n, uuid.uuid4())
    role = "user" if n % 2 == 0 else "assistant"
    content = [{"type": "text", "text": "agent message %d" % n}]
    if n % 4 == 1:
        content = [{"type": "tool_use", "call_id": "call-%d" % n, "name": "bash",
                    "arguments": "{\"cmd\": \"ls\"}", "approval_status": "approved"}]
    elif n % 4 == 2:
        role = "tool"
        content = [{"type": "tool_result", "call_id": "call-%d" % (n - 1),
                    "content": "file %d\n" % n * 80, "execution_status": "executed"}]
    msg = {"role": role, "content": content,
           "_type": "Message", "id": mid, "_hook_ids": [],
           "creation_timestamp": "2026-11-29T00:00:00",
           "_sequence_number": ctx["_mutation_counter"]}
    ctx["messages"].insert(position, msg)
    ctx["message_sequence"] += 1
    ctx["_mutation_counter"] += 1
    for i in range(at, len(anchors)):
        anchors[i][1] += 1
    atomic_write(ctx_path, ctx)
    meta_path = os.path.join(session_dir, "meta.json")
    meta = load(meta_path)
    meta["last_used_at"] = time.time()
    atomic_write(meta_path, meta)
    return mid


with open(log_path, "a") as log:
    for n in range(rounds):
        fd = os.open(session_dir, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.stat(session_dir).st_ino != os.fstat(fd).st_ino:
                print("session directory was moved away", file=sys.stderr)
                sys.exit(3)
            mid = append_one(n)
        finally:
            os.close(fd)  # closing releases the lock
        log.write(mid + "\n")
        log.flush()
        time.sleep(random.random() * max_pause)
