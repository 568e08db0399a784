#!/usr/bin/env python3
"""Writes the hostile-input corpus: one directory per case under cases/,
each holding the entries a session folder would hold (usually one session).
Run from this directory; the files are committed, this is how they were made.
Cases that cannot be committed sensibly (a 100 MB message) are made by the
test itself.
"""
import json
import os
import shutil

OLD = 1700000000.0  # long ago: a purge would remove these if it could


def meta(id_, **over):
    m = {"id": id_, "name": "hostile-" + id_, "user": "tester", "first_prompt": "case " + id_,
         "created_at": OLD, "last_used_at": OLD}
    m.update(over)
    return m


def message(i, role="user", content=None, **over):
    m = {"role": role, "content": content if content is not None else [{"type": "text", "text": "message %d" % i}],
         "_type": "Message", "id": "m%d" % i, "_hook_ids": [], "creation_timestamp": "2026-01-01T00:00:00",
         "_sequence_number": 3 + i}
    m.update(over)
    return m


def context(messages=None, **over):
    msgs = messages if messages is not None else [message(i) for i in range(3)]
    c = {"messages": msgs, "id": "ctx", "content_map": {},
         "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", len(msgs)]],
         "message_sequence": len(msgs), "_mutation_counter": 3 + len(msgs), "children": []}
    c.update(over)
    return c


SESSION = {"uuid": "u", "active_context_id": "ctx", "auto_approve_tools": [], "state_data": {}, "is_active": False}


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, bytes):
        open(path, "wb").write(data)
    elif isinstance(data, str):
        open(path, "w", encoding="utf-8").write(data)
    else:
        open(path, "w", encoding="utf-8").write(json.dumps(data, indent=2))


def session(case, id_, meta_=None, session_=None, ctx=None):
    base = os.path.join("cases", case, id_)
    write(os.path.join(base, "meta.json"), meta(id_) if meta_ is None else meta_)
    if session_ is not False:
        write(os.path.join(base, "memory", "session.json"), SESSION if session_ is None else session_)
    if ctx is not False:
        write(os.path.join(base, "memory", "ctx.json"), context() if ctx is None else ctx)


shutil.rmtree("cases", ignore_errors=True)
good = json.dumps(meta("x"), indent=2)

# meta.json
session("meta-truncated", "s", meta_=good[: len(good) // 2])
session("meta-empty", "s", meta_="")
session("meta-whitespace", "s", meta_="  \n\t\n")
session("meta-not-an-object", "s", meta_="[1, 2, 3]")
session("meta-last-used-a-string", "s", meta_=meta("s", last_used_at="yesterday"))
session("meta-last-used-null", "s", meta_=meta("s", last_used_at=None))
session("meta-last-used-missing", "s", meta_={k: v for k, v in meta("s").items() if k != "last_used_at"})
session("meta-nan", "s", meta_=good.replace("1700000000.0", "NaN", 1))
session("meta-huge-number", "s", meta_=good.replace("1700000000.0", "1e999"))
session("meta-name-a-number", "s", meta_=meta("s", name=42))
session("meta-invalid-utf8", "s", meta_=good.replace('"case x"', '"case \udcff"').encode("utf-8", "surrogateescape"))
session("meta-bom", "s", meta_=b"\xef\xbb\xbf" + json.dumps(meta("s")).encode())
session("meta-duplicate-keys", "s", meta_=json.dumps(meta("s"))[:-1] + ', "last_used_at": 1600000000.5}')
session("meta-deep-nesting", "s", meta_='{"deep": ' + "[" * 5000 + "]" * 5000 + ', "last_used_at": 1.0}')
session("meta-missing", "s", meta_=b"")
os.remove(os.path.join("cases", "meta-missing", "s", "meta.json"))
session("meta-is-a-directory", "s", meta_=b"")
os.remove(os.path.join("cases", "meta-is-a-directory", "s", "meta.json"))
os.makedirs(os.path.join("cases", "meta-is-a-directory", "s", "meta.json"))
write(os.path.join("cases", "meta-is-a-directory", "s", "meta.json", "x"), "{}")
session("meta-symlink", "s", meta_=b"")
os.remove(os.path.join("cases", "meta-symlink", "s", "meta.json"))
# points out of the store (the test puts a readable file there)
os.symlink("../../../../../outside/secret.json", os.path.join("cases", "meta-symlink", "s", "meta.json"))

# the session folder itself
os.makedirs(os.path.join("cases", "session-dir-symlink"))
os.symlink("../../../../outside/victim", os.path.join("cases", "session-dir-symlink", "s"))
write(os.path.join("cases", "stray-file", "notes.txt"), "not a session\n")
session("id-with-shell-syntax", "x; touch PWNED $(touch PWNED2) `id`")
session("id-unicode", "セッション-ß-😀")
session("id-leading-dash", "-rf")

# session.json
session("session-json-missing", "s", session_=False)
session("session-json-truncated", "s", session_=json.dumps(SESSION)[:30])
session("session-json-active-id-a-number", "s", session_=dict(SESSION, active_context_id=5))
session("session-json-active-id-traversal", "s", session_=dict(SESSION, active_context_id="../../../meta"))
session("session-json-missing-context", "s", session_=dict(SESSION, active_context_id="gone"))
session("session-json-is-active-truthy-string", "s", session_=dict(SESSION, is_active="yes"))

# contexts
session("context-truncated", "s", ctx=json.dumps(context())[:200])
session("context-messages-an-object", "s", ctx=context(messages={"0": {}}))
session("context-message-a-number", "s", ctx=context(messages=[message(0), 7]))
session("context-string-content", "s", ctx=context(messages=[message(0, content="plain text, older format"), message(1)]))
session("context-anchors-short", "s", ctx=context(anchor_points=[["system_prompt", 0], ["tools", 0], ["messages", 1]]))
session("context-anchor-negative", "s", ctx=context(anchor_points=[["system_prompt", 0], ["tools", 0], ["messages", -1]]))
session("context-unknown-part-and-message-types", "s", ctx=context(messages=[
    message(0, content=[{"type": "hologram", "data": 1}, {"text": "no type"}, 5]),
    message(1, _type="AlienMessage")]))
session("context-special-token-text", "s", ctx=context(messages=[message(0, content=[{"type": "text", "text": "<|endoftext|><|fim_prefix|>"}])]))
session("context-no-sequence-numbers", "s", ctx=context(messages=[
    {k: v for k, v in message(i).items() if k != "_sequence_number"} for i in range(3)]))
session("context-deep-nesting", "s", ctx='{"messages": [{"role": "user", "content": ' + "[" * 300 + "]" * 300 + '}]}')
session("context-nan", "s", ctx=json.dumps(context()).replace('"_sequence_number": 3', '"_sequence_number": NaN'))
session("context-bom", "s", ctx=b"\xef\xbb\xbf" + json.dumps(context()).encode())
session("context-duplicate-messages-key", "s", ctx=json.dumps(context())[:-1] + ', "messages": []}')
session("context-huge-integers", "s", ctx=json.dumps(context()).replace(
    '"message_sequence": 3', '"message_sequence": 3, "x_big": 123456789012345678901234567890, "token_count_big": 1e400'))
session("context-invalid-utf8", "s", ctx=json.dumps(context()).encode().replace(b"message 1", b"message \xff\xfe"))
print(len(os.listdir("cases")), "cases")
