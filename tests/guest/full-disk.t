# full-disk: staprun -o on a small tmpfs that fills during the run: the run goes on, records whole or not at all, those not written counted (stderr and a "# lost:" line once space returns) = produced - written, end output written, module removed
# Used by tests/run (issue 33); the writing side is stapio/outfile.c (stream_commit).

timeout_s=240
M=full_disk

build() {
    # 1000 lines of 100 bytes, then (once /proc/systemtap/M/more is written) 100 more and exit()
    $STAP -p4 -m $M -e '
global n, more
function line() { n++; printf("line %06d %s\n", n, "'"$(printf 'x%.0s' $(seq 87))"'") }
probe timer.ms(10) {
    if (n < 1000)
        for (i = 0; i < 50 && n < 1000; i++) line()
    else if (more && n < 1100)
        for (i = 0; i < 50 && n < 1100; i++) line()
    else if (n >= 1100)
        exit()
}
probe procfs("n").read { $value = sprintf("%d", n) }
probe procfs("more").write { more = 1 }
probe end { printf("end: produced %d\n", n) }' >/dev/null
    test -s $M.ko
}

guest() {
    source "$TOP/tests/lib/full-disk.sh"
    full_disk_run $M /tmp/full-disk
}

check() {
    local written dropped said
    [[ $(cat run.rc) == 0 ]] || { cat run.err; return 1; }
    # every line whole: numbered lines, the lost line, the end's
    not grep -Evx 'line [0-9]{6} x{87}|# lost: [0-9]+ records \([0-9]+ bytes\) not written: No space left on device|end: produced 1100' t.out
    not grep -Evx 'line [0-9]{6} x{87}' during.out
    [[ $(tail -n 1 t.out) == "end: produced 1100" ]]
    # a record is what one probe hit printed (up to 50 lines of 100 bytes): bytes count lines
    written=$(grep -c '^line ' t.out)
    dropped=$(sed -n 's/^# lost: [0-9]* records (\([0-9]*\) bytes) not written.*/\1/p' t.out | paste -sd+ | bc)
    said=$(sed -n 's/^stapio: WARNING: [0-9]* records (\([0-9]*\) bytes) not written: the file system was full$/\1/p' run.err)
    echo "lines written $written, not written $((dropped / 100)) (stderr: $((said / 100))) of 1100"
    (( written > 100 && dropped > 0 && dropped % 100 == 0 ))
    (( written + dropped / 100 == 1100 ))
    [[ $said == "$dropped" ]]
    # the lines are in order, the missing ones where the lost line is
    grep '^line ' t.out | awk '{ print $2 + 0 }' | sort -nc
    [[ $(grep '^line ' t.out | tail -n 1) == "line 001100 "* ]]
    # no record lost in the transport
    not grep -q 'records.*lost$' run.err
}
