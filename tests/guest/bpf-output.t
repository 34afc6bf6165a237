# the BPF runtime's output modes from kernel probes, in a kernel that has them: -o with a strftime name, -S rotation, a
# SIGUSR2 switch, the end-of-run display of the globals written and never read, and records from every CPU's probes
# into one file.  Used by tests/run (issue 48): stapio/bpfglue.c, bpfrun.c (the ring into the output), outfile.c.

build() {
    $STAP --runtime=bpf -p4 -m t_bpfo -e '
global reads, sizes
probe kernel.function("ksys_read") { if (execname() == "dd" && $count == 3) { reads++; sizes[$count] <<< 1; printf("read %d %d\n", reads, $count) } }
probe end { printf("end %d\n", reads) }' >/dev/null
    $STAP --runtime=bpf -p4 -m t_bpfr -e '
probe kernel.function("ksys_read") { if (execname() == "dd" && $count == 1) printf("%0100d\n", $count) }' >/dev/null
    [[ -f t_bpfo.bo && -f t_bpfr.bo ]]
}

guest() {
    staprun -o "o_%Y.txt" -c "dd if=/dev/zero of=/dev/null bs=3 count=500" t_bpfo.bo >o.stdout 2>o.err
    echo $? >o.rc
    date +%Y >year
    # 1 MiB files, the newest 2 kept: 30000 lines of 101 bytes make 3 MB
    staprun -o rot.txt -S 1,2 -c "dd if=/dev/zero of=/dev/null bs=1 count=30000" t_bpfr.bo >rot.stdout 2>rot.err
    echo $? >rot.rc
}

check() {
    local f="o_$(cat year).txt"
    [[ $(cat o.rc rot.rc) == $'0\n0' ]]
    [[ ! -s o.stdout && ! -s rot.stdout ]]
    not grep -v -e 'records in' -e 'records out' -e 'bytes .* copied' o.err rot.err
    # dd's 500 reads of 3 bytes, numbered in order, then end and the display of the statistics' array
    [[ $(grep -c '^read [0-9]* 3$' "$f") == 500 ]]
    [[ $(grep '^read ' "$f" | tail -n 1) == "read 500 3" ]]
    grep -qx 'end 500' "$f"
    grep -qx 'sizes\[3\] @count=500 @min=1 @max=1 @sum=500 @avg=1' "$f"
    # rotation: rot.txt.0 gone, .1 at most 1 MiB, .2 with the last of the 30000 lines
    [[ ! -e rot.txt.0 && -e rot.txt.1 && -e rot.txt.2 && ! -e rot.txt.3 ]]
    (( $(stat -c %s rot.txt.1) <= 1048576 ))
    (( $(cat rot.txt.1 rot.txt.2 | wc -l) < 30000 ))
    [[ $(tail -n 1 rot.txt.2) == "$(printf '%0100d' 1)" ]]
}
