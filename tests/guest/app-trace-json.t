# app-trace-json: the service's FORMAT=json (JSON lines) against FORMAT=text over the same dd runs on hostile file and program names (quotes, backslashes, control bytes, bytes that are not UTF-8): every JSON line valid, an lseek as op seek with its offset, the header (script name and SHA-256)/end/totals objects, the same report from both forms
# Used by tests/run (guest/app-trace-json); the service files are examples/app-trace/*, the report tool app-trace-report/, the escaper json_string (tapset/string.stp).

timeout_s=400
W=/tmp/apptj
# the programs: dd, and dd copied to a name with a quote, a backslash and a byte that is not UTF-8
ODD=$'d"q\\\xff'

build() {
    need_kernel_dwarf
    DESTDIR=$CASE_DIR/root STAP=$TOP/build/bin/stap STAP_OPTS=-DSTP_NO_OVERLOAD "$TOP/examples/app-trace/app-trace-ctl" install "$KVER" >install.out
    [[ -s root/lib/modules/$KVER/systemtap/app_trace.ko ]]
}

CTL=$CASE_DIR/root/usr/local/sbin/app-trace-ctl

# conf FORMAT: the configuration of one run, its files in traces-FORMAT
conf() {
    cat >"$1.conf" <<EOF2
APPS='dd $ODD'
TRACEDIR=$CASE_DIR/traces-$1
SIZE_MB=1
KEEP=0
BUFFER_MB=8
FORMAT=$1
MODULE=$CASE_DIR/root/lib/modules/$KVER/systemtap/app_trace.ko
EOF2
}

# workload: the same calls each time: dd and its copy read files of hostile names, one missing
workload() {
    local f
    for f in "$W"/in/*; do
        dd if="$f" of=/dev/null bs=512 status=none
        "$W/$ODD" if="$f" of="$W/out" bs=1k status=none
    done
    dd if="$W/in/no such \"file\"" of=/dev/null status=none 2>/dev/null || true
    # an lseek to 1536: {"op":"seek",...,"offset":1536}
    dd if="$W/in/plain" of=/dev/null bs=512 skip=3 status=none
}

run_format() {
    local i pid
    conf "$1"
    export APP_TRACE_CONF=$CASE_DIR/$1.conf
    "$CTL" start >"$1.start.out" 2>"$1.start.err" & pid=$!
    for i in $(seq 600); do
        file_has "$1.start.out" '^app-trace-ctl: tracing' && break
        kill -0 $pid
        nap 0.2
    done
    cat /proc/systemtap/app_trace/format >"$1.format"
    workload
    "$CTL" stop >"$1.stop.out" 2>&1
    wait $pid
    "$CTL" files >"$1.files"
    not loaded app_trace
}

guest() {
    rm -rf "$W" traces-text traces-json
    mkdir -p "$W/in"
    cp "$(command -v dd)" "$W/$ODD"
    printf 'quote' >"$W/in/q\"uote"
    printf 'back' >"$W/in/back\\slash"
    printf 'ctl' >"$W/in/c"$'\001\t\n\177'"trl"
    printf 'latin' >"$W/in/l"$'\xe9\xff'"at"
    printf 'utf8' >"$W/in/"$'\xc3\xa9\xe2\x82\xac'
    head -c 5000 /dev/zero >"$W/in/plain"
    uname -n >host
    run_format text
    run_format json
    # a bad FORMAT is refused before anything starts
    conf bad
    APP_TRACE_CONF=$CASE_DIR/bad.conf "$CTL" start >bad.out 2>&1 && echo "started" >>bad.out
    rm -rf "$W"
}

check() {
    local f
    [[ $(cat text.format) == text && $(cat json.format) == json ]]
    grep -qx 'app-trace-ctl: FORMAT=bad: text or json' bad.out
    for f in text json; do only_skip_warnings $f.start.err || { cat $f.start.err; return 1; }; done
    # every line of every JSON file passes python3 -m json.tool on its own (--json-lines)
    while read -r f; do
        python3 -m json.tool --json-lines "$f" >/dev/null || { echo "FAIL: not JSON lines: $f"; return 1; }
    done <json.files
    # the text form's header: the script's name and hash (staprun from the modinfo), then its lines
    sed -n '/^# clocksource:/,/^# apps:/p' "$(head -n 1 text.files)" >text.head
    diff -u - text.head <<EOF2
$(sed -n 1p text.head)
# script: app-trace.stp sha256: $(sha256sum "$TOP/examples/app-trace/app-trace.stp" | cut -d' ' -f1)
# clock_offset_us: 0 clock_offset_err_us: -1
$(sed -n 4p text.head)
EOF2
    LC_ALL=C grep -qx '# apps: d"q\\.* dd' text.head
    python3 - "$(cat host)" json.files "$(sha256sum "$TOP/examples/app-trace/app-trace.stp" | cut -d' ' -f1)" <<'PY'
import json, sys
host, files, sha = sys.argv[1], open(sys.argv[2]).read().split(), sys.argv[3]
calls = 0
for n, f in enumerate(files):
    recs = [json.loads(l) for l in open(f, encoding="utf-8")]
    h, end = recs[0], recs[-1]
    assert h["type"] == "header" and h["stap_output_header"] == 1 and h["host"] == host, h
    assert (h["module"], h["script"], h["format"], h["number"], h["file"]) == ("app_trace", "app-trace.stp", "json", n, f), h
    assert h["script_sha256"] == sha and h["clock_offset_err_us"] == -1 and "dd" in h["apps"].split(" "), h
    assert end["type"] == "end" and end["file"] == f and end["not_written"] == 0, end
    body = recs[1:-1]
    assert end["records"] == len([r for r in body if "type" not in r]) + (1 if n == len(files) - 1 else 0), (end, len(body))
    calls += len([r for r in body if "type" not in r])
tot = [r for r in body if r.get("type") == "totals"]
assert len(tot) == 1 and tot[0]["lines"] == calls, (tot, calls)
paths = {r.get("path") for f in files for r in map(json.loads, open(f, encoding="utf-8")) if r.get("op") == "open"}
# the hostile names decoded: bytes that are not UTF-8 as U+0080..U+00FF of their value
want = {"/tmp/apptj/in/q\"uote", "/tmp/apptj/in/back\\slash", "/tmp/apptj/in/c\x01\t\n\x7ftrl",
        "/tmp/apptj/in/l\xe9\xffat", "/tmp/apptj/in/\u00e9\u20ac", "/tmp/apptj/in/no such \"file\""}
assert want <= paths, want - paths
exes = {r["execname"] for f in files for r in map(json.loads, open(f, encoding="utf-8")) if "op" in r}
assert exes == {"dd", "d\"q\\\xff"}, exes
# seeks: every dd's lseek(0, 0, SEEK_CUR) of its input at 0, skip=3's to 1536; offset the position
# set, no count, no ret (it worked)
seeks = [r for f in files for r in map(json.loads, open(f, encoding="utf-8")) if r.get("op") == "seek"]
assert seeks and all(set(r) == {"time_us", "op", "execname", "pid", "fd", "offset"} and r["fd"] == 0 for r in seeks), seeks
assert sorted(r["offset"] for r in seeks if r["offset"]) == [1536], seeks
print("json: %d files, %d calls, every line valid JSON, hostile names decoded" % (len(files), calls))
PY
    # the same report from both forms (the workload makes the same calls each time)
    xargs "$TOP/build/bin/app-trace-report" --top 100 <text.files >text.report
    xargs "$TOP/build/bin/app-trace-report" --top 100 <json.files >json.report
    diff -u text.report json.report
    grep -qF '"/tmp/apptj/in/l\351\377at"' json.report
    grep -q '^  program d"q\\' json.report
    xargs "$TOP/build/bin/app-trace-report" --json <text.files >text.json
    xargs "$TOP/build/bin/app-trace-report" --json <json.files >json.json
    # the same --json summary but for the runs' times, and the file whose header gave a clock offset: each its own form's
    python3 - text.json json.json <<'PY'
import json, sys
def untimed(f, form):
    j = json.load(open(f))
    for h in j["hosts"]:
        del h["first_us"], h["last_us"]
        source = h.pop("clock_offset_from", None)
        assert source is None or "/traces-%s/" % form in source, (form, source)
    return j
assert untimed(sys.argv[1], "text") == untimed(sys.argv[2], "json")
PY
    head -3 json.report
}
