# app-trace-report on hand-written traces (text and JSON lines): exact per-program totals, histograms, sequential share, busiest files, hosts from file names and fetch directories, names escaped, malformed lines reported as file:line, --timeline, --plot PNG and SVG.
# Used by tests/run (unit/ and asan/ against build/asan/bin/app-trace-report); the format is examples/app-trace/app-trace.stp's.

run() {
    local ATR rc
    ATR=$(dirname "$STAP")/app-trace-report
    [[ -x $ATR ]]
    cat >alpha-app-trace.out <<'T'
1000000 op: open execname: fio pid: 10 fd: 3 path: "/data/f"
1000100 op: write execname: fio pid: 10 fd: 3 count: 65536 offset: 0 ret: 65536
1000200 op: write execname: fio pid: 10 fd: 3 count: 65536 offset: 65536 ret: 65536
1000300 op: write execname: fio pid: 10 fd: 3 count: 4096 offset: 1048576 ret: 4096
1000400 op: seek execname: fio pid: 10 fd: 3 offset: 0
1500000 op: read execname: fio pid: 10 fd: 3 count: 4096 offset: 0 ret: 4096
2500000 op: read execname: fio pid: 10 fd: 3 count: 4096 offset: 4096 ret: 100
2600000 op: read execname: fio pid: 10 fd: 3 count: 512 offset: 9999 ret: -14
2700000 op: fsync execname: fio pid: 10 fd: 3
2800000 op: close execname: fio pid: 10 fd: 3
2900000 op: open execname: fio pid: 10 fd: -1 ret: -2 path: "/nope"
3000000 op: read execname: cat pid: 11 fd: 0 count: 131072 ret: 7
3000001 op: socket execname: my prog pid: 12 fd: 4
3000002 op: connect execname: my prog pid: 12 fd: 4 ret: -111
3000003 op: write execname: my prog pid: 12 fd: 4 count: 10 ret: 10
# totals: op: read calls: 4
T
    mkdir -p traces
    printf '%s\n' '5000000 op: read execname: dd pid: 20 fd: 0 count: 512 offset: 0 ret: 512' \
        '# lost: 5 records (100 bytes)' >traces/beta-app-trace.out
    "$ATR" alpha-app-trace.out traces/beta-app-trace.out >report.out 2>report.err
    test ! -s report.err
    # fio: 4 of its 6 accesses with an offset start where the last one ended (the first at 0, the
    # one after a seek to 0), the write at 1 MiB and the failed read at 9999 do not
    diff -u - report.out <<'EOF_REPORT'
host alpha: 15 calls
  program cat
    calls: read 1
    bytes read 7, written 0
    read request sizes (bytes):
                    131072 - 262143               1
  program fio
    calls: open 2 read 3 write 3 seek 1 close 1 fsync 1
    bytes read 4196, written 135168
    accesses with an offset 6: sequential 4 (66.7%), random 2 (33.3%)
    read request sizes (bytes):
                       512 - 1023                 1
                      4096 - 8191                 2
    write request sizes (bytes):
                      4096 - 8191                 1
                     65536 - 131071               2
  program my prog
    calls: socket 1 connect 1 write 1
    bytes read 0, written 10
    write request sizes (bytes):
                         8 - 15                   1
  busiest files (bytes read, written, calls):
            4196       135168       10  "/data/f"
host beta: 1 calls
  WARNING: the trace lost 5 records
  program dd
    calls: read 1
    bytes read 512, written 0
    accesses with an offset 1: sequential 1 (100.0%), random 0 (0.0%)
    read request sizes (bytes):
                       512 - 1023                 1
EOF_REPORT
    # two files of one host add up
    cp alpha-app-trace.out traces/alpha-app-trace.out.1
    "$ATR" --top 0 alpha-app-trace.out traces/alpha-app-trace.out.1 >twice.out
    grep -qx 'host alpha: 30 calls' twice.out
    grep -qx '    bytes read 8392, written 270336' twice.out
    not grep -q 'busiest' twice.out

    # the host from the file's header; --timeline: a table per host, then both hosts' calls in the
    # controller's time (x's clock 5 s ahead of it, y's 20 ms behind): y's write at its 4.98 s came
    # between x's two reads at their 10.0 and 10.1 s
    printf '%s\n' '# stap-output-header: 1' '# host: x' '# script: app-trace.stp' \
        '# clock_offset_us: 5000000 clock_offset_err_us: 1500' \
        '10000000 op: read execname: cat pid: 7 fd: 3 count: 10 ret: 10' \
        '10100000 op: read execname: cat pid: 7 fd: 3 count: 10 ret: -5' \
        '# end: file: t.0 records: 2 bytes: 300 not_written: 0' >chunk.0
    printf '%s\n' '# host: y' '# clock_offset_us: -20000 clock_offset_err_us: 700' \
        '5030000 op: write execname: dd pid: 9 fd: 1 count: 4 ret: 4' '# lost: 3 records (30 bytes)' >chunk.1
    "$ATR" --timeline chunk.0 chunk.1 >timeline.out
    diff -u - timeline.out <<'EOF_TIMELINE'
host                      lines      calls          bytes     lost   errors           first_us            last_us    offset_us   error_us
x                             2          2             10        0        1           10000000           10100000      5000000       1500
y                             4          1              4        3        0            5030000            5030000       -20000        700
clock offset of x: from the header of chunk.0
clock offset of y: from the header of chunk.1
timeline (controller's clock; two hosts' calls are in order when more than 2200 us apart):
5000000 x op: read execname: cat pid: 7 fd: 3 ret: 10
5050000 y op: write execname: dd pid: 9 fd: 1 ret: 4
5100000 x op: read execname: cat pid: 7 fd: 3 ret: -5
EOF_TIMELINE
    # without an offset a host keeps its own clock, and the report says so
    grep -v clock_offset chunk.1 >nooff.1
    "$ATR" --timeline chunk.0 nooff.1 >nooff.out
    grep -q '^y .* unknown          -$' nooff.out
    grep -q 'a host without a measured offset as its own clock' nooff.out

    # --json: one object, valid JSON whatever the names hold; its totals are the text report's
    printf '1 op: read execname: q"\\\001\351 pid: 5 fd: 0 count: 3 ret: 3\n' >odd-app-trace.out
    "$ATR" --json alpha-app-trace.out traces/beta-app-trace.out odd-app-trace.out chunk.0 >report.json
    [[ $(wc -l <report.json) == 1 ]]
    python3 -m json.tool report.json >/dev/null
    "$ATR" --top 0 alpha-app-trace.out traces/beta-app-trace.out odd-app-trace.out chunk.0 >report.txt
    python3 - report.json report.txt <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2], encoding="latin-1").read()
hosts = dict(re.findall(r"^host (\S+): (\d+) calls$", text, re.M))
assert {h["host"]: str(h["calls"]) for h in j["hosts"]} == hosts, (hosts, j["hosts"])
progs = re.findall(r"^  program (.*)\n    calls: (.*)\n    bytes read (\d+), written (\d+)$", text, re.M)
jp = sorted((p["execname"], " ".join(f"{k} {v}" for k, v in p["calls"].items()), str(p["bytes_read"]),
             str(p["bytes_written"])) for h in j["hosts"] for p in h["programs"])
# the text report escapes a name: a backslash as \\, other bytes outside printable ASCII as \xNN
unesc = lambda n: re.sub(r"\\(\\|x([0-9a-f]{2}))", lambda m: chr(int(m.group(2), 16)) if m.group(2) else "\\", n)
tp = sorted((unesc(n), c, r, w) for n, c, r, w in progs)
assert jp == tp, (jp, tp)
x = [h for h in j["hosts"] if h["host"] == "x"][0]
assert (x["clock_offset_us"], x["clock_offset_err_us"], x["errors"]) == (5000000, 1500, 1), x
assert [p["execname"] for h in j["hosts"] for p in h["programs"] if h["host"] == "odd"] == ['q"\\\u0001\u00e9']
PY

    # JSON lines (app-trace.stp's format=json): the same calls as JSON give the same reports, text
    # and --json, byte for byte; hostile paths and names (quotes, backslashes, control bytes, bytes
    # that are not UTF-8, UTF-8) are decoded, and the files shown as the text form quotes them
    printf '%s\n' '7 op: open execname: h"x\ pid: 3 fd: 5 path: "/t/q\"b\\s\001\n\377\303\251 z"' \
        '8 op: read execname: h"x\ pid: 3 fd: 5 count: 9 offset: 0 ret: 9' \
        '9 op: open execname: h"x\ pid: 3 fd: 6 ret: -2 path: "\a\b\t\v\f\r\177\200"' \
        '# lost: 2 records (20 bytes)' >hostile-app-trace.out
    mkdir -p json
    python3 - alpha-app-trace.out traces/beta-app-trace.out hostile-app-trace.out <<'PY'
import json, re, sys
# the tapset's json_string: " and \ escaped, control bytes and DEL as \u00XX, well-formed UTF-8 as
# it is, other bytes as \u00XX of the byte
def jstr(b):
    out, i = '"', 0
    while i < len(b):
        for n in (4, 3, 2):
            if b[i] >= 0x80 and i + n <= len(b):
                try:
                    out += b[i:i + n].decode("utf-8"); i += n; break
                except UnicodeDecodeError:
                    pass
        else:
            c = b[i]; i += 1
            out += '\\' + chr(c) if c in b'"\\' else chr(c) if 0x20 <= c < 0x7f else "\\u%04x" % c
    return out + '"'
def unquote(q):
    simple = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, "b": 8, "a": 7, '"': 34, "\\": 92}
    out, i = bytearray(), 0
    q = q.encode("latin-1")[1:-1]
    while i < len(q):
        if q[i] == 92:
            if chr(q[i + 1]) in simple: out.append(simple[chr(q[i + 1])]); i += 2
            else: out.append(int(q[i + 1:i + 4], 8)); i += 4
        else: out.append(q[i]); i += 1
    return bytes(out)
for f in sys.argv[1:]:
    out = []
    for l in open(f, encoding="latin-1").read().splitlines():
        if l.startswith("# lost: "):
            out.append('{"type":"lost","records":%s,"bytes":0}' % l.split()[2]); continue
        if l.startswith("#"):
            out.append('{"type":"totals","calls":{"read":4},"lines":5}'); continue
        m = re.match(r"(\d+) op: (\S+) execname: (.*?) pid: (\d+) fd: (-?\d+)(?: count: (\d+))?(?: offset: (\d+))?(?: ret: (-?\d+))?(?: path: (.*))?$", l)
        t, op, exe, pid, fd, count, off, ret, path = m.groups()
        j = '{"time_us":%s,"op":"%s","execname":%s,"pid":%s,"fd":%s' % (t, op, jstr(exe.encode("latin-1")), pid, fd)
        for k, v in (("count", count), ("offset", off), ("ret", ret)):
            if v is not None: j += ',"%s":%s' % (k, v)
        if path is not None: j += ',"path":' + jstr(unquote(path))
        out.append(j + "}")
    name = "json/" + f.split("/")[-1]
    open(name, "w", encoding="utf-8", errors="surrogateescape").write("\n".join(out) + "\n")
    for l in open(name, "rb").read().decode("utf-8").splitlines():
        json.loads(l)
PY
    "$ATR" alpha-app-trace.out traces/beta-app-trace.out hostile-app-trace.out >text.report
    "$ATR" json/alpha-app-trace.out json/beta-app-trace.out json/hostile-app-trace.out >json.report
    diff -u text.report json.report
    grep -qF '"/t/q\"b\\s\001\n\377\303\251 z"' json.report
    grep -qx '  WARNING: the trace lost 2 records' json.report
    "$ATR" --json alpha-app-trace.out traces/beta-app-trace.out hostile-app-trace.out >text.json
    "$ATR" --json json/alpha-app-trace.out json/beta-app-trace.out json/hostile-app-trace.out >json.json
    cmp text.json json.json
    python3 -m json.tool json.json >/dev/null
    # a file of both forms (the format changed mid-run) is read line by line; the JSON header's
    # host names the host, its clock offset counts
    printf '%s\n' '{"type":"header","stap_output_header":1,"host":"jh","clock_offset_us":-7,"clock_offset_err_us":2}' \
        '{"time_us":5,"op":"seek","execname":"a","pid":1,"fd":3,"offset":0,"ret":0}' \
        '6 op: close execname: a pid: 1 fd: 3' >mixed.0
    "$ATR" --json mixed.0 >mixed.json
    python3 - mixed.json <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["hosts"]
assert [(x["host"], x["calls"], x["clock_offset_us"], x["clock_offset_err_us"]) for x in h] == [("jh", 2, -7, 2)], h
PY
    # names from a trace reach a terminal escaped (\xNN; a backslash as \\ in a name): an execname,
    # a path and a header's host with escape sequences, a bad line quoting them in its message,
    # in the report, --timeline and the messages; no control byte is printed raw
    printf '# host: ev\033]0;owned\007il\n1 op: open execname: x\033[2Jy\\z pid: 1 fd: 3 path: "/t/\033[31mred"\n2 op: no\033[5mp execname: a pid: 1 fd: 3\n' >esc.0
    rc=0; "$ATR" esc.0 >esc.out 2>esc.err || rc=$?
    [[ $rc == 1 ]]
    "$ATR" --timeline esc.0 >esc.timeline 2>/dev/null || true
    not env LC_ALL=C grep -q '[[:cntrl:]]' esc.out esc.err esc.timeline
    grep -qxF 'host ev\x1b]0;owned\x07il: 1 calls' esc.out
    grep -qxF '  program x\x1b[2Jy\\z' esc.out
    grep -qF ' "/t/\x1b[31mred"' esc.out
    grep -qxF "esc.0:3: unknown op 'no\x1b[5mp'" esc.err
    grep -qxF '1 ev\x1b]0;owned\x07il op: open execname: x\x1b[2Jy\\z pid: 1 fd: 3' esc.timeline
    # (the control, plain names printed as they are: the reports above, compared whole)

    # a directory app-trace.yml fetched into (FETCH_DIR/.app-trace-fleet, FETCH_DIR/HOST/): a file's
    # host is the inventory host whose directory it is in. hostB's file claiming to be hostA's (by
    # its name and its header) is counted as hostB's, with a notice that says so and that its clock
    # offset is hostB's; the directory, or its files named one by one, give the same
    mkdir -p fleet/hostA fleet/hostB
    : >fleet/.app-trace-fleet
    printf '%s\n' '# host: hostA' '# clock_offset_us: 100 clock_offset_err_us: 5' \
        '10 op: read execname: honest pid: 1 fd: 3 count: 8 ret: 8' >fleet/hostA/hostA-app-trace.out.0
    printf '%s\n' '# host: hostA' '# clock_offset_us: -900 clock_offset_err_us: 7' \
        '20 op: write execname: forger pid: 2 fd: 3 count: 4 ret: 4' >fleet/hostB/hostA-app-trace.out.0
    "$ATR" --top 0 fleet >fleet.out 2>fleet.err
    diff -u - fleet.out <<'EOF_FLEET'
host hostA: 1 calls
  program honest
    calls: read 1
    bytes read 8, written 0
    read request sizes (bytes):
                         8 - 15                   1
host hostB: 1 calls
  program forger
    calls: write 1
    bytes read 0, written 4
    write request sizes (bytes):
                         4 - 7                    1
EOF_FLEET
    diff -u - fleet.err <<'EOF_NOTICE'
app-trace-report: notice: fleet/hostB/hostA-app-trace.out.0: its header names host hostA, but it was fetched from hostB: counted as hostB's, its clock offset too
EOF_NOTICE
    "$ATR" --top 0 fleet/hostA/hostA-app-trace.out.0 fleet/hostB/hostA-app-trace.out.0 >fleet-files.out 2>fleet-files.err
    diff -u fleet.out fleet-files.out
    diff -u fleet.err fleet-files.err
    # --timeline and --json say whose file's header gave each host's clock offset
    "$ATR" --timeline fleet 2>/dev/null >fleet.timeline
    grep -Eqx 'hostB +1 +1 +4 +0 +0 +20 +20 +-900 +7' fleet.timeline
    grep -qx 'clock offset of hostB: from the header of fleet/hostB/hostA-app-trace.out.0' fleet.timeline
    grep -qx 'clock offset of hostA: from the header of fleet/hostA/hostA-app-trace.out.0' fleet.timeline
    "$ATR" --json fleet 2>/dev/null >fleet.json
    python3 - fleet.json <<'PY'
import json, sys
h = {x["host"]: x for x in json.load(open(sys.argv[1]))["hosts"]}
assert (h["hostB"]["calls"], h["hostB"]["clock_offset_us"], h["hostB"]["clock_offset_from"]) == \
    (1, -900, "fleet/hostB/hostA-app-trace.out.0"), h
PY
    # the control: the same files outside a fetch directory go by their names, as before (both
    # hostA's, no notice); such a directory itself is refused
    cp -r fleet loose
    rm loose/.app-trace-fleet
    "$ATR" --top 0 loose/hostA/hostA-app-trace.out.0 loose/hostB/hostA-app-trace.out.0 >loose.out 2>loose.err
    test ! -s loose.err
    grep -qx 'host hostA: 2 calls' loose.out
    not grep -q hostB loose.out
    rc=0; "$ATR" loose >/dev/null 2>loose-dir.err || rc=$?
    [[ $rc == 1 ]]
    grep -qx "app-trace-report: loose: a directory without .app-trace-fleet (not one app-trace.yml fetched into): give the trace files in it" loose-dir.err

    # --timeline at int64_t's ends: a time of 2^63-1 us on a host 2^63-1 us behind, errors adding
    # past 2^63: the controller's times held to the range (no signed overflow, UBSan in asan/)
    printf '%s\n' '# clock_offset_us: -9223372036854775807 clock_offset_err_us: 9223372036854775807' \
        '9223372036854775807 op: read execname: a pid: 1 fd: 3' >late.0
    printf '%s\n' '# clock_offset_us: 9223372036854775807 clock_offset_err_us: 9223372036854775807' \
        '0 op: read execname: b pid: 1 fd: 3' >early.0
    "$ATR" --timeline late.0 early.0 >ends.out 2>ends.err
    test ! -s ends.err
    grep -qx 'timeline (.* more than 9223372036854775807 us apart):' ends.out
    grep -A2 '^timeline' ends.out | tail -n 2 >ends.calls
    diff -u - ends.calls <<'EOF_ENDS'
-9223372036854775807 early.0 op: read execname: b pid: 1 fd: 3
9223372036854775807 late.0 op: read execname: a pid: 1 fd: 3
EOF_ENDS

    # malformed JSON lines: each reported with why
    printf '%s\n' '{"time_us":1,"op":"read","execname":"a","pid":1}' '{"time_us":1.5,"op":"read"}' \
        '{"time_us":1,"op":"frob","execname":"a","pid":1,"fd":3}' '{"op":"read" "x":1}' \
        '{"time_us":1,"op":"read","execname":"a\u0000","pid":1,"fd":3}' '{"path":"\ud800"}' \
        '{"time_us":1,"op":"read","execname":"a","pid":1,"fd":3} x' '{"type":"lost"}' \
        '{"time_us":1,"time_us":2}' '{"a":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}' '{"a":"x' \
        '{"time_us":1,"op":"read","execname":"a","pid":1,"fd":3,"count":4,"ret":4,"more":{"x":[1,"y",null]}}' >badj.out
    rc=0
    "$ATR" badj.out >badj.report 2>badj.err || rc=$?
    [[ $rc == 1 ]]
    diff -u - badj.err <<'EOF_ERR'
badj.out:1: a call needs time_us, op, execname, pid and fd
badj.out:2: expected a whole number
badj.out:3: unknown op 'frob'
badj.out:4: expected ',' or '}'
badj.out:5: a NUL in a string
badj.out:6: a lone surrogate
badj.out:7: text after the object
badj.out:8: a lost record needs records
badj.out:9: a member given twice
badj.out:10: nested too deep
badj.out:11: unterminated string
EOF_ERR
    grep -qx 'host badj.out: 1 calls' badj.report

    # malformed lines: each reported as file:line: why, the good lines still counted, status 1
    printf '%s\n' 'x op: open execname: a pid: 1 fd: 3' '1 op: frob execname: a pid: 1 fd: 3' \
        '1 op: read execname: a pid: 1 fd: 3 count: 99999999999999999999' \
        '1 op: read execname: a pid: 1 fd: 3 ret: 5 count: 5' '1 op: read execname: a pid: 1' \
        '1 op: read execname: a' '1 op: read execname: a pid: 1 fd: 3 count: 8 ret: 8' '' \
        '1 op: read execname: a pid: 1 fd: -2' '1 op: read execname: a pid: 1 fd: 3 path: ' >bad.out
    printf '1 op: read execname: a\0b pid: 1 fd: 3\n1 op: open execname: a pid: 1 fd: 3 path: "x' >>bad.out
    rc=0
    "$ATR" bad.out >bad.report 2>bad.err || rc=$?
    [[ $rc == 1 ]]
    diff -u - bad.err <<'EOF_ERR'
bad.out:1: time: expected a number
bad.out:2: unknown op 'frob'
bad.out:3: count out of range
bad.out:4: unexpected text after the fields (order: count, offset, ret, path)
bad.out:5: expected ' fd: ' after the pid
bad.out:6: no pid: field
bad.out:9: fd out of range
bad.out:10: bad path
bad.out:11: bad execname
EOF_ERR
    grep -qx 'host bad.out: 2 calls' bad.report
    # a flood of bad lines: 20 messages, then a count
    for i in $(seq 100); do echo "garbage $i"; done >flood-app-trace.out
    rc=0
    "$ATR" flood-app-trace.out >/dev/null 2>flood.err || rc=$?
    [[ $rc == 1 ]]
    [[ $(wc -l <flood.err) == 21 ]]
    grep -qx 'flood-app-trace.out: 80 more malformed lines' flood.err
    # a missing file, bad options
    rc=0; "$ATR" nosuch-app-trace.out >/dev/null 2>missing.err || rc=$?
    [[ $rc == 1 ]] && grep -qx 'app-trace-report: nosuch-app-trace.out: No such file or directory' missing.err
    rc=0; "$ATR" --bin 0 alpha-app-trace.out >/dev/null 2>bin.err || rc=$?
    [[ $rc == 2 ]] && grep -q 'not a positive number' bin.err
    rc=0; "$ATR" --plot x.jpg alpha-app-trace.out >/dev/null 2>ext.err || rc=$?
    [[ $rc == 1 ]] && grep -q 'must end in .png or .svg' ext.err

    # --plot: gnuplot pictures. SVG: the series named after the hosts, alpha's throughput with a
    # point per one-second bin (its lines span 1.0 to 3.0 s: 3 bins) and one in the key
    command -v gnuplot >/dev/null || { echo "FAIL: no gnuplot (make deps installs gnuplot-nox)"; return 1; }
    "$ATR" --plot plot.svg alpha-app-trace.out traces/beta-app-trace.out >/dev/null
    grep -q '<svg' plot.svg
    grep -q '<title>alpha read</title>' plot.svg
    grep -q '<title>beta write</title>' plot.svg
    [[ $(sed -n '/<title>alpha read<\/title>/,/<title>alpha write<\/title>/p' plot.svg | grep -o "xlink:href='#gpPt" | wc -l) == 4 ]]
    # PNG: the signature, an IHDR of 1000x800; a plot of other data is a different picture
    "$ATR" --plot plot.png alpha-app-trace.out >/dev/null
    [[ $(head -c 24 plot.png | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a0000000d49484452000003e800000320 ]]
    "$ATR" --plot other.png traces/beta-app-trace.out >/dev/null
    not cmp -s plot.png other.png
    (( $(stat -c %s plot.png) > 5000 ))
    # nothing to plot is an error; a host without transfers beside one with them is drawn
    echo '1 op: open execname: a pid: 1 fd: 3 path: "x"' >idle-app-trace.out
    rc=0; "$ATR" --plot idle.png idle-app-trace.out >/dev/null 2>idle.err || rc=$?
    [[ $rc == 1 ]] && grep -qx 'app-trace-report: --plot idle.png: no reads or writes to plot' idle.err
    "$ATR" --plot both.svg idle-app-trace.out alpha-app-trace.out >/dev/null
    grep -q '<title>idle read</title>' both.svg
}
