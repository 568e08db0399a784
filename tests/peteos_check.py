#!/usr/bin/env python3
"""Loads sessions with the real peteos (0.6.13) and prints what it sees, so
tests can check that sessions trimmed by loki-sessions load in peteos.

Usage: PETEOS_SESSIONS_DIR=DIR peteos_check.py UUID [UUID ...]
Prints a JSON list, one object per session: active_context_id, message_ids,
children of the origin context, the message ids peteos keeps for
rolling_sequence_window(2) (computed in memory; nothing is saved), the
cleared_from field of each message holding one (as loaded, after peteos
saved and loaded a copy in a temp dir, and in its window's fork), the
tool result contents of those messages, and the total token count peteos
computes for the active context (cl100k_base).
"""
import copy
import json
import sys
import tempfile
from pathlib import Path

from peteos.conversation.session import Session
from peteos.conversation.context import Context


def cleared_from(messages):
    return {m.id: m.raw_dict["cleared_from"] for m in messages if "cleared_from" in m.raw_dict}


def saved_and_loaded(ctx):
    """peteos writes a copy of the context and reads it back: unknown fields survive?"""
    with tempfile.TemporaryDirectory() as tmp:
        twin = Context.load_from_dict(copy.deepcopy(ctx.raw_dict))
        twin.save(tmp)
        return Context.load(str(Path(tmp) / (twin.id + ".json")))


def check(uuid):
    session = Session.load(uuid)
    session._autosave = False  # never write back: this is a read-only check
    ctx = session.active_context
    origin = ctx.raw_dict.get("origin_context_id")
    children = None
    if origin:
        parent = Context.load(str(session.session_dir / (origin + ".json")))
        children = parent.raw_dict.get("children")
    cleared = cleared_from(ctx.messages)
    results = {
        m.id: [p.content for p in m.content if p.type == "tool_result"]
        for m in ctx.messages
        if m.id in cleared
    }
    saved = cleared_from(saved_and_loaded(ctx).messages)
    window = ctx.rolling_sequence_window(2)
    seen = {
        "active_context_id": session.active_context_id,
        "message_ids": [m.id for m in ctx.messages],
        "origin_children": children,
        "window_2": [m.id for m in window.messages] if window is not None else None,
        "cleared_from": cleared,
        "cleared_results": results,
        "cleared_from_after_save": saved,
        "cleared_from_in_window": cleared_from(window.messages) if window is not None else {},
    }
    # Counting caches token_count on the messages (in memory only): last.
    seen["total_tokens"] = ctx.total_token_count("cl100k_base")
    return seen


print(json.dumps([check(uuid) for uuid in sys.argv[1:]]))
