# app-trace: fio's iozone phases traced as the service runs app-trace.stp (app-trace-ctl, -S rotation): per-phase bytes = fio's and app-trace-report's, every open closed, dd's lseeks as op seek with the position set (-ESPIPE on a pipe), set changed mid-run, written + lost = produced, KEEP files kept
# Used by tests/run (guest/app-trace); the service files are examples/app-trace/*, the report tool app-trace-report/.

timeout_s=600
btf_rerun=1
W=/tmp/apptrace
DATA=$W/data
# fio's phases (NAME:RW), one job each in one fio run (stonewall: one after the other), on one
# file of 4 MiB in records of 1 KiB
PHASES="write:write rewrite:write read:read reread:read randread:randread randwrite:randwrite"
JOBS=$(for p in $PHASES; do printf '%s ' "${p%%:*}"; done)
JOBS=${JOBS% }
# dd blocks of 512 bytes in the rotation run: ~3.4 MB of trace, 1 MB files, 2 kept
NROT=20000

build() {
    local p
    need_kernel_dwarf
    command -v fio >/dev/null || { echo "no fio (make deps installs it)"; exit 77; }
    # installed as `app-trace-ctl install` would, under a root of our own; a tight loop of traced
    # calls under TCG keeps a CPU in the probes more than half of the time, which the default
    # overload check ends the run for (STAP_OPTS, README.md "Heavy I/O")
    DESTDIR=$CASE_DIR/root STAP=$TOP/build/bin/stap STAP_OPTS=-DSTP_NO_OVERLOAD "$TOP/examples/app-trace/app-trace-ctl" install "$KVER" >install.out
    [[ -s root/lib/modules/$KVER/systemtap/app_trace.ko ]]
    [[ -x root/usr/local/sbin/app-trace-ctl ]]
    grep -qx 'User=root' root/etc/systemd/system/app-trace.service
    cmp root/etc/app-trace.conf "$TOP/examples/app-trace/app-trace.conf"
    # psync: pread/pwrite, one call per record; a fixed seed; the file exists already (dd makes
    # it), so fio's main process does not lay it out and every data call is a job's
    {
        printf '[global]\nfilename=%s\nsize=4m\nbs=1k\nioengine=psync\ndirect=0\n' "$DATA"
        printf 'fallocate=none\nrandseed=1234\nend_fsync=1\nstonewall\n'
        for p in $PHASES; do printf '[%s]\nrw=%s\n' "${p%%:*}" "${p#*:}"; done
    } >phases.fio
}

# now_us: the wall clock in microseconds (gettimeofday_us() in the trace)
now_us() { date +%s%6N; }

# conf NAME APPS KEEP BUFFER_MB: the configuration of one run (TRACEDIR is the same for both)
conf() {
    cat >"$1.conf" <<EOF
APPS="$2"
TRACEDIR=$CASE_DIR/traces
SIZE_MB=1
KEEP=$3
BUFFER_MB=$4
MODULE=$CASE_DIR/root/lib/modules/$KVER/systemtap/app_trace.ko
EOF
}

CTL=$CASE_DIR/root/usr/local/sbin/app-trace-ctl

# start NAME: `app-trace-ctl start` with NAME.conf in the background, as the unit's ExecStart
# runs it, until it says it traces; its pid in START
start() {
    local i
    export APP_TRACE_CONF=$CASE_DIR/$1.conf
    "$CTL" start >"$1.start.out" 2>"$1.start.err" & START=$!
    for i in $(seq 600); do
        file_has "$1.start.out" '^app-trace-ctl: tracing' && break
        kill -0 $START
        nap 0.2
    done
    "$CTL" apps >"$1.apps1"
}

# stop NAME HOW: "ctl" as the unit's ExecStop, "term" as systemd does without it (SIGTERM to the
# start shell); then the status and the run's files
stop() {
    local rc=0
    if [[ $2 == ctl ]]; then
        "$CTL" stop >"$1.stop.out" 2>&1 || echo "stop failed $?" >>"$1.stop.out"
    else
        kill -TERM $START
        echo "app-trace-ctl: stopped; the totals are at the end of (SIGTERM)" >"$1.stop.out"
    fi
    wait $START || rc=$?
    echo $rc >"$1.rc"
    "$CTL" files >"$1.files"
    not loaded app_trace
}

# run_bg CMD...: CMD in the background, so that its pid is known (in BG), until it ends
run_bg() { "$@" & BG=$!; wait $BG; }

guest() {
    local l c i
    uname -n >host
    rm -rf traces $W
    mkdir -p $W
    # the fio run: all files kept, buffers large enough that nothing is lost
    conf fio fio 0 8
    start fio
    # dd is not in the set: it makes fio's file and leaves no line
    run_bg dd if=/dev/zero of=$DATA bs=64k count=64 status=none
    echo $BG >dd1.pid
    run_bg fio --output-format=json phases.fio >fio.json 2>fio.err
    echo $BG >fio.pid
    # the set changed while the run goes on: dd and busybox are traced from now on
    "$CTL" set-apps "fio, dd busybox"
    "$CTL" apps >fio.apps2
    now_us >changed.us
    run_bg dd if=/dev/zero of=$W/dd2 bs=64k count=4 status=none
    echo $BG >dd2.pid
    # seeks: dd skips 3 blocks of 4 KiB of its input and seeks 5 of its output (regular files: two
    # lseeks from position 0, after the lseek of its input that every dd makes); then a dd whose
    # input is a pipe, where that lseek fails (ESPIPE)
    run_bg dd if=$W/dd2 of=$W/dd4 bs=4k skip=3 seek=5 count=2 status=none
    echo $BG >dd4.pid
    echo pipe | dd of=/dev/null status=none & BG=$!
    wait $BG
    echo $BG >ddp.pid
    # sockets: busybox nc listens on loopback, another sends "hello\n" (tried until the listener
    # is up: refused connects are traced too)
    ip link set lo up
    echo hello >$W/hello
    busybox nc -l -p 7777 >nc.got & l=$!
    for i in $(seq 100); do
        busybox nc 127.0.0.1 7777 <$W/hello & c=$!
        wait $c && break
        nap 0.3
    done
    # the listener ends with its connection (killed if the client never got through)
    for i in $(seq 100); do kill -0 $l 2>/dev/null || break; nap 0.3; done
    kill $l 2>/dev/null || true
    wait $l || true
    echo "$l $c" >nc.pids
    # the set emptied through the procfs file itself: nothing is traced any more
    echo >/proc/systemtap/app_trace/apps
    "$CTL" apps >fio.apps3
    now_us >cleared.us
    run_bg dd if=/dev/zero of=$W/dd3 bs=4k count=2 status=none
    echo $BG >dd3.pid
    stop fio ctl

    # the rotation run: 2 files kept of ~4; it moves the fio run's files to traces/previous (staprun's
    # default buffers lost half its records on 6.12-rt under TCG: large ones, as for fio)
    conf rot dd 2 8
    start rot
    dd if=/dev/zero of=$W/rot bs=512 count=$NROT status=none
    stop rot term
    ls traces traces/previous >ls.out
    rm -rf $W
}

check() {
    local r
    # records lost by the rotation run (its 20,000 quick writes) are reported, and the count must be the
    # trace's own "# lost:" (checked below)
    sed -En 's/^WARNING: ([0-9]+) records \([0-9]+ bytes\) lost$/\1/p' rot.start.err >rot.warned
    grep -Evx 'WARNING: [0-9]+ records \([0-9]+ bytes\) lost' rot.start.err >rot.start.rest || true
    for r in fio rot; do
        [[ $(cat $r.rc) == 0 ]] || { cat $r.start.err $r.stop.out; return 1; }
        only_skip_warnings $([[ $r == rot ]] && echo rot.start.rest || echo $r.start.err) || { cat $r.start.err; return 1; }
        grep -q '^app-trace-ctl: stopped; the totals are at the end of ' $r.stop.out
    done
    [[ $(cat fio.apps1) == fio ]]
    [[ $(cat fio.apps2) == $'busybox\ndd\nfio' ]]
    [[ ! -s fio.apps3 ]]
    [[ $(cat rot.apps1) == dd ]]
    [[ $(cat nc.got) == hello ]]
    # the rotation run moved the fio run's files aside: they are checked where they are now
    sed "s|^$CASE_DIR/traces/|$CASE_DIR/traces/previous/|" fio.files >fio.now
    cp rot.files rot.now
    # the fio run's trace in one file (tests/fuzz/make-apptrace-corpus.sh seeds from it)
    xargs cat <fio.now >trace.out
    xargs "$TOP/build/bin/app-trace-report" --top 3 <fio.now >report.out 2>report.err || { cat report.err; return 1; }
    # --json of the same files: valid JSON, the same totals per host and program as the text
    xargs "$TOP/build/bin/app-trace-report" --json <fio.now >report.json
    python3 -m json.tool report.json >/dev/null
    xargs "$TOP/build/bin/app-trace-report" --top 0 <fio.now >report.all
    python3 - report.json report.all <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert {h["host"]: str(h["calls"]) for h in j["hosts"]} == dict(re.findall(r"^host (\S+): (\d+) calls$", text, re.M))
progs = re.findall(r"^  program (.*)\n    calls: (.*)\n    bytes read (\d+), written (\d+)$", text, re.M)
jp = sorted((p["execname"], " ".join(f"{k} {v}" for k, v in p["calls"].items()), str(p["bytes_read"]),
             str(p["bytes_written"])) for h in j["hosts"] for p in h["programs"])
assert jp == sorted(progs), (jp, progs)
print("report --json: %d hosts, %d programs, totals equal to the text report's" % (len(j["hosts"]), len(jp)))
PY
    perl - "$(cat host)" fio.now rot.now fio.json "$(cat fio.pid)" "$(cat dd1.pid)" "$(cat dd2.pid)" \
        "$(cat dd3.pid)" "$(cat dd4.pid)" "$(cat ddp.pid)" "$(cat changed.us)" "$(cat cleared.us)" $(cat nc.pids) report.out $NROT "$DATA" "$JOBS" "$(cat rot.warned)" \
        "$(sha256sum "$TOP/examples/app-trace/app-trace.stp" | cut -d' ' -f1)" <<'PERL'
use strict; use warnings; use JSON::PP;
my ($host, $fio_files, $rot_files, $fio_json, $fio_pid, $dd1, $dd2, $dd3, $dd4, $ddp, $changed, $cleared, $ncl, $ncc,
    $report, $nrot, $data, $jobs, $rot_warned, $sha) = @ARGV;
my $MB = 1024 * 1024;
my $SIZE = 4 * $MB;
my $BS = 1024;
$data = qq("$data");
my $fail = 0;
sub bad { print "FAIL: @_\n"; $fail = 1 }
sub slurp { open(my $h, '<', $_[0]) or die "$_[0]: $!"; local $/; return <$h> }

# run_files(name, list, keep): the run's files as -S 1,KEEP leaves them (the newest KEEP of more,
# or with KEEP 0 all of at least two, numbered in a row; each at most 1 MB, all but the last full
# to less than a line; the "# " lines at the end of the last only). Returns the trace lines, the
# end's totals and its lost records (0 without a "# lost:" line).
sub run_files {
    my ($name, $list, $keep) = @_;
    my @files = split /\n/, slurp($list);
    my @nums = map { /\.(\d+)$/ ? $1 : die "$name: bad file name $_\n" } @files;
    die "$name: no files\n" unless @files;
    my $last = $nums[-1];
    die "$name: no rotation (last file number $last)\n" if $last < ($keep ? $keep : 1);
    my $want = $keep ? $keep : $last + 1;
    die "$name: " . scalar(@files) . " files, expected $want (@nums)\n" if @files != $want;
    for my $i (0 .. $#nums) {
        die "$name: file numbers @nums are not the newest $want in a row\n" if $nums[$i] != $last - $#nums + $i;
    }
    my (@lines, %tot, $lost);
    for my $i (0 .. $#files) {
        my $f = $files[$i];
        my $size = -s $f;
        die "$name: $f has $size bytes, more than 1 MB\n" if $size > $MB;
        # a file is closed only when the next record would not fit: full but for less than a line
        die "$name: $f has only $size bytes\n" if $i < $#files && $size < $MB - 512;
        # self-describing: stapio's header and the script's, and stapio's end line: the file's
        # bytes before it, its records (a call each; the end probe's lines are one)
        my @fl = split /\n/, slurp($f);
        # (where the file was written: the fio run's were moved aside since)
        my ($base) = $f =~ m{([^/]+)$};
        my @head;
        push @head, shift @fl while @fl && $fl[0] =~ /^# (stap-output-header|host|kernel|boot_id|module|file|run_start|file_start|clocksource|script|apps|clock_offset_us):/;
        my $hd = join("\n", @head) . "\n";
        die "$name: $f: no header\n$hd" unless $hd =~ /\A# stap-output-header: 1\n# host: \Q$host\E\n# kernel: \S+\n# boot_id: [-0-9a-f]{36}\n# module: app_trace\n# file: \S*\/\Q$base\E number: $nums[$i]\n# run_start: wall_us: \d+ monotonic_ns: \d+\n# file_start: wall_us: \d+ monotonic_ns: \d+\n# clocksource: \S+\n# script: app-trace.stp sha256: \Q$sha\E\n# clock_offset_us: 0 clock_offset_err_us: -1\n# apps:[ \w]*\n\z/;
        my $end = pop @fl;
        $end =~ /^# end: file: \S*\/\Q$base\E records: (\d+) bytes: (\d+) not_written: 0$/ or die "$name: $f ends with $end\n";
        die "$name: $f: end line says $2 bytes before it, the file has " . ($size - length($end) - 1) . "\n"
            if $2 != $size - length($end) - 1;
        my $calls = grep { !/^#/ } @fl;
        die "$name: $f: end line says $1 records, the file has $calls calls\n" if $1 != $calls + ($i == $#files ? 1 : 0);
        for my $l (@fl) {
            if ($l =~ /^# /) {
                die "$name: totals in $f, not the last file\n" if $i != $#files;
                if ($l =~ /^# totals: op: (\w+) calls: (\d+)$/) { $tot{$1} = $2 }
                elsif ($l =~ /^# totals: bytes_read: (\d+) bytes_written: (\d+) lines: (\d+)$/) {
                    @tot{qw(bytes_read bytes_written lines)} = ($1, $2, $3);
                } elsif ($l =~ /^# lost: (\d+) records/) { $lost = $1 }
                else { die "$name: unexpected line $l\n" }
                next;
            }
            die "$name: $f: a line after the totals\n" if %tot;
            push @lines, $l;
        }
    }
    die "$name: no totals\n" unless defined $tot{lines};
    $lost //= 0;
    printf "%s: files %d, last .%d, lines produced %d, written %d, lost %d\n", $name, scalar(@files), $last,
           $tot{lines}, scalar(@lines), $lost;
    return (\@lines, \%tot, $lost);
}

# ---- the fio run ----
my ($lines, $tot, $lost) = run_files('fio', $fio_files, 0);
my @jobs = @{decode_json(slurp($fio_json))->{jobs}};
my @names = map { $_->{jobname} } @jobs;
die "fio's jobs: @names\n" if "@names" ne $jobs;
my (%ops, %bytes, %first, %open, %lines_of, @dd2, @dd4, @ddp, @seeks, @ncl, @ncc, %fio_ops, %fio_bytes);
for my $l (@$lines) {
    $l =~ /^(\d+) op: (\S+) execname: (.+) pid: (\d+) fd: (-?\d+)((?: count: \d+)?)((?: offset: \d+)?)((?: ret: -?\d+)?)((?: path: ".*")?)$/
        or do { bad("bad line: $l"); next };
    my ($ts, $op, $exe, $pid, $fd) = ($1, $2, $3, $4, $5);
    my ($count, $off, $ret, $path) = map { s/^ \w+: //r } ($6, $7, $8, $9);
    $ops{$op}++;
    $bytes{$op} += $ret if $op =~ /^(read|write)$/ && $ret > 0;
    # only the programs in the set at the time leave lines
    bad("a line of $exe, not in the set: $l") unless $exe eq 'fio' || ($exe =~ /^(dd|busybox)$/ && $ts >= $changed);
    bad("a line after the set was emptied: $l") if $ts >= $cleared;
    bad("a line of dd before it was added or after it was removed: $l") if $pid == $dd1 || $pid == $dd3;
    # the seeks of the dds, as they are printed (the pid and the time apart)
    push @seeks, [$ts, "$pid " . ($l =~ s/^\d+ //r =~ s/ pid: \d+ / /r)] if $op eq 'seek' && grep { $pid == $_ } $dd2, $dd4, $ddp;
    if ($pid == $dd2) { push @dd2, "$op $fd $count $off $ret $path"; next }
    if ($pid == $dd4) { push @dd4, [$ts, "$op $fd $count $off $ret $path"]; next }
    if ($pid == $ddp) { push @ddp, "$op $fd $count $off $ret $path"; next }
    if ($pid == $ncl) { push @ncl, [$op, $fd, $count, $ret, $off]; next }
    if ($pid == $ncc) { push @ncc, [$op, $fd, $count, $ret, $off]; next }
    next if $exe ne 'fio';
    $fio_ops{$op}++;
    $fio_bytes{$op} += $ret if $op =~ /^(read|write)$/ && $ret > 0;
    # every open has its close, whatever the file
    my $k = "$pid/$fd";
    if ($op eq 'open' && $fd >= 0) {
        bad("$k opened twice: $l") if exists $open{$k};
        $open{$k} = $path;
    } elsif ($op eq 'close' && $ret eq '') {
        delete $open{$k};
    }
    if ($pid == $fio_pid) {
        bad("fio's main process opened the data file: $l") if $op eq 'open' && $path eq $data;
        next;
    }
    $first{$pid} //= $ts;
    push @{$lines_of{$pid}}, [$op, $fd, $count, $off, $ret, $path];
}
bad("fio: opened, never closed: " . join(', ', map { "$_ $open{$_}" } sort keys %open)) if %open;

# the jobs' processes in the order they began are fio's jobs in the order of the job file
my @pids = sort { $first{$a} <=> $first{$b} } keys %first;
die "fio: " . scalar(@pids) . " job processes, expected " . scalar(@jobs) . "\n" if @pids != @jobs;
my ($data_calls, %sum) = (0);
for my $i (0 .. $#jobs) {
    my ($name, $pid) = ($names[$i], $pids[$i]);
    my ($dfd, $opens, $closes, $fsyncs, %b, @offs) = (undef, 0, 0, 0);
    for (@{$lines_of{$pid}}) {
        my ($op, $fd, $count, $off, $ret, $path) = @$_;
        if ($op eq 'open') {
            if ($path eq $data) { bad("$name: open failed") if $fd < 0; $dfd = $fd; $opens++; $data_calls++ }
            next;
        }
        next unless defined $dfd && $fd == $dfd;
        $data_calls++;
        if ($op eq 'read' || $op eq 'write') {
            bad("$name: $op of count $count, ret $ret at $off, expected $BS") if $count ne $BS || $ret ne $BS || $off eq '';
            $b{$op} += $ret;
            push @offs, $off;
        } elsif ($op eq 'fsync') { $fsyncs++ }
        elsif ($op eq 'close') { $closes++; undef $dfd }
        else { bad("$name: $op on the data file") }
    }
    my $dir = $name =~ /write/ ? 'write' : 'read';
    for my $d ('read', 'write') {
        my $want = $jobs[$i]{$d}{io_bytes};
        my $got = $b{$d} // 0;
        printf "%-9s pid %-6d %-5s fio %8d trace %8d\n", $name, $pid, $d, $want, $got;
        bad("$name $d: fio $want, trace $got") if $want != $got;
        bad("$name $d: fio says $want, the job moves $SIZE") if $want != ($d eq $dir ? $SIZE : 0);
        $sum{$d} += $want;
    }
    bad("$name: $opens opens and $closes closes of the data file") if $opens != 1 || $closes != 1;
    bad("$name: $fsyncs fsyncs") if $fsyncs != ($dir eq 'write' ? 1 : 0);
    # sequential phases: record after record from 0; random ones: every record once
    my @want = map { $_ * $BS } 0 .. $SIZE / $BS - 1;
    my @got = $name =~ /^rand/ ? sort { $a <=> $b } @offs : @offs;
    bad("$name: the offsets are not " . ($name =~ /^rand/ ? 'every record once' : 'in sequence'))
        if "@got" ne "@want";
}
# the end's totals count every line produced: written + lost
for my $op (sort keys %ops) { bad("totals: $op $ops{$op} lines, end says " . ($tot->{$op} // 'nothing')) if $ops{$op} != ($tot->{$op} // -1) }
for my $op (sort grep { !/^(bytes_|lines)/ } keys %$tot) { bad("totals: $op, no line") unless $ops{$op} }
bad("bytes read: lines $bytes{read}, end says $tot->{bytes_read}") if $bytes{read} != $tot->{bytes_read};
bad("bytes written: lines $bytes{write}, end says $tot->{bytes_written}") if $bytes{write} != $tot->{bytes_written};
bad("fio: " . scalar(@$lines) . " written + $lost lost != $tot->{lines} produced") if @$lines + $lost != $tot->{lines};

# dd once added: opens its output (then dup2s it to 1, not traced), 4 reads of 64 KiB of
# /dev/zero (no position: a character device), 4 writes at the file's position, close of 1
bad("dd: no open of its output") unless grep { m{^open \d+ {4}"/tmp/apptrace/dd2"$} } @dd2;
my @want = ((map { "read 0 65536  65536 " } 0..3), (map { join(' ', 'write', 1, 65536, $_ * 65536, 65536, '') } 0..3),
            'close 1    ');
for my $w (@want) {
    my $n = grep { $_ eq $w } @dd2;
    my $need = grep { $_ eq $w } @want;
    bad("dd: '$w' $n times, expected $need") if $n != $need;
}
# seeks (lseek: op seek, offset the position it set, ret only when it failed): dd's lseek(0, 0,
# SEEK_CUR) of its input, at 0 (/dev/zero: a character device; a regular file); with skip=3 and
# seek=5 of 4 KiB blocks, lseek(0, 12288, SEEK_CUR) and lseek(1, 20480, SEEK_CUR), each line as
# printed; on a pipe the lseek fails: -ESPIPE, no offset (in time order: a CPU's lines may come
# before another's earlier ones)
@seeks = map { $_->[1] } sort { $a->[0] <=> $b->[0] } @seeks;
@dd4 = map { $_->[1] } sort { $a->[0] <=> $b->[0] } @dd4;
my @want_seeks = ("$dd2 op: seek execname: dd fd: 0 offset: 0", "$dd4 op: seek execname: dd fd: 0 offset: 0",
                  "$dd4 op: seek execname: dd fd: 0 offset: 12288", "$dd4 op: seek execname: dd fd: 1 offset: 20480",
                  "$ddp op: seek execname: dd fd: 0 ret: -29");
bad("seeks:\n  " . join("\n  ", @seeks) . "\nexpected\n  " . join("\n  ", @want_seeks)) if "@seeks" ne "@want_seeks";
print "seeks: ", scalar(@seeks), " lines as expected\n" if "@seeks" eq "@want_seeks";
# after the seeks dd reads and writes at the positions they set, then closes both
bad("dd skip/seek: no open of its input") unless grep { m{^open \d+ {4}"/tmp/apptrace/dd2"$} } @dd4;
bad("dd skip/seek: no open of its output") unless grep { m{^open \d+ {4}"/tmp/apptrace/dd4"$} } @dd4;
my @dd4rw = grep { /^(read|write|close) [01] / } @dd4;
my @want4 = ('read 0 4096 12288 4096 ', 'write 1 4096 20480 4096 ', 'read 0 4096 16384 4096 ',
             'write 1 4096 24576 4096 ', 'close 0    ', 'close 1    ');
bad("dd skip/seek: '@dd4rw', expected '@want4'") if "@dd4rw" ne "@want4";
# the pipe has no position: no offset on its read
bad("dd on a pipe: no read of 5 bytes without an offset") unless grep { $_ eq 'read 0 512  5 ' } @ddp;
# nc: the listener's socket, an accepted descriptor, a read of the 6 bytes on it; the client's
# socket, a connect that worked on it, a write of the 6 bytes
my ($ls) = grep { $_->[0] eq 'socket' && $_->[1] >= 0 } @ncl;
my ($acc) = grep { $_->[0] eq 'accept' && $_->[1] >= 0 } @ncl;
bad("nc listener: no socket") unless $ls;
bad("nc listener: no accept") unless $acc;
bad("nc listener: no read of 6 bytes on the accepted fd")
    unless $acc && grep { $_->[0] eq 'read' && $_->[1] == $acc->[1] && $_->[3] eq '6' } @ncl;
my ($cs) = grep { $_->[0] eq 'socket' && $_->[1] >= 0 } @ncc;
bad("nc client: no socket") unless $cs;
bad("nc client: no connect") unless $cs && grep { $_->[0] eq 'connect' && $_->[1] == $cs->[1] && $_->[3] eq '' } @ncc;
bad("nc client: no write of 6 bytes")
    unless $cs && grep { $_->[0] eq 'write' && $_->[1] == $cs->[1] && $_->[2] eq '6' && $_->[3] eq '6' } @ncc;
# a socket has no file position: no offset on its reads and writes
bad("nc: an offset on a socket")
    if ($acc && grep { $_->[0] =~ /^(read|write)$/ && $_->[1] == $acc->[1] && $_->[4] ne '' } @ncl)
    || ($cs && grep { $_->[0] =~ /^(read|write)$/ && $_->[1] == $cs->[1] && $_->[4] ne '' } @ncc);

# app-trace-report over the rotated files: the host's calls are the lines written, fio's calls
# and bytes are the trace's, the data file's bytes are fio's own totals
my $rep = slurp($report);
$rep =~ /^host \Q$host\E: (\d+) calls$/m or die "report: no host $host\n";
bad("report: $1 calls, the trace has " . scalar(@$lines)) if $1 != @$lines;
bad("report: lost records") if !$lost && $rep =~ /WARNING/;
bad("report: no warning of $lost lost records") if $lost && $rep !~ /WARNING: the trace lost $lost records/;
$rep =~ /^  program fio\n    calls:(.*)\n    bytes read (\d+), written (\d+)$/m or die "report: no program fio\n";
my ($calls, $rr, $rw) = ($1, $2, $3);
my %rc = $calls =~ /(\w+) (\d+)/g;
bad("report: fio's calls $calls, the trace's " . join(' ', map { "$_ $fio_ops{$_}" } sort keys %fio_ops))
    if join(' ', map { "$_ $rc{$_}" } sort keys %rc) ne join(' ', map { "$_ $fio_ops{$_}" } sort keys %fio_ops);
bad("report: fio read $rr, written $rw; the trace $fio_bytes{read}, $fio_bytes{write}")
    if $rr != $fio_bytes{read} || $rw != $fio_bytes{write};
my ($fr, $fw, $fc) = $rep =~ /^ +(\d+) +(\d+) +(\d+)  \Q$data\E$/m or die "report: no line of $data\n";
printf "report: %s read %d written %d calls %d; fio: read %d written %d\n", $data, $fr, $fw, $fc, $sum{read}, $sum{write};
bad("report: $data read $fr, written $fw; fio's jobs $sum{read}, $sum{write}") if $fr != $sum{read} || $fw != $sum{write};
bad("report: $data calls $fc, the trace's $data_calls") if $fc != $data_calls;

# ---- the rotation run: dd's lines only, its calls in the totals, the deleted files' lines missing ----
my ($rl, $rt, $rlost) = run_files('rot', $rot_files, 2);
for (@$rl) { bad("rot: not dd's: $_") unless /^\d+ op: \w+ execname: dd pid: \d+ fd: -?\d+( count: \d+)?( offset: \d+)?( ret: -?\d+)?( path: ".*")?$/ }
bad("rot: dd's writes " . ($rt->{write} // 0) . ", expected $nrot") if ($rt->{write} // 0) != $nrot;
bad("rot: bytes written $rt->{bytes_written}, expected " . 512 * $nrot) if $rt->{bytes_written} != 512 * $nrot;
bad("rot: reads " . ($rt->{read} // 0) . " < $nrot") if ($rt->{read} // 0) < $nrot;
bad("rot: " . scalar(@$rl) . " written + $rlost lost, not less than $rt->{lines} produced (files deleted)")
    if @$rl + $rlost >= $rt->{lines};
bad("rot: stap warned of " . ($rot_warned || 0) . " records lost, the trace says $rlost") if ($rot_warned || 0) != $rlost;
exit $fail;
PERL
}
