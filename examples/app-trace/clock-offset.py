#!/usr/bin/env python3
# clock-offset.py - a host's clock minus this machine's, measured as NTP does over one ssh session: prints "OFFSET_US ERR_US".
# Used by app-trace.yml (start) on the controller; stap --remote measures the same way (translator/driver/remote.c).
#
# clock-offset.py [--samples N] [--port P] [--user U] [--key FILE] [--ssh-args "ARGS"] HOST
# The host answers each line sent with its clock (date +%s%6N); of N exchanges the one of the
# shortest round trip is kept: the offset is taken at the middle of that trip, its error is half
# of it. When the host cannot be asked: "0 -1" (not measured), why on stderr, status 0 (the
# trace starts all the same).
import argparse
import select
import shlex
import subprocess
import sys
import time


def now_us():
    return time.clock_gettime_ns(time.CLOCK_REALTIME) // 1000


def read_line(f, timeout):
    if not select.select([f], [], [], timeout)[0]:
        raise TimeoutError("no answer in %d s" % timeout)
    line = f.readline()
    if not line:
        raise EOFError("the session ended")
    return line


def measure(argv, samples):
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    best = None
    try:
        for _ in range(samples):
            t0 = now_us()
            p.stdin.write(b"\n")
            p.stdin.flush()
            there = int(read_line(p.stdout, 60))
            t1 = now_us()
            rtt = t1 - t0
            if best is None or rtt < best[0]:
                best = (rtt, there - (t0 + rtt // 2))
    finally:
        p.stdin.close()
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--port", default="")
    ap.add_argument("--user", default="")
    ap.add_argument("--key", default="")
    ap.add_argument("--ssh-args", default="")
    ap.add_argument("host")
    a = ap.parse_args()
    argv = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=30"]
    if a.port:
        argv += ["-p", a.port]
    if a.user:
        argv += ["-l", a.user]
    if a.key:
        argv += ["-i", a.key]
    argv += shlex.split(a.ssh_args) + ["--", a.host, "while read -r l; do date +%s%6N; done"]
    try:
        rtt, offset = measure(argv, max(1, a.samples))
    except (OSError, ValueError, TimeoutError, EOFError, TypeError) as e:
        print("clock-offset.py: %s: %s" % (a.host, e), file=sys.stderr)
        print("0 -1")
        return 0
    print("%d %d" % (offset, (rtt + 1) // 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
