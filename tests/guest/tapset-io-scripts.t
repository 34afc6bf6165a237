# io scripts of the published kind on the vfs and ioblock tapsets: iotop.stp, disktop.stp, blkstat.stp run under known workloads
# Used by tests/run (issue 15): tests/guest/scripts/io/{iotop,disktop,blkstat}.stp (written for these tests).

timeout_s=120
btf_rerun=1

build() {
    need_kernel_dwarf
    need_kmod drivers/block/null_blk/null_blk
    need_kmod drivers/block/brd
    command -v mkfs.ext2 >/dev/null || { echo "no mkfs.ext2 (e2fsprogs)"; exit 77; }
    local s
    for s in iotop disktop blkstat; do
        $STAP -p4 -m t_$s "$TOP/tests/guest/scripts/io/$s.stp" >/dev/null
    done
}

guest() {
    modprobe brd rd_nr=1 rd_size=4096
    modprobe ext4
    mkfs.ext2 -q -F -b 1024 /dev/ram0
    mkdir -p /tmp/iosmnt
    mount -t ext2 /dev/ram0 /tmp/iosmnt
    # iotop: dd copies 50 blocks of 1000 bytes from /dev/zero to /dev/null
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1000 count=50 status=none' t_iotop.ko >iotop.out
    # disktop: dd writes 20000 bytes to a file on ram0, cat reads them back (the sh's pid is their ppid)
    staprun -c "sh -c 'dd if=/dev/zero of=/tmp/iosmnt/f bs=5000 count=4 status=none; cat /tmp/iosmnt/f >/dev/null; echo \$\$ >$PWD/sh.pid'" t_disktop.ko >disktop.out
    umount /tmp/iosmnt
    rmmod brd
    # blkstat: direct I/O to nullb0, 6 reads of 4096 bytes and 3 writes of 8192
    modprobe null_blk nr_devices=1 gb=1 bs=4096
    staprun -c "sh -c 'dd if=/dev/nullb0 of=/dev/null bs=4096 count=6 iflag=direct status=none;
        dd if=/dev/zero of=/dev/nullb0 bs=8192 count=3 oflag=direct status=none'" t_blkstat.ko >blkstat.out
    rmmod null_blk
    # iotop again, ended while a loop keeps reading: its vfs_read kretprobes go away under load
    (while :; do cat /etc/passwd; done >/dev/null) &
    local loop=$!
    staprun -c 'sleep 2' t_iotop.ko >load.out
    kill $loop
    wait $loop || true
}

check() {
    [[ $(cat rc) == 0 ]]
    # iotop: dd first (most written): its 50000 bytes written, and read 50000 from /dev/zero plus
    # what the dynamic loader read of its libraries
    [[ $(sed -n 1p iotop.out) == "         Process   Bytes Read Bytes Written" ]]
    local r w
    read -r _ r w < <(sed -n '2{/^ *dd /p}' iotop.out)
    [[ $w == 50000 ]] && (( r >= 50000 && r < 60000 ))
    # disktop: only ram0 (the root file system has no block device), dd wrote and cat read 20000
    # bytes; their parent is the shell
    local sh
    sh=$(cat sh.pid)
    [[ $(sed -n 1p disktop.out) == "     PID     PPID              CMD   DEVICE  T        BYTES" ]]
    [[ $(sed 1d disktop.out | awk '{print $2, $3, $4, $5, $6}' | sort) == \
        "$sh cat ram0 R 20000"$'\n'"$sh dd ram0 W 20000" ]]
    [[ $(sed 1d disktop.out | awk '$1 > '"$sh"' {n++} END {print n}') == 2 ]]
    # iotop under load: each cat wrote the file to /dev/null whole, after reading it (and its libraries)
    local size
    size=$(stat -c %s /etc/passwd)
    read -r _ r w < <(grep '^ *cat ' load.out)
    (( w >= 5 * size && w % size == 0 && r > w ))
    # blkstat: the direct reads and writes to nullb0, each completed in full
    [[ $(sed -n 1p blkstat.out) == "DEVICE     RW        REQS        BYTES      AVG         DONE" ]]
    [[ $(grep '^nullb0 ' blkstat.out | sort) == \
"nullb0     READ         6        24576     4096        24576
nullb0     WRITE        3        24576     8192        24576" ]]
}
