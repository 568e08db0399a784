"""Runs a command on a pseudo-terminal, as a person at a terminal would.

Usage: pty_run.py ANSWER -- COMMAND...

Waits for the command to ask a y/N question on the terminal, types ANSWER
and Enter, and relays everything the command wrote (stdin, stdout and
stderr are all the terminal). Exits with the command's exit code.
"""
import os
import pty
import select
import sys
import time


def main():
    answer = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    seen = b""
    answered = False
    deadline = time.time() + 60
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if not answered and b"[y/N]" in seen:
                os.write(fd, answer.encode() + b"\r")
                answered = True
        else:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
    sys.stdout.write(seen.decode("utf-8", "replace"))
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


main()
