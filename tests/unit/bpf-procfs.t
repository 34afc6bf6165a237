# bpf-procfs - procfs("NAME").read/.write probes with --runtime=bpf on this host: stapio serves the files under
# /run/systemtap/NAME (FUSE) and runs their probes; read and written from the shell as guest/procfs does a module's.
# Used by tests/run (unit/bpf-procfs); the files are stapio/bpfprocfs.c's, $value runtime/bpf/procfs.h's.
timeout_s=180

N=b_procfs_t
D=/run/systemtap/$N

# wait_for TEST...: until `test TEST` holds, at most 10 s
wait_for() {
    local i
    for ((i = 0; i < 100; i++)); do
        test "$@" && return 0
        sleep 0.1
    done
    return 1
}

reader() {
    local i
    for ((i = 0; i < $1; i++)); do
        cat $D/counter
    done
}

# stapio_pid: the run's stapio (staprun's child)
stapio_pid() { pgrep -f "stapio .*-N $N( |\$)" | head -n 1; }

run() {
    [[ $(id -u) == 0 ]] || { echo "needs root (BPF, FUSE)"; exit 77; }
    [[ -r /sys/kernel/btf/vmlinux ]] || { echo "the kernel has no BTF"; exit 77; }
    [[ -c /dev/fuse ]] && grep -qw fuse /proc/filesystems || { echo "no FUSE here (/dev/fuse)"; exit 77; }
    local STAPRUN=$TOP/build/bin/staprun pid rc=0 hammer whammer io
    export SYSTEMTAP_DIR=$PWD/sd

    # counter: a read (a count of them) and a write probe; command (the default name): a read cut at
    # maxsize(8), mode 0444 & ~0004; dir/w: a write in a subdirectory; cat: $value built with .=
    $STAP --runtime=bpf -p4 -m $N -e '
global reads, writes
probe procfs("counter").read { reads++; $value = sprintf("reads %d\n", reads) }
probe procfs("counter").write {
    writes++
    printf("write %d len %d\n", writes, strlen($value))
    if (strlen($value) < 32) printf("value [%s]\n", $value)
}
probe procfs.umask(0004).read.maxsize(8) { $value = "0123456789abcdef" }
probe procfs("dir/w").umask(0020).write { printf("w [%s]\n", $value) }
probe procfs("cat").read { $value = "one"; $value .= " two\n" }
probe end { printf("end reads %d writes %d\n", reads, writes) }' >p4.out
    [[ $(cat p4.out) == $N.bo ]]

    "$STAPRUN" $N.bo >run.out 2>run.err & pid=$!
    wait_for -e $D/counter || { cat run.err; return 1; }
    io=$(stapio_pid)
    # a second run of that name finds the files served
    not "$STAPRUN" $N.bo >second.out 2>second.err
    grep -q "$D is served by another run named $N" second.err || { cat second.err; return 1; }
    cat $D/counter >first.read
    cat $D/counter >second.read
    stat -c '%n %a' $D/counter $D/command $D/dir/w >modes
    ls $D >ls.out
    printf 'hello' >$D/counter
    # the longest write MAXSTRINGLEN - 1 (511) is taken whole, one byte more is refused (EFBIG)
    head -c 511 /dev/zero | tr '\0' x >ok511
    head -c 512 /dev/zero | tr '\0' x >big512
    dd if=ok511 of=$D/counter bs=511 count=1 2>dd511.err
    not dd if=big512 of=$D/counter bs=512 count=1 2>dd512.err
    printf 'again' >$D/counter
    cat $D/counter >after-write.read
    cat $D/command >command.read
    cat $D/cat >cat.read
    printf 'sub' | dd of=$D/dir/w 2>/dev/null
    # a file without a write probe takes no write (root opens it whatever its mode), one without a read probe
    # gives no read
    printf x >onebyte
    not dd if=onebyte of=$D/command 2>nowrite.err
    not cat $D/dir/w 2>noread.err
    # a read in 3-byte pieces: one value, its probe run once (offset 0), continued from the open file's copy
    dd if=$D/counter bs=3 2>/dev/null >pieces.read
    # two open files read in pieces, interleaved: each goes on in its own value
    exec 4<$D/counter 5<$D/counter
    dd bs=3 count=1 <&4 2>/dev/null >open4.read
    dd bs=3 count=1 <&5 2>/dev/null >open5.read
    cat <&4 >>open4.read
    cat <&5 >>open5.read
    exec 4<&- 5<&-
    # concurrent readers of one file: every value whole, each count once
    reader 20 >par1.read & p1=$!
    reader 20 >par2.read & p2=$!
    reader 20 >par3.read & p3=$!
    wait $p1 $p2 $p3
    # a file kept open over the end of the run, a reader and a writer racing with the unmount
    exec 3<$D/counter
    (while :; do cat $D/counter >/dev/null 2>&1 || true; done) & hammer=$!
    (while :; do printf h 2>/dev/null >$D/dir/w || true; done) & whammer=$!
    sleep 0.5
    kill -INT "$io"
    wait $pid || rc=$?
    kill $hammer $whammer; wait $hammer $whammer || true
    not cat <&3 2>stale.err
    exec 3<&-
    # the files are gone when the run has ended
    not test -e $D
    not grep -q " $D " /proc/mounts

    [[ $rc == 0 && ! -s run.err ]] || { echo "rc $rc"; cat run.err; return 1; }
    [[ $(cat first.read) == "reads 1" && $(cat second.read) == "reads 2" ]] || { cat first.read second.read; return 1; }
    diff modes - <<EOF
$D/counter 600
$D/command 440
$D/dir/w 202
EOF
    diff ls.out - <<EOF
cat
command
counter
dir
EOF
    grep -q 'File too large' dd512.err
    [[ $(cat after-write.read) == "reads 3" ]]
    [[ $(cat command.read) == "01234567" ]]
    [[ $(cat cat.read) == "one two" ]]
    [[ $(cat pieces.read) == "reads 4" ]]
    [[ $(cat open4.read) == "reads 5" && $(cat open5.read) == "reads 6" ]] || { cat open4.read open5.read; return 1; }
    # 60 concurrent reads: counts 7..66, each once, every line whole
    cat par1.read par2.read par3.read | sort -k2n >par.all
    diff par.all <(for i in $(seq 7 66); do echo "reads $i"; done)
    [[ -s stale.err ]]
    grep -q 'Invalid argument' nowrite.err
    grep -q 'Invalid argument' noread.err
    # the writes the script saw, in order; the refused one is not among them
    local hammered
    hammered=$(sed -n 's/^end reads \([0-9]*\) writes 3$/\1/p' run.out)
    (( hammered >= 66 )) || { cat run.out; return 1; }
    grep -vx 'w \[h\]' run.out >run.filtered
    diff run.filtered - <<EOF
write 1 len 5
value [hello]
write 2 len 511
write 3 len 5
value [again]
w [sub]
end reads $hammered writes 3
EOF

    # a run killed outright leaves no mount behind: its helper unmounts when stapio is gone
    "$STAPRUN" $N.bo >kill.out 2>kill.err & pid=$!
    wait_for -e $D/counter || { cat kill.err; return 1; }
    kill -KILL "$(stapio_pid)"
    wait $pid || true
    wait_for ! -e $D || { echo "$D left behind"; grep " $D " /proc/mounts; return 1; }
    not grep -q " $D " /proc/mounts

    # a procfs("header") file makes self-describing -o files, its text read by running its probe (stapio serves the
    # file itself: it cannot read it through the mount)
    $STAP --runtime=bpf -o "$PWD/h.out" -e '
global n
probe procfs("header").read { $value = sprintf("format: text\napps: %s\n", "a b") }
probe timer.ms(50) { printf("tick %d\n", ++n); if (n == 3) exit() }' >h.stdout 2>h.err || { cat h.err; return 1; }
    head -n 1 h.out | grep -qx '# stap-output-header: 1' || { cat h.out; return 1; }
    grep -qx '# format: text' h.out && grep -qx '# apps: a b' h.out || { cat h.out; return 1; }
    [[ $(grep -v '^#' h.out) == $'tick 1\ntick 2\ntick 3' ]] || { cat h.out; return 1; }
    tail -n 1 h.out | grep -q '^# end: file: .* records: 3 ' || { cat h.out; return 1; }
}
