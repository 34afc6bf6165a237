# app-trace: examples/app-trace/app-trace.stp traces fio's iozone-like phases (byte totals equal fio's), dd only once added through procfs
# Used by tests/run (guest/app-trace); the script's format is in its header, tools/app-trace-report reads it.

timeout_s=900
D=/proc/systemtap/t_apptrace
W=/tmp/apptrace
# the phases: name, fio --rw, extra options
PHASES="write:write rewrite:write read:read reread:read randread:randread randwrite:randwrite"

build() {
    need_kernel_dwarf
    command -v fio >/dev/null || { echo "no fio (make deps installs it)"; exit 77; }
    $STAP -p4 -m t_apptrace "$TOP/examples/app-trace/app-trace.stp" >p4.out
    [[ $(cat p4.out) == t_apptrace.ko ]]
}

# now_us: the wall clock in microseconds (gettimeofday_us() in the trace)
now_us() { date +%s%6N; }

guest() {
    local pid io rc=0 ph name rw t0 t1 d1 d2 l c i
    rm -rf $W
    mkdir -p $W
    staprun t_apptrace.ko apps_init=fio >trace.out 2>run.err & pid=$!
    io=$(stapio_of $pid)
    cat $D/apps >apps.before
    # dd is not traced yet: its lines must not appear
    dd if=/dev/zero of=$W/dd1 bs=4096 count=3 status=none & d1=$!
    wait $d1
    echo $d1 >dd1.pid
    : >phases
    for ph in $PHASES; do
        name=${ph%%:*} rw=${ph#*:}
        t0=$(now_us)
        fio --name="$name" --filename=$W/data --size=4m --bs=64k --rw="$rw" --direct=0 \
            --ioengine=psync --numjobs=1 --fallocate=none --randrepeat=1 --end_fsync=1 \
            --output-format=json --output="$PWD/$name.json" >/dev/null
        t1=$(now_us)
        echo "$name $t0 $t1" >>phases
    done
    # the set changed while the run goes on: dd and busybox are traced from now on
    echo "fio, dd busybox" >$D/apps
    cat $D/apps >apps.after
    now_us >changed.us
    dd if=$W/data of=/dev/null bs=64k count=4 status=none & d2=$!
    wait $d2
    echo $d2 >dd2.pid
    # sockets: busybox nc listens on loopback, another sends "hello\n" (tried until the listener
    # is up: refused connects are traced too)
    ip link set lo up
    echo hello >$W/hello
    busybox nc -l -p 7777 >nc.got & l=$!
    for i in $(seq 100); do
        busybox nc 127.0.0.1 7777 <$W/hello & c=$!
        wait $c && break
        sleep 0.3
    done
    # the listener ends with its connection (killed if the client never got through)
    for i in $(seq 100); do kill -0 $l 2>/dev/null || break; sleep 0.3; done
    kill $l 2>/dev/null || true
    wait $l || true
    echo "$l $c" >nc.pids
    kill -INT "$io"
    wait $pid || rc=$?
    echo $rc >run.rc
    rm -rf $W
}

check() {
    [[ $(cat run.rc) == 0 ]] || { cat run.err; return 1; }
    only_skip_warnings run.err || { cat run.err; return 1; }
    [[ $(cat apps.before) == fio ]]
    [[ $(cat apps.after) == $'busybox\ndd\nfio' ]]
    [[ $(cat nc.got) == hello ]]
    perl - trace.out phases "$(cat dd1.pid)" "$(cat dd2.pid)" "$(cat changed.us)" $(cat nc.pids) <<'PERL'
use strict; use warnings; use JSON::PP;
my ($trace, $phases, $dd1, $dd2, $changed, $ncl, $ncc) = @ARGV;
my $data = '"/tmp/apptrace/data"';
my (@ph, %open, %opens, %closes, %bytes, %ops, %tot, @dd2, %fsync, %seqoff, @ncl, @ncc);
open(my $p, '<', $phases) or die;
while (<$p>) { my ($n, $a, $b) = split; push @ph, [$n, $a, $b]; }
sub phase_of { my $t = shift; for (@ph) { return $_->[0] if $t >= $_->[1] && $t <= $_->[2] } return '' }
my $fail = 0;
sub bad { print "FAIL: @_\n"; $fail = 1 }
open(my $t, '<', $trace) or die;
while (my $l = <$t>) {
    chomp $l;
    if ($l =~ /^# totals: op: (\S+) calls: (\d+)$/) { $tot{$1} = $2; next }
    next if $l =~ /^# totals: bytes_read/;
    bad("output lost: $l") if $l =~ /^# lost/;
    $l =~ /^(\d+) op: (\S+) execname: (.+) pid: (\d+) fd: (-?\d+)((?: count: \d+)?)((?: offset: \d+)?)((?: ret: -?\d+)?)((?: path: ".*")?)$/
        or do { bad("bad line: $l"); next };
    my ($ts, $op, $exe, $pid, $fd) = ($1, $2, $3, $4, $5);
    my ($count, $off, $ret, $path) = map { s/^ \w+: //r } ($6, $7, $8, $9);
    $ops{$op}++;
    bad("dd line before dd was added: $l") if $exe eq 'dd' && ($pid == $dd1 || $ts < $changed);
    bad("line of $exe") if $exe ne 'fio' && $exe ne 'dd' && $exe ne 'busybox';
    bad("busybox line before it was added: $l") if $exe eq 'busybox' && $ts < $changed;
    if ($pid == $dd2) { push @dd2, "$op $fd $count $off $ret $path"; next }
    if ($pid == $ncl) { push @ncl, [$op, $fd, $count, $ret, $off]; next }
    if ($pid == $ncc) { push @ncc, [$op, $fd, $count, $ret, $off]; next }
    next if $exe ne 'fio';
    my $k = "$pid/$fd";
    my $name = phase_of($ts) or do { bad("fio line outside the phases: $l"); next };
    if ($op eq 'open' && $path eq $data) {
        bad("open failed: $l") if $fd < 0;
        $open{$k} = 1; $opens{$name}++;
    } elsif ($open{$k}) {
        if ($op eq 'close') { delete $open{$k}; $closes{$name}++ }
        elsif ($op eq 'read' || $op eq 'write') {
            bad("short or failed $op: $l") if $ret != 65536 || $count != 65536;
            $bytes{$name}{$op} += $ret;
            if ($name =~ /^(re)?(write|read)$/) {
                my $want = $seqoff{$name} // 0;
                bad("$name: offset $off, expected $want") if $off != $want;
                $seqoff{$name} = $off + $ret;
            }
        } elsif ($op eq 'fsync') { $fsync{$name}++ }
    }
}
bad("still open at the end: " . join(' ', keys %open)) if %open;
for (@ph) {
    my $n = $_->[0];
    open(my $j, '<', "$n.json") or die "$n.json: $!";
    my $job = decode_json(do { local $/; <$j> })->{jobs}[0];
    for my $dir ('read', 'write') {
        my $want = $job->{$dir}{io_bytes};
        my $got = $bytes{$n}{$dir} // 0;
        printf "%-9s %-5s fio %8d trace %8d\n", $n, $dir, $want, $got;
        bad("$n $dir: fio $want, trace $got") if $want != $got;
    }
    bad("$n: opens $opens{$n}, closes " . ($closes{$n} // 0)) if !$opens{$n} || $opens{$n} != ($closes{$n} // 0);
    bad("$n: no fsync") if $n =~ /write/ && !$fsync{$n};
}
bad("sequential phases' offsets") unless ($seqoff{write} // 0) == 4194304 && ($seqoff{reread} // 0) == 4194304;
# dd: opens the file (then dup2s it to 0, not traced), 4 reads of 64 KiB at the file's position
# (f_pos), close of 0
bad("dd: no open of $data") unless grep { /^open \d+ {4}\Q$data\E$/ } @dd2;
my @want = ((map { join(' ', 'read', 0, 65536, $_ * 65536, 65536, '') } 0..3), join(' ', 'close', 0, '', '', '', ''));
for my $w (@want) { bad("dd: no '$w'") unless grep { $_ eq $w } @dd2 }
bad("dd: " . scalar(@dd2) . " lines") if @dd2 < 6;
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
for my $op (keys %ops) { bad("totals: $op $ops{$op} lines, end says " . ($tot{$op} // 'nothing')) if $ops{$op} != ($tot{$op} // -1) }
exit $fail;
PERL
}
