#!/usr/bin/env python3
# app-trace-bpf-totals.py FILES FIO_JSON - app-trace run as BPF (RUNTIME=bpf) over fio's write and read of 1 MiB of
# /tmp/atdata: the trace's bytes of that file, by the descriptors fio opened it on, equal to what fio says it moved;
# every call line counted by the end's totals; self-describing files from the BPF run's procfs("header") file.
# Used by tests/secureboot/run and tests/guest/app-trace-bpf.t.
import json, re, sys
files = open(sys.argv[1]).read().split()
fio = {j["jobname"]: j for j in json.load(open(sys.argv[2]))["jobs"]}
assert files, "no trace files"
text = "".join(open(f).read() for f in files)
assert re.search(r"^# module: app_trace$", text, re.M) and re.search(r"^# apps: fio$", text, re.M), text[:800]
assert "# lost:" not in text, "lines lost"
line = re.compile(r"^\d+ op: (\w+) execname: (\S+) pid: (\d+) fd: (-?\d+)(?: count: \d+)?(?: offset: \d+)?(?: ret: (-?\d+))?(?: path: (.*))?$")
open_fds, moved, calls = set(), {"read": 0, "write": 0}, 0
for l in text.splitlines():
    if l.startswith("#"):
        continue
    m = line.match(l)
    assert m, "bad line: " + l
    calls += 1
    op, name, pid, fd, ret, path = m.groups()
    key = (pid, fd)
    if op == "open" and path == '"/tmp/atdata"' and int(fd) >= 0:
        open_fds.add(key)
    elif op == "close":
        open_fds.discard(key)
    elif op in moved and key in open_fds and ret is not None and int(ret) > 0:
        moved[op] += int(ret)
want = {"write": fio["write"]["write"]["io_bytes"], "read": fio["read"]["read"]["io_bytes"]}
assert want == {"write": 1 << 20, "read": 1 << 20}, want
assert moved == want, (moved, want)
tot = re.search(r"^# totals: bytes_read: (\d+) bytes_written: (\d+) lines: (\d+)$", text, re.M)
assert tot and int(tot.group(3)) == calls, (tot and tot.group(0), calls)
# a hit's output is one record, as a module's: a line each, and the end probe's totals
records = sum(int(n) for n in re.findall(r"^# end: file: \S+ records: (\d+) ", text, re.M))
assert records == calls + 1, (records, calls)
print("app-trace on BPF: fio's file written %d and read %d bytes, as fio says; %d lines" % (moved["write"], moved["read"], calls))
