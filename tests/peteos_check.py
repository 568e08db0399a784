#!/usr/bin/env python3
"""Loads sessions with the real peteos (0.6.13) and prints what it sees, so
tests can check that sessions trimmed by loki-sessions load in peteos.

Usage: PETEOS_SESSIONS_DIR=DIR peteos_check.py UUID [UUID ...]
Prints a JSON list, one object per session: active_context_id, message_ids,
children of the origin context, and the message ids peteos keeps for
rolling_sequence_window(2) (computed in memory; nothing is saved).
"""
import json
import sys

from peteos.conversation.session import Session
from peteos.conversation.context import Context


def check(uuid):
    session = Session.load(uuid)
    session._autosave = False  # never write back: this is a read-only check
    ctx = session.active_context
    origin = ctx.raw_dict.get("origin_context_id")
    children = None
    if origin:
        parent = Context.load(str(session.session_dir / (origin + ".json")))
        children = parent.raw_dict.get("children")
    window = ctx.rolling_sequence_window(2)
    return {
        "active_context_id": session.active_context_id,
        "message_ids": [m.id for m in ctx.messages],
        "origin_children": children,
        "window_2": [m.id for m in window.messages] if window is not None else None,
    }


print(json.dumps([check(uuid) for uuid in sys.argv[1:]]))
