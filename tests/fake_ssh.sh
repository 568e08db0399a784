#!/bin/sh
# A stand-in for ssh in the tests that run without an sshd (the real ssh
# and sshd are checked in cli::hosts::real_ssh, under CI): it takes ssh's
# options, then `--`, the destination and the remote line, and runs the
# line in a shell as the "other machine" would, in the home
# $FAKE_SSH_HOMES/<destination>, with none of this machine's environment
# but PATH. The destination `hang` never answers; one without a home is
# unreachable, as ssh says it (exit 255). A file $FAKE_SSH_HOMES/<destination>.cpu
# naming a core pins that "machine" to it (the benchmark's machines of
# one core each).
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    -o|-F|-p|-i|-l) shift 2 ;;
    *) shift ;;
  esac
done
shift
dest=$1
line=$2
if [ "$dest" = hang ]; then
  sleep 600
  exit 0
fi
home=$FAKE_SSH_HOMES/$dest
if [ ! -d "$home" ]; then
  echo "ssh: Could not resolve hostname $dest: Name or service not known" >&2
  exit 255
fi
cd "$home" || exit 255
pin=
if [ -f "$home.cpu" ]; then
  pin="taskset -c $(cat "$home.cpu")"
fi
exec $pin env -i HOME="$home" PATH="$PATH" LOKI_SESSIONS_ARCHIVE_DUE=off sh -c "$line"
