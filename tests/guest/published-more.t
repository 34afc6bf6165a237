# published-kind scripts on the signal, syscall and vfs tapsets: sigkill, sleeptime, inodewatch, vfslatency under workloads whose values they must show
# Used by tests/run (issue 15): tests/guest/scripts/general/{sigkill,sleeptime,inodewatch,vfslatency}.stp (written for these tests).

timeout_s=120
btf_rerun=1

build() {
    need_kernel_dwarf
    need_kmod drivers/block/brd
    command -v mkfs.ext2 >/dev/null || { echo "no mkfs.ext2 (e2fsprogs)"; exit 77; }
    local d=$TOP/tests/guest/scripts/general
    spawn $STAP -p4 -m t_sigkill "$d/sigkill.stp" >/dev/null
    spawn $STAP -p4 -m t_sleeptime "$d/sleeptime.stp" >/dev/null
    # /dev/ram0 is device 1:0; on a fresh ext2 the first file made in the root directory is inode 12
    spawn $STAP -p4 -m t_inodewatch "$d/inodewatch.stp" 1 0 12 >/dev/null
    spawn $STAP -p4 -m t_vfslatency "$d/vfslatency.stp" >/dev/null
    wait_jobs
}

guest() {
    staprun -c "sh -c 'sleep 30 & p=\$!; sleep 0.3; kill -9 \$p; wait \$p; echo victim \$p \$\$'" t_sigkill.ko >sigkill.out
    staprun -c 'sleep 0.4' t_sleeptime.ko >sleeptime.out
    modprobe brd rd_nr=1 rd_size=4096
    modprobe ext4
    mkfs.ext2 -q -F /dev/ram0
    mkdir -p /tmp/iwmnt
    mount -t ext2 /dev/ram0 /tmp/iwmnt
    staprun -c "sh -c 'echo hello >/tmp/iwmnt/watched; cat /tmp/iwmnt/watched >/dev/null; echo shell \$\$'" \
        t_inodewatch.ko >inodewatch.out
    stat -c '%i %d' /tmp/iwmnt/watched >watched.out
    umount /tmp/iwmnt
    rmmod brd
    staprun -c 'dd if=/etc/passwd of=/dev/null bs=512 status=none' t_vfslatency.ko >vfslatency.out
}

check() {
    [[ $(cat rc) == 0 ]]
    # sigkill: the shell killed its sleep with SIGKILL, as root
    local victim sh
    read -r _ victim sh < <(grep '^victim ' sigkill.out)
    grep -qx "SIGKILL was sent to sleep (pid:$victim) by sh uid:0" sigkill.out
    # sleeptime: sleep slept once, for at least its 0.4 s
    grep -qx 'PROCESS              PID SLEEPS     SLEPT_US' sleeptime.out
    local n us
    read -r n us < <(awk '$1 == "sleep" {print $3, $4}' sleeptime.out)
    (( n == 1 && us >= 400000 && us < 30000000 ))
    # inodewatch: the file was inode 12 of ram0 (1:0, dev_t 0x100000); the shell wrote it, cat read it (its
    # data, then end of file)
    [[ $(cat watched.out) == "12 256" ]]
    read -r _ sh < <(grep '^shell ' inodewatch.out)
    grep -qx "sh($sh) vfs_write 0x100000/12" inodewatch.out
    [[ $(grep -c '^cat([0-9]*) vfs_read 0x100000/12$' inodewatch.out) == 2 ]]
    [[ $(grep -vc '^shell ' inodewatch.out) == 3 ]]
    # vfslatency: at least dd's reads of /etc/passwd in 512-byte blocks, and the histogram
    local size reads
    size=$(stat -c %s /etc/passwd)
    reads=$(sed -n 's/^vfs_read latency (us) of \([0-9]*\) reads, min [0-9]* avg [0-9]* max [0-9]*$/\1/p' vfslatency.out)
    (( reads >= (size + 511) / 512 + 1 ))
    grep -qE '^value \|-+ count$' vfslatency.out
    awk '/^ *[0-9]+ \|@* *[0-9]+$/ {n += $NF} END {exit !(n == '"$reads"')}' vfslatency.out
}
