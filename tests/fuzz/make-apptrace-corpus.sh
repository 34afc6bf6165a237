#!/usr/bin/env bash
# make-apptrace-corpus.sh - writes apptrace_fuzz's seeds: app-trace.stp output (text and JSON lines) in its input format (a mode byte, then the trace text).
# Used by tests/fuzz/run.sh (make fuzz) and tests/unit/fuzz-smoke-apptrace.t: make-apptrace-corpus.sh [OUTDIR] (default build/fuzz/apptrace/corpus).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$TOP/build/fuzz/apptrace/corpus}
rm -rf "$OUT"
mkdir -p "$OUT"

# seed NAME MODE: the mode byte (octal escape) then stdin
seed() { { printf "\\$1"; cat; } >"$OUT/$2"; }

seed 003 small <<'T'
1000000 op: open execname: fio pid: 10 fd: 3 path: "/data/f"
1000100 op: write execname: fio pid: 10 fd: 3 count: 65536 offset: 0 ret: 65536
1000200 op: write execname: fio pid: 10 fd: 3 count: 65536 offset: 65536 ret: 65536
1000300 op: seek execname: fio pid: 10 fd: 3 offset: 0 ret: 0
1000400 op: read execname: fio pid: 10 fd: 3 count: 4096 offset: 0 ret: 4096
2500000 op: read execname: fio pid: 10 fd: 3 offset: 8192 ret: -14
2600000 op: fsync execname: fio pid: 10 fd: 3
2700000 op: close execname: fio pid: 10 fd: 3
# totals: op: read calls: 2
T
seed 203 twohosts <<'T'
1 op: socket execname: my prog pid: 7 fd: 4
2 op: connect execname: my prog pid: 7 fd: 4 ret: -111
3 op: accept execname: srv pid: 8 fd: -1 ret: -11
4 op: mmap execname: srv pid: 8 fd: 5 count: 4096 offset: 0
5 op: open execname: srv pid: 8 fd: -1 ret: -2 path: "/no\"such"
# lost: 12 records (3400 bytes)
T
seed 001 bad <<'T'
x op: open execname: a pid: 1 fd: 3
1 op: frob execname: a pid: 1 fd: 3
1 op: read execname: a pid: 1 fd: 3 count: 99999999999999999999
1 op: read execname: a pid: 1 fd: 3 ret: 5 count: 5
1 op: read execname: a pid: 1
T
# the JSON form (format=json): stapio's header object, calls, the end's records, hostile strings
seed 003 json <<'T'
{"type":"header","stap_output_header":1,"host":"h","file":"/t/h-app-trace.out.0","number":0,"script":"app-trace.stp","format":"json","apps":"fio","clock_offset_us":-20,"clock_offset_err_us":3}
{"time_us":1000000,"op":"open","execname":"fio","pid":10,"fd":3,"path":"/d/q\"b\\s\u0001\u00ffé\ud83d\ude00"}
{"time_us":1000100,"op":"write","execname":"fio","pid":10,"fd":3,"count":65536,"offset":0,"ret":65536}
{"time_us":1000300,"op":"seek","execname":"fio","pid":10,"fd":3,"offset":0,"ret":0}
{"time_us":1000400,"op":"read","execname":"f\"i\\o","pid":10,"fd":3,"count":4096,"ret":-14}
{"time_us":1000500,"op":"close","execname":"fio","pid":10,"fd":3,"ret":0}
{"type":"lost","records":4,"bytes":400,"not_written":"No space left on device"}
{"type":"totals","calls":{"open":1,"read":1},"bytes_read":0,"bytes_written":65536,"lines":6}
{"type":"end","file":"/t/h-app-trace.out.0","records":8,"bytes":900,"not_written":4}
T
# a trace of the guest test, when one is there
if [[ -f $TOP/build/tests/guest/app-trace/trace.out ]]; then
    head -c 16000 "$TOP/build/tests/guest/app-trace/trace.out" | seed 002 guest
fi
for f in "$TOP"/tests/fuzz/regressions/apptrace/*; do
    [[ -e $f ]] && cp "$f" "$OUT/"
done
exit 0
