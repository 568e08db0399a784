"""Plays a terminal for the UI on a pseudo-terminal, and types keys at it.

Usage: pty_term.py MODE KEYS -- COMMAND...

MODE is `kitty` (a terminal that speaks the kitty keyboard protocol: it
answers `CSI ? u`) or `legacy` (it answers only the attributes query, as
most terminals and tmux do). Both answer the background query (dark) and
the attributes query (DA1), as real terminals do.

KEYS is a list of writes separated by `|`, each sent in one write (so its
bytes arrive in one read) once the screen has been quiet for a moment. In a write, `<esc>` is the Esc key as the terminal sends it
(`CSI 27 u` under the protocol's flags, the lone byte otherwise).

Prints one JSON object: whether the command exited within 10 seconds of the
last write and its exit code, whether it pushed and popped the protocol's
flags, and every byte it wrote (`raw`, base64).
"""
import base64
import fcntl
import json
import os
import pty
import select
import struct
import sys
import termios
import time

PUSH = b"\x1b[>1u"
POP = b"\x1b[<1u"


def main():
    mode = sys.argv[1]
    writes = sys.argv[2].split("|")
    command = sys.argv[sys.argv.index("--") + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = bytearray()
    answered = 0

    def pump(quiet, limit):
        """Reads until nothing came for `quiet` seconds or for `limit` in
        all (the UI redraws while it counts); answers queries."""
        nonlocal answered
        start = last = time.time()
        while time.time() - last < quiet and time.time() - start < limit:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            seen.extend(chunk)
            last = time.time()
            # The questions end with the attributes query; answer in order.
            while seen.find(b"\x1b[c", answered) >= 0:
                asked = seen.find(b"\x1b[c", answered)
                question = bytes(seen[answered:asked])
                answer = b""
                if b"\x1b]11;?" in question:
                    answer += b"\x1b]11;rgb:1e1e/1e1e/2e2e\x1b\\"
                if mode == "kitty" and b"\x1b[?u" in question:
                    answer += b"\x1b[?0u"
                answer += b"\x1b[?62;22c"
                os.write(fd, answer)
                answered = asked + 3
        return True

    # Started: it asked (and, under the protocol, took the flags); a slow
    # machine may take seconds to get there.
    started = time.time()
    while time.time() - started < 30:
        pump(0.5, 3)
        if answered and (mode != "kitty" or PUSH in seen):
            break
    esc = b"\x1b[27u" if PUSH in seen else b"\x1b"
    for write in writes:
        os.write(fd, write.encode().replace(b"<esc>", esc))
        if not pump(0.3, 2):
            break
    exited, code = False, None
    deadline = time.time() + 10
    while time.time() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            exited, code = True, os.waitstatus_to_exitcode(status)
            break
        pump(0.1, 0.1)
    if not exited:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    print(json.dumps({
        "exited": exited,
        "code": code,
        "pushed": PUSH in seen,
        "popped": POP in seen,
        "raw": base64.b64encode(bytes(seen)).decode(),
    }))


main()
