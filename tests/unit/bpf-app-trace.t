# bpf-app-trace - examples/app-trace/app-trace.stp unchanged on this host as BPF: a kernel with BTF and no headers, its
# tracepoints' systems from the running kernel's tracefs (mounted in a mount namespace of the case's own), the traced
# set given with -G (the object's global set by stapio), dd's calls traced: its bytes, one record a line, the header.
# Used by tests/run (unit/bpf-app-trace); the systems are translator/btf/tpsystems.c's, -G stapio/bpfglobals.c's.
asan_rerun=0
timeout_s=180

run() {
    [[ $(id -u) == 0 ]] || { echo "needs root (BPF, a tracefs mount)"; exit 77; }
    [[ -r /sys/kernel/btf/vmlinux ]] || { echo "the kernel has no BTF"; exit 77; }
    [[ -c /dev/fuse ]] && grep -qw fuse /proc/filesystems || { echo "no FUSE here (/dev/fuse)"; exit 77; }
    command -v unshare >/dev/null || { echo "no unshare"; exit 77; }
    export SYSTEMTAP_DIR=$PWD/sd STAP TOP
    # shellcheck disable=SC2016
    unshare -m bash -c '
        mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing || exit 77
        "$STAP" -vv --runtime=bpf -G apps_init=dd -o "$PWD/trace.out" \
            -c "dd if=/dev/zero of=$PWD/dd.data bs=4k count=8 status=none" "$TOP/examples/app-trace/app-trace.stp"
    ' >run.out 2>run.err || { rc=$?; cat run.err; return $rc; }
    # the catalog said where the systems came from (the headers when this host has them)
    grep -Eq 'systems from (/sys/kernel/tracing/events|[0-9]+ headers)' run.err || grep -q 'loaded from the cache' run.err ||
        { grep -i tracepoint run.err; return 1; }
    grep -qx '# apps: dd' trace.out || { head -n 15 trace.out; return 1; }
    # dd's writes of its output: 8 of 4 KiB to the file it opened (dup2'd to its stdout, which app-trace does not follow:
    # the writes with a file offset, dd's only writes to a regular file)
    python3 - trace.out "$PWD/dd.data" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
path = '"%s"' % sys.argv[2]
opened, written, lines = False, 0, 0
for l in text.splitlines():
    if l.startswith("#"):
        continue
    lines += 1
    m = re.match(r"^\d+ op: (\w+) execname: dd pid: (\d+) fd: (-?\d+)(?: count: \d+)?( offset: \d+)?(?: ret: (-?\d+))?(?: path: (.*))?$", l)
    assert m, "bad line: " + l
    op, pid, fd, offset, ret, p = m.groups()
    if op == "open" and p == path:
        opened = True
    elif op == "write" and opened and offset:
        written += int(ret)
assert written == 8 * 4096, written
tot = re.search(r"^# totals: bytes_read: \d+ bytes_written: \d+ lines: (\d+)$", text, re.M)
assert tot and int(tot.group(1)) == lines, (tot, lines)
end = re.search(r"^# end: file: \S+ records: (\d+) ", text, re.M)
assert end and int(end.group(1)) == lines + 1, (end and end.group(0), lines)
PY
}
