# full-disk-json: full-disk.t with a JSON header (a module whose procfs("header") holds a JSON object): on the full tmpfs stapio's "not written" record is a {"type":"lost"} object where writing resumed; every line valid JSON, every record whole, lost + written = produced in records and in lines, the {"type":"end"} trailer and stderr agree
# Used by tests/run (issue 33); the writing side is stapio/outfile.c (stream_put_records, stream_write_trailer), the header stapio/header.c.

timeout_s=240
M=full_disk_json
# a line: {"hit":"HHHH","n":"NNNNNN","x":"PAD"} of 100 bytes with its newline; one probe hit prints
# 10 of them, one record
PAD=$(printf 'x%.0s' $(seq 65))

build() {
    # 1000 lines in 100 hits, then (once /proc/systemtap/M/more is written) 10 hits more and exit();
    # the end probe says what was produced
    $STAP -p4 -m $M -e '
global n, hits, more
function rec(lim) {
    hits++
    for (i = 0; i < 10 && n < lim; i++) {
        n++
        printf("{\"hit\":\"%04d\",\"n\":\"%06d\",\"x\":\"'"$PAD"'\"}\n", hits, n)
    }
}
probe timer.ms(10) {
    if (n < 1000)
        rec(1000)
    else if (more && n < 1100)
        rec(1100)
    else if (n >= 1100)
        exit()
}
probe procfs("header").read { $value = "{\"note\":\"full-disk-json\"}\n" }
probe procfs("n").read { $value = sprintf("%d", n) }
probe procfs("more").write { more = 1 }
probe end { printf("{\"type\":\"produced\",\"lines\":%d,\"records\":%d}\n", n, hits) }' >/dev/null
    test -s $M.ko
}

guest() {
    source "$TOP/tests/lib/full-disk.sh"
    full_disk_run $M /tmp/full-disk-json
}

check() {
    [[ $(cat run.rc) == 0 ]] || { cat run.err; return 1; }
    # every line of both copies is a JSON object on its own: no torn record
    python3 -m json.tool --json-lines during.out >/dev/null
    python3 -m json.tool --json-lines t.out >/dev/null
    # no record lost in the transport
    not grep -q 'records.*lost$' run.err
    python3 - t.out during.out run.err <<'PY'
import json, re, sys
path = "/tmp/full-disk-json/t.out"
raw = open(sys.argv[1], "rb").read().split(b"\n")
assert raw[-1] == b"", "t.out does not end in a newline"
raw = raw[:-1]
recs = [json.loads(l) for l in raw]
head, end = recs[0], recs[-1]
# stapio's header object with the script's member, its trailer last: the file's bytes before it,
# the records written and those not
assert head["type"] == "header" and head["stap_output_header"] == 1, head
assert head["module"] == "full_disk_json" and head["file"] == path and head["note"] == "full-disk-json", head
assert end["type"] == "end" and end["file"] == path, end
size = sum(len(l) + 1 for l in raw)
assert end["bytes"] == size - len(raw[-1]) - 1, (end, size)
prod = [r for r in recs if r.get("type") == "produced"]
assert len(prod) == 1 and recs[-2] is prod[0], "the end probe's object is not last before the trailer"
prod = prod[0]
assert prod["lines"] == 1100 and prod["records"] == 110, prod
# the lines: 100 bytes each, in order; a hit's 10 lines all there or none (a record is whole)
lines, lost, hits = [], [], {}
for l, r in zip(raw, recs):
    if "n" in r:
        assert len(l) == 99, l
        lines.append(r)
        hits.setdefault(int(r["hit"]), []).append(int(r["n"]))
    elif r.get("type") == "lost":
        assert r["not_written"] == "No space left on device", r
        assert set(r) == {"type", "records", "bytes", "not_written"}, r
        lost.append((len(lines), r))
    else:
        assert r.get("type") in ("header", "produced", "end"), r
for h, ns in hits.items():
    assert ns == list(range(10 * h - 9, 10 * h + 1)), (h, ns)
ns = [int(r["n"]) for r in lines]
assert ns == sorted(ns), "lines out of order"
assert ns[-1] == 1100, ns[-1]
# every gap in the lines is where a lost object stands, which counts the hits (records) and bytes
# missing there; no gap without one
at = {i: r for i, r in lost}
for i in range(len(lines) + 1):
    before = int(lines[i - 1]["hit"]) if i > 0 else 0
    after = int(lines[i]["hit"]) if i < len(lines) else prod["records"] + 1
    missing = after - before - 1 if i == 0 or i == len(lines) or before != after else 0
    if i in at:
        assert at[i]["records"] == missing and at[i]["bytes"] == 1000 * missing, (i, at[i], before, after)
    else:
        assert missing == 0, ("a gap without a lost object", before, after)
assert lost, "no lost object"
nw = sum(r["records"] for _, r in lost)
nwb = sum(r["bytes"] for _, r in lost)
# written + not written = produced: in records (the hits and the end probe's) and in lines
assert end["records"] == len(hits) + 1, (end, len(hits))
assert end["not_written"] == nw, (end, nw)
assert end["records"] + end["not_written"] == prod["records"] + 1, (end, prod)
assert len(lines) + nwb // 100 == prod["lines"], (len(lines), nwb)
# stderr says the same total
err = open(sys.argv[3]).read()
m = re.findall(r"^stapio: WARNING: (\d+) records \((\d+) bytes\) not written: the file system was full$", err, re.M)
assert m == [(str(nw), str(nwb))], (m, nw, nwb)
# the copy taken while the disk was full: the header, then whole records only, no trailer yet
during = [json.loads(l) for l in open(sys.argv[2], "rb").read().split(b"\n")[:-1]]
assert during[0]["type"] == "header" and all("n" in r for r in during[1:]), during[-1]
print("records written %d + not written %d = produced %d + the end's; lines written %d + not written %d = %d; "
      "%d lost object(s)" % (end["records"], nw, prod["records"], len(lines), nwb // 100, prod["lines"], len(lost)))
PY
}
