#!/usr/bin/env python3
"""An independent reference for loki-sessions' message search: it reads the
session files itself (json, no code of loki-sessions) and applies the rules
as README and docs/FORMATS.md state them, so the index and the direct scan
(which share their text extraction and their words) are both checked
against something that shares nothing with them.

What is searched: every message of every context of a session once (a
message a fork shares with its parent is one; the active context first,
then the others by id; a message without an id is `<context>#<index>`),
the tool definitions message left out; its text is that of its text and
thinking parts, the name and arguments of its tool calls, the content of
its tool results (a string as it is, a list of objects as their "text"
joined by newlines, anything else as compact JSON), or its content when
that is a plain string.

Words: runs of letters and digits, lower-cased; each Han, kana or Hangul
character is a word of its own; a symbol that is neither (an emoji, a
check mark) is a word too; punctuation and spaces separate words. A query
is words that must all be in a message (any case), "phrases" whose words
must follow each other, role:R; a query word that is several words
(`session.py`) is a phrase. With --typing, the last word of the last
clause may be the start of a word.

Usage: search_reference.py SESSION_FOLDER (loki|folder) [--typing]
Reads one query a line on stdin; writes one JSON line a query:
[[session, context, message, role, name], ...] sorted, or {"error": why}.
"""
import json
import os
import sys

ROLES = {"user", "assistant", "tool", "system"}


def unspaced(c):
    o = ord(c)
    return (0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF
            or 0xF900 <= o <= 0xFAFF or 0xAC00 <= o <= 0xD7AF or 0x20000 <= o <= 0x2FFFF)


def symbol(c):
    o = ord(c)
    punctuation = 0x2000 <= o <= 0x206F or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFF0F
    return not c.isspace() and o > 0x7F and not punctuation and c.isprintable()


def words(text):
    out, run = [], []

    def close():
        if run:
            out.append("".join(run).lower())
            run.clear()

    for c in text:
        if unspaced(c):
            close()
            out.append(c.lower())
        elif c.isalnum():
            run.append(c)
        else:
            close()
            if symbol(c):
                out.append(c)
    close()
    return out


def value_text(v):
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, list) and all(isinstance(i, dict) for i in v):
        return "\n".join(i["text"] for i in v if isinstance(i.get("text"), str))
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def message_text(content):
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    pieces = []
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in ("text", "thinking"):
            fields = [part.get("text")]
        elif kind == "tool_use":
            fields = [part.get("name"), part.get("arguments")]
        elif kind == "tool_result":
            fields = [part.get("content")]
        else:
            fields = []
        pieces += [t for t in map(value_text, fields) if t]
    return "\n".join(pieces)


def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8-sig"))


def is_tool_definitions(ctx, index, message):
    wanted = ctx.get("tool_definitions_message_id")
    return (index < 2 and wanted is not None and message.get("id") == wanted
            and message.get("_type") == "ToolDefinitionsMessage")


def session_messages(conversation):
    """(context, message id, role, words) of every message once; None when
    the session cannot be read."""
    try:
        session = load(os.path.join(conversation, "session.json"))
        active = session.get("active_context_id")
        names = sorted(n[:-5] for n in os.listdir(conversation)
                       if n.endswith(".json") and not n.startswith(".") and n != "session.json")
        order = ([active] if active else []) + [n for n in names if n != active]
        contexts = []
        for i, cid in enumerate(order):
            try:
                contexts.append((cid, load(os.path.join(conversation, cid + ".json"))))
            except (OSError, ValueError):
                if i == 0:
                    return None  # the active context must be readable
    except (OSError, ValueError):
        return None
    seen, out = set(), []
    for cid, ctx in contexts:
        for index, m in enumerate(ctx.get("messages") or []):
            if is_tool_definitions(ctx, index, m):
                continue
            mid = m.get("id") or "%s#%d" % (cid, index)
            if mid in seen:
                continue
            seen.add(mid)
            out.append((cid, mid, m.get("role"), words(message_text(m.get("content")))))
    return out


def parse_query(text, typing):
    clauses, role, rest = [], None, text.strip()
    while rest:
        if rest.startswith('"'):
            end = rest.find('"', 1)
            if end < 0:
                if not typing:
                    raise ValueError("unclosed quote")
                end = len(rest)
            phrase, rest = rest[1:end], rest[end + 1:].strip()
            if words(phrase):
                clauses.append(words(phrase))
            continue
        cut = [i for i, c in enumerate(rest) if c.isspace() or c == '"']
        end = cut[0] if cut else len(rest)
        token, rest = rest[:end], rest[end:].strip()
        key, _, value = token.partition(":")
        if _ and key.lower() == "role":
            if value.lower() not in ROLES:
                raise ValueError("unknown role")
            role = value.lower()
        elif words(token):
            clauses.append(words(token))
    if not clauses:
        raise ValueError("no words")
    prefix = typing and not text[-1:].isspace() and text[-1:] != '"'
    return clauses, role, prefix


def clause_at(ws, clause, prefix):
    n = len(clause)
    for at in range(len(ws) - n + 1):
        body_ok = ws[at:at + n - 1] == clause[:-1]
        last = ws[at + n - 1]
        if body_ok and (last.startswith(clause[-1]) if prefix else last == clause[-1]):
            return True
    return False


def main():
    folder, layout = sys.argv[1], sys.argv[2]
    typing = "--typing" in sys.argv[3:]
    sessions = []
    for sid in sorted(os.listdir(folder)):
        path = os.path.join(folder, sid)
        if sid.startswith(".") or os.path.islink(path) or not os.path.isdir(path):
            continue
        name = sid
        if layout == "loki":
            try:
                name = load(os.path.join(path, "meta.json")).get("name") or sid
            except (OSError, ValueError):
                name = sid
            conversation = os.path.join(path, "memory")
        else:
            conversation = path
        messages = session_messages(conversation)
        if messages is not None:
            sessions.append((sid, name, messages))
    for line in sys.stdin:
        query = line.rstrip("\n")
        try:
            clauses, role, prefix = parse_query(query, typing)
        except ValueError as e:
            print(json.dumps({"error": str(e)}), flush=True)
            continue
        hits = []
        for sid, name, messages in sessions:
            for cid, mid, mrole, ws in messages:
                if role and mrole != role:
                    continue
                last = len(clauses) - 1
                if all(clause_at(ws, c, prefix and i == last) for i, c in enumerate(clauses)):
                    hits.append([sid, cid, mid, mrole, name])
        print(json.dumps(sorted(hits), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
