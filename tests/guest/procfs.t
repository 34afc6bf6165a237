# procfs: procfs("NAME").read/.write files read and written from the shell while the run goes on
# Used by tests/run (guest/procfs); the family is translator/providers/procfs.c + runtime/probes/procfs.c.

timeout_s=240
D=/proc/systemtap/t_procfs

build() {
    # counter: a read probe (a count of reads) and a write probe on one file; command (the default
    # name): a read cut at maxsize(8), mode 0444 & ~0004; dir/w: a write probe in a subdirectory
    $STAP -p4 -m t_procfs -e '
global reads, writes
probe procfs("counter").read { reads++; $value = sprintf("reads %d\n", reads) }
probe procfs("counter").write {
    writes++
    printf("write %d len %d\n", writes, strlen($value))
    if (strlen($value) < 32) printf("value [%s]\n", $value)
}
probe procfs.umask(0004).read.maxsize(8) { $value = "0123456789abcdef" }
probe procfs("dir/w").umask(0020).write { printf("w [%s] by %s\n", $value, execname()) }
probe end { printf("end reads %d writes %d\n", reads, writes) }' >p4.out
    [[ $(cat p4.out) == t_procfs.ko ]]
}

# wait_file FILE: until FILE can be read (the run has started: files exist once the probes are armed).
wait_file() {
    local i
    for i in $(seq 300); do
        cat "$1" >first.read 2>/dev/null && return 0
        nap 0.1
    done
    return 1
}

# reader N: N reads of counter, each line on stdout.
reader() {
    local i
    for ((i = 0; i < $1; i++)); do
        cat $D/counter
    done
}

guest() {
    local pid io rc=0 hammer
    staprun t_procfs.ko >run.out 2>run.err & pid=$!
    io=$(stapio_of $pid)
    wait_file $D/counter
    cat $D/counter >second.read
    stat -c '%n %a' $D/counter $D/command $D/dir/w >modes
    printf 'hello' >$D/counter
    # the longest write MAXSTRINGLEN - 1 (511) is taken whole, one byte more is refused (EFBIG)
    head -c 511 /dev/zero | tr '\0' x >ok511
    head -c 512 /dev/zero | tr '\0' x >big512
    dd if=ok511 of=$D/counter bs=511 count=1 2>dd511.err
    not dd if=big512 of=$D/counter bs=512 count=1 2>dd512.err
    printf 'again' >$D/counter
    cat $D/counter >after-write.read
    cat $D/command >command.read
    printf 'sub' | dd of=$D/dir/w 2>/dev/null
    # a file without a write probe takes no write (root opens it whatever its mode), one without
    # a read probe gives no read
    printf x >onebyte
    not dd if=onebyte of=$D/command 2>nowrite.err
    not cat $D/dir/w 2>noread.err
    # a read in 3-byte pieces: one value, run once (offset 0), continued from the buffer
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
    # a file kept open over the end of the run, a reader and a writer racing with the removal
    exec 3<$D/counter
    (while :; do cat $D/counter >/dev/null 2>&1 || true; done) & hammer=$!
    (while :; do printf h 2>/dev/null >$D/dir/w || true; done) & whammer=$!
    sleep 0.5
    kill -INT "$io"
    wait $pid || rc=$?
    echo $rc >run.rc
    kill $hammer $whammer; wait $hammer $whammer || true
    not cat <&3 2>stale.err
    exec 3<&-
    not test -e $D
    not loaded t_procfs
}

check() {
    [[ $(cat run.rc) == 0 ]] || { cat run.err; return 1; }
    [[ ! -s run.err ]] || { cat run.err; return 1; }
    [[ $(cat first.read) == "reads 1" ]]
    [[ $(cat second.read) == "reads 2" ]]
    diff modes - <<EOF
/proc/systemtap/t_procfs/counter 600
/proc/systemtap/t_procfs/command 440
/proc/systemtap/t_procfs/dir/w 202
EOF
    grep -q 'File too large' dd512.err
    [[ $(cat after-write.read) == "reads 3" ]]
    [[ $(cat command.read) == "01234567" ]]
    [[ $(cat pieces.read) == "reads 4" ]]
    [[ $(cat open4.read) == "reads 5" ]]
    [[ $(cat open5.read) == "reads 6" ]]
    # 60 concurrent reads: counts 7..66, each once, every line whole
    cat par1.read par2.read par3.read | sort -k2n >par.all
    diff par.all <(for i in $(seq 7 66); do echo "reads $i"; done)
    grep -q 'Input/output error' stale.err
    grep -q 'Invalid argument' nowrite.err
    grep -q 'Invalid argument' noread.err
    # the writes the script saw, in order; the refused one is not among them
    local hammered
    hammered=$(sed -n 's/^end reads \([0-9]*\) writes 3$/\1/p' run.out)
    (( hammered >= 66 ))
    grep -vx 'w \[h\] by [^ ]*' run.out >run.filtered
    diff run.filtered - <<EOF
write 1 len 5
value [hello]
write 2 len 511
write 3 len 5
value [again]
w [sub] by dd
end reads $hammered writes 3
EOF
}
