# stap-merge on synthetic bulk files: seq order, binary payloads byte for byte, stderr records, default
# stpd_cpuN files, rotated sets, -o, -v, and clear errors for truncated/corrupt inputs. Used by tests/run.

# rec FILE CPU SEQ FLAGS HEX: appends one record (struct stp_record_header, then the payload given in
# hex) to FILE, and its payload to expect.out (FLAGS 0) or expect.err (FLAGS 1). Call in seq order.
rec() {
    perl -e '
        my ($file, $cpu, $seq, $flags, $hex) = @ARGV;
        my $p = pack("H*", $hex);
        open(my $f, ">>", $file) or die "$file: $!";
        binmode $f;
        print $f pack("LSSQ", length($p), $cpu, $flags, $seq), $p;
        open(my $e, ">>", $flags ? "expect.err" : "expect.out") or die;
        binmode $e;
        print $e $p;' "$@"
}

# hex STRING: STRING in hex.
hex() { perl -e 'print unpack("H*", $ARGV[0])' "$1"; }

# fails WHAT MESSAGE ARGS...: stap-merge ARGS exits 1 and says MESSAGE (a fixed string) on stderr.
fails() {
    local what=$1 msg=$2 rc=0
    shift 2
    "$MERGE" "$@" >fail.out 2>fail.err || rc=$?
    if (( rc != 1 )) || ! grep -qF -- "$msg" fail.err; then
        echo "$what: expected status 1 and \"$msg\", got status $rc:"
        cat fail.err
        return 1
    fi
}

run() {
    MERGE=$(dirname "$STAP")/stap-merge
    [[ -x $MERGE ]]
    touch expect.out expect.err

    # three CPUs, interleaved; text, binary (NUL, newline, 0xff, a %4b%8b-like record), empty
    # payloads, a stderr record, and one file that ends early
    rec a_cpu0 0 1 0 "$(hex $'line 1\n')"
    rec a_cpu1 1 2 0 "$(hex $'line 2\n')"
    rec a_cpu1 1 3 0 0100000008070605040302010a
    rec a_cpu2 2 4 0 00ff00ff0a0d
    rec a_cpu0 0 5 1 "$(hex $'WARNING: something\n')"
    rec a_cpu0 0 6 0 ""
    rec a_cpu2 2 7 0 "$(hex $'line 7\n')"
    rec a_cpu1 1 8 0 "$(hex $'last\n')"
    "$MERGE" a_cpu0 a_cpu1 a_cpu2 >got.out 2>got.err
    cmp got.out expect.out
    cmp got.err expect.err
    # the order of the arguments does not matter; -o writes the same bytes
    "$MERGE" -o merged a_cpu2 a_cpu0 a_cpu1 >o.stdout 2>/dev/null
    cmp merged expect.out
    test ! -s o.stdout
    # -v: a summary; -v -v: one line per record
    "$MERGE" -v a_cpu0 a_cpu1 a_cpu2 >/dev/null 2>v.err
    grep -qx 'stap-merge: a_cpu1: 3 records, 25 bytes, seq 2..8' v.err
    grep -qx 'stap-merge: 8 records from 3 files, seq 1..8' v.err
    "$MERGE" -v -v a_cpu0 a_cpu1 a_cpu2 >/dev/null 2>vv.err
    grep -qx '\[cpu 1 seq 3 len 13\]' vv.err
    grep -qx '\[cpu 0 seq 5 len 19\] stderr' vv.err
    [[ $(grep -c '^\[cpu ' vv.err) == 8 ]]

    # a larger random run: 4 CPUs, 3000 records of 0..9000 random bytes and one of the largest size;
    # CPU 3's records are split into a rotated set (b_cpu3.0 .. b_cpu3.2) given as separate inputs
    perl -e '
        srand(42);
        my %f;
        open(my $exp, ">", "big.expect") or die; binmode $exp;
        for my $seq (1 .. 3000) {
            my $cpu = int(rand(4));
            my $len = $seq == 1500 ? 65536 : ($seq % 97 == 0 ? 0 : int(rand(9001)));
            my $p = join("", map { chr(int(rand(256))) } 1 .. $len);
            my $name = $cpu == 3 ? "b_cpu3." . int($seq / 1000) : "b_cpu$cpu";
            open($f{$name}, ">", $name) or die unless $f{$name};
            binmode $f{$name};
            print { $f{$name} } pack("LSSQ", $len, $cpu, 0, $seq), $p;
            print $exp $p;
        }'
    "$MERGE" b_cpu0 b_cpu1 b_cpu2 b_cpu3.0 b_cpu3.1 b_cpu3.2 >big.out
    cmp big.out big.expect

    # no FILE: the stpd_cpuN files of the current directory (rotated stpd_cpuN.K and others ignored)
    mkdir dflt
    cp a_cpu0 dflt/stpd_cpu0
    cp a_cpu1 dflt/stpd_cpu1
    cp a_cpu2 dflt/stpd_cpu10
    cp a_cpu2 dflt/stpd_cpu2.0
    cp a_cpu2 dflt/other_cpu2
    (cd dflt && "$MERGE" >../dflt.out 2>../dflt.err)
    cmp dflt.out expect.out
    mkdir empty
    (cd empty && fails "no stpd_cpuN files" "no stpd_cpuN files in the current directory")
    # an empty file is an empty CPU
    : >nothing
    "$MERGE" nothing a_cpu0 >n.out 2>/dev/null
    [[ $(cat n.out) == "line 1" ]]

    # errors name the file and the offset, exit 1
    head -c 30 a_cpu1 >trunc_hdr          # record 2 at offset 23: 7 of 16 header bytes
    fails "truncated header" "trunc_hdr: truncated record header at offset 23 (7 of 16 bytes)" trunc_hdr
    head -c 40 a_cpu1 >trunc_pay          # record 2's payload: 1 of 13 bytes
    fails "truncated payload" "trunc_pay: truncated record at offset 23: 13 payload bytes, only 1 in the file" \
        a_cpu0 trunc_pay
    { head -c 23 a_cpu1; printf '\377\377\377\377'; tail -c +28 a_cpu1; } >badlen
    fails "bad length" "badlen: bad record header at offset 23: payload length 4294967295 > 65536" badlen
    printf 'hello, this is not a bulk file\n' >text
    fails "not a bulk file" "text: bad record header at offset 0" text
    rec backwards 0 5 0 41
    rec backwards 0 4 0 42
    fails "seq going back" "backwards: bad record header at offset 17: seq 4 after seq 5" backwards
    fails "same file twice" "seq 1 appears twice" a_cpu0 a_cpu0
    fails "missing file" "cannot open no_such_file: No such file or directory" a_cpu0 no_such_file
    cp a_cpu0 victim
    fails "output is an input" "victim is also an input file" -o victim a_cpu1 victim
    cmp victim a_cpu0
    fails "bad option" "usage: stap-merge" -q a_cpu0
    "$MERGE" -h | grep -q '^usage: stap-merge'
}
