# procfs-exercise.sh - the reads and writes a procfs case makes of its run's files, and what they must have given:
# the same for a module's (/proc/systemtap/NAME, tests/guest/procfs.t) and a BPF run's (/run/systemtap/NAME, served by
# stapio, tests/unit/bpf-procfs.t). Sourced by those cases; the script is procfs_script's, the directory $D.

# procfs_script: the script both run. counter: a read probe (a count of reads) and a write probe on one file;
# command (the default name): a read cut at maxsize(8), mode 0444 & ~0004; dir/w: a write probe in a subdirectory;
# cat: a value built with .=
procfs_script() {
    cat <<'STP'
global reads, writes
probe procfs("counter").read { reads++; $value = sprintf("reads %d\n", reads) }
probe procfs("counter").write {
    writes++
    printf("write %d len %d\n", writes, strlen($value))
    if (strlen($value) < 32) printf("value [%s]\n", $value)
}
probe procfs.umask(0004).read.maxsize(8) { $value = "0123456789abcdef" }
probe procfs("dir/w").umask(0020).write { printf("w [%s] by %s\n", $value, execname()) }
probe procfs("cat").read { $value = "one"; $value .= " two\n" }
probe end { printf("end reads %d writes %d\n", reads, writes) }
STP
}

# procfs_reader N: N reads of counter, each line on stdout.
procfs_reader() {
    local i
    for ((i = 0; i < $1; i++)); do
        cat $D/counter
    done
}

# procfs_exercise: once the run has started and first.read holds the first read of counter, every other read and
# write, each one's result in a file of the case's directory (procfs_check reads them)
procfs_exercise() {
    local p1 p2 p3
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
    procfs_reader 20 >par1.read & p1=$!
    procfs_reader 20 >par2.read & p2=$!
    procfs_reader 20 >par3.read & p3=$!
    wait $p1 $p2 $p3
}

# procfs_end_hammered STAPIO STAPRUN: the run ended (SIGINT to its stapio, STAPRUN's status into run.rc) while a file
# is kept open over the end and a reader and a writer race with the files' removal; the open file's read after the
# end fails (its message in stale.err)
procfs_end_hammered() {
    local hammer whammer rc=0
    exec 3<$D/counter
    (while :; do cat $D/counter >/dev/null 2>&1 || true; done) & hammer=$!
    (while :; do printf h 2>/dev/null >$D/dir/w || true; done) & whammer=$!
    sleep 0.5
    kill -INT "$1"
    wait "$2" || rc=$?
    echo $rc >run.rc
    kill $hammer $whammer; wait $hammer $whammer || true
    not cat <&3 2>stale.err
    exec 3<&-
}

# procfs_check WRITER: what procfs_exercise's reads and writes gave, and run.out the lines of the writes the script
# saw, in order (the refused one not among them; WRITER: the execname dir/w's write probe sees), besides those of a
# hammering writer of "h", ending with the end probe's counts
procfs_check() {
    local hammered i
    [[ $(cat first.read) == "reads 1" && $(cat second.read) == "reads 2" ]] || { cat first.read second.read; return 1; }
    diff modes - <<EOF2
$D/counter 600
$D/command 440
$D/dir/w 202
EOF2
    grep -q 'File too large' dd512.err
    [[ $(cat after-write.read) == "reads 3" ]]
    [[ $(cat command.read) == "01234567" ]]
    [[ $(cat cat.read) == "one two" ]]
    [[ $(cat pieces.read) == "reads 4" ]]
    [[ $(cat open4.read) == "reads 5" && $(cat open5.read) == "reads 6" ]] || { cat open4.read open5.read; return 1; }
    # 60 concurrent reads: counts 7..66, each once, every line whole
    cat par1.read par2.read par3.read | sort -k2n >par.all
    diff par.all <(for i in $(seq 7 66); do echo "reads $i"; done)
    grep -q 'Invalid argument' nowrite.err
    grep -q 'Invalid argument' noread.err
    hammered=$(sed -n 's/^end reads \([0-9]*\) writes 3$/\1/p' run.out)
    (( hammered >= 66 )) || { cat run.out; return 1; }
    grep -vx 'w \[h\] by [^ ]*' run.out >run.filtered
    diff run.filtered - <<EOF2
write 1 len 5
value [hello]
write 2 len 511
write 3 len 5
value [again]
w [sub] by $1
end reads $hammered writes 3
EOF2
}
