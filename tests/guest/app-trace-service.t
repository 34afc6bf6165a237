# app-trace-service: app-trace-ctl install/start/stop/set-apps as app-trace.service runs them: -S 1 MB rotation keeps 3 files, end totals in the last, written + lost = produced
# Used by tests/run (guest/app-trace-service); the service files are examples/app-trace/app-trace-ctl, .conf, .service.

timeout_s=900
# dd blocks of 512 bytes: run 1 (two lines each, ~6 MB of trace: 1 MB files rotate past 3), run 2
N1=32000
N2=15000

build() {
    need_kernel_dwarf
    # installed as `app-trace-ctl install` would, under a root of our own; dd's tight loop of
    # traced calls under TCG keeps a CPU in the probes more than half of the time, which the
    # default overload check ends the run for (STAP_OPTS, README.md "Heavy I/O")
    DESTDIR=$CASE_DIR/root STAP=$TOP/build/bin/stap STAP_OPTS=-DSTP_NO_OVERLOAD "$TOP/examples/app-trace/app-trace-ctl" install "$KVER" >install.out
    [[ -s root/lib/modules/$KVER/systemtap/app_trace.ko ]]
    [[ -x root/usr/local/sbin/app-trace-ctl ]]
    grep -qx 'User=root' root/etc/systemd/system/app-trace.service
    cmp root/etc/app-trace.conf "$TOP/examples/app-trace/app-trace.conf"
}

# conf NAME APPS KEEP BUFFER_MB: a configuration for one run (TRACEDIR is the same for both runs)
conf() {
    cat >"$1" <<EOF
APPS="$2"
TRACEDIR=$CASE_DIR/traces
SIZE_MB=1
KEEP=$3
BUFFER_MB=$4
MODULE=$CASE_DIR/root/lib/modules/$KVER/systemtap/app_trace.ko
EOF
}

# run NAME N SET_APPS STOP: start as the unit's ExecStart does (in the background), change the
# programs unless SET_APPS is empty, dd N blocks, stop: "ctl" as ExecStop does, "term" as systemd
# does without it (SIGTERM to the unit's main process, the start shell); statuses, program sets
# into NAME.*
run() {
    local name=$1 n=$2 set=$3 stop=$4 ctl=$CASE_DIR/root/usr/local/sbin/app-trace-ctl pid i rc=0
    export APP_TRACE_CONF=$CASE_DIR/$name.conf
    "$ctl" start >"$name.start.out" 2>"$name.start.err" & pid=$!
    for i in $(seq 600); do
        grep -q '^app-trace-ctl: tracing' "$name.start.out" && break
        kill -0 $pid
        sleep 0.2
    done
    "$ctl" apps >"$name.apps1"
    if [[ -n $set ]]; then "$ctl" set-apps "$set"; fi
    "$ctl" apps >"$name.apps2"
    dd if=/dev/zero of=/tmp/app-trace-service.dd bs=512 count="$n" status=none
    rm -f /tmp/app-trace-service.dd
    if [[ $stop == ctl ]]; then
        "$ctl" stop >"$name.stop.out" 2>&1 || echo "stop failed $?" >>"$name.stop.out"
    else
        kill -TERM $pid
        echo "app-trace-ctl: stopped; the totals are at the end of (SIGTERM)" >"$name.stop.out"
    fi
    wait $pid || rc=$?
    echo $rc >"$name.rc"
    "$ctl" files >"$name.files"
    not loaded app_trace
}

guest() {
    uname -n >host
    rm -rf traces
    conf run1.conf dd 3 8
    run run1 $N1 "" ctl
    conf run2.conf fio 0 ""
    run run2 $N2 "fio dd" term
    ls traces traces/previous >ls.out
}

check() {
    local host out f
    host=$(cat host)
    out=$CASE_DIR/traces/$host-app-trace.out
    for r in run1 run2; do
        [[ $(cat $r.rc) == 0 ]] || { cat $r.start.err $r.stop.out; return 1; }
        only_skip_warnings $r.start.err || { cat $r.start.err; return 1; }
        grep -q '^app-trace-ctl: stopped; the totals are at the end of ' $r.stop.out
    done
    [[ $(cat run1.apps1) == dd && $(cat run1.apps2) == dd ]]
    [[ $(cat run2.apps1) == fio && $(cat run2.apps2) == $'dd\nfio' ]]
    # run 2 moved run 1's files aside: both runs' files are checked where they are now
    sed "s|^$CASE_DIR/traces/|$CASE_DIR/traces/previous/|" run1.files >run1.now
    cp run2.files run2.now
    perl - "$out" $N1 $N2 <<'PERL'
use strict; use warnings;
my ($out, $n1, $n2) = @ARGV;
my $MB = 1024 * 1024;
my $line_re = qr/^\d+ op: \w+ execname: \S+ pid: \d+ fd: -?\d+( count: \d+)?( offset: \d+)?( ret: -?\d+)?( path: ".*")?$/;

# check_run(name, dd blocks, files to keep (0: all)): returns nothing, dies on a mismatch
sub check_run {
    my ($name, $n, $keep) = @_;
    open(my $fl, '<', "$name.now") or die;
    chomp(my @files = <$fl>);
    my @nums = map { /\.(\d+)$/ ? $1 : die "$name: bad file name $_" } @files;
    my $last = $nums[-1];
    die "$name: no rotation (last file number $last)" if $last < ($keep ? $keep : 1);
    my $want = $keep ? $keep : $last + 1;
    die "$name: " . scalar(@files) . " files, expected $want (@nums)" if @files != $want;
    for my $i (0 .. $#nums) {
        die "$name: file numbers @nums are not the newest $want in a row" if $nums[$i] != $last - $#nums + $i;
    }
    my ($written, %tot, $lost) = (0);
    for my $i (0 .. $#files) {
        my $f = $files[$i];
        my $size = -s $f;
        die "$name: $f has $size bytes, more than 1 MB" if $size > $MB;
        # a file is closed only when the next record would not fit: full but for less than a line
        die "$name: $f has only $size bytes" if $i < $#files && $size < $MB - 512;
        open(my $h, '<', $f) or die;
        while (my $l = <$h>) {
            chomp $l;
            if ($l =~ /^# /) {
                die "$name: totals in $f, not the last file" if $i != $#files;
                if ($l =~ /^# totals: op: (\w+) calls: (\d+)$/) { $tot{$1} = $2 }
                elsif ($l =~ /^# totals: bytes_read: (\d+) bytes_written: (\d+) lines: (\d+)$/) {
                    @tot{qw(bytes_read bytes_written lines)} = ($1, $2, $3);
                } elsif ($l =~ /^# lost: (\d+) records/) { $lost = $1 }
                else { die "$name: unexpected line $l" }
                next;
            }
            die "$name: $f: bad line: $l" unless $l =~ $line_re;
            die "$name: $f: a line after the totals" if %tot;
            die "$name: $f: not dd's: $l" unless $l =~ /execname: dd /;
            $written++;
        }
    }
    die "$name: no totals" unless defined $tot{lines};
    # dd wrote its n blocks and nothing else (status=none), traced from before it started
    die "$name: dd's write calls $tot{write}, expected $n" unless ($tot{write} // 0) == $n;
    die "$name: bytes written $tot{bytes_written}, expected " . 512 * $n if $tot{bytes_written} != 512 * $n;
    die "$name: read calls " . ($tot{read} // 0) . " < $n" if ($tot{read} // 0) < $n;
    $lost //= 0;
    printf "%s: files %s, last %d, lines %d, written %d, lost %d\n", $name, scalar(@files), $last,
           $tot{lines}, $written, $lost;
    # all files kept: every line produced is either in them or reported lost
    die "$name: $written written + $lost lost != $tot{lines} produced" if !$keep && $written + $lost != $tot{lines};
    die "$name: $written written + $lost lost > $tot{lines} produced" if $written + $lost > $tot{lines};
}
check_run('run1', $n1, 3);
check_run('run2', $n2, 0);
PERL
}
