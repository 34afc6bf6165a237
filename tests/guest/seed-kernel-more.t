# seed corpus, more kernel-side scripts: 004 (syscall.*stat), 007 (array overflow), 010 (timer counter), 023 (guru embedded C, THIS->__retvalue), 045/046/060 (ioblock), 066 (irq_handler), 083 (fork/exec timing), 084 (vm.pagefault), 086/087 (vfs, ioblock, scsi), 090-092 (syscall.read fd) as their INDEX.md rows describe; 015 translates
# Used by tests/run (issue 15). The corpus lives beside the repository (SEED_CORPUS, default TOP/../shared/seed-scripts);
# without it, or without the kernel's DWARF, the case is skipped.

timeout_s=240
btf_rerun=1

build() {
    seed_need 004 007 010 015 023 045 046 060 066 083 084 086 087 090 091 092
    [[ -n ${FROM_BTF:-} || -n $(find "/usr/lib/debug/lib/modules/$KVER" -name scsi_mod.ko 2>/dev/null) ]] ||
        { echo "no scsi_mod debuginfo under /usr/lib/debug/lib/modules/$KVER (make deps)"; exit 77; }
    cc -O2 -Wall -Wextra -Werror -o statmiss "$TOP/tests/guest/scripts/seed/statmiss.c"
    local n
    for n in 004 007 010 015 045 046 060 083 084 086 087 090; do
        spawn $STAP -p4 -m "seed_$n" "$(seed_file $n)" >/dev/null
    done
    spawn $STAP -g -p4 -m seed_023 "$(seed_file 023)" >/dev/null
    spawn $STAP --all-modules -p4 -m seed_066 "$(seed_file 066)" >/dev/null
    spawn $STAP -p4 -m seed_091 "$(seed_file 091)" 0 >/dev/null
    spawn $STAP -p4 -m seed_092 "$(seed_file 092)" cat >/dev/null
    wait_jobs
}

guest() {
    seed_run 004 ./statmiss
    # 007 fills its array every millisecond until MAXMAPENTRIES stops the run
    local rc=0
    timeout 60 staprun seed_007.ko >007.out 2>007.err || rc=$?
    echo $rc >007.rc
    seed_run 010 'sleep 3.5'
    seed_run 023 'sleep 0.3'
    # 066: reads over 9p (the root file system) interrupt through virtio
    seed_run 066 "sh -c 'cat /etc/passwd /etc/group >/dev/null; sleep 0.5'"
    seed_run 083 "sh -c '/bin/true a b; /bin/true c; sleep 1.5'"
    seed_run 084 "sh -c 'cat /etc/passwd >/dev/null; sleep 1.5'"
    seed_run 090 'cat /etc/passwd >/dev/null'
    seed_run 091 'taskset -c 0 cat /etc/passwd >/dev/null'
    seed_run 092 'cat /etc/passwd >/dev/null'
    # block I/O: direct reads of null_blk; writes to and reads of ext2 on a scsi_debug disk
    modprobe null_blk nr_devices=1 gb=1 bs=4096
    local io="dd if=/dev/nullb0 of=/dev/null bs=4096 count=8 skip=100 iflag=direct status=none; sleep 1.5"
    seed_run 045 "sh -c '$io'"
    seed_run 046 "sh -c '$io'"
    seed_run 060 "dd if=/dev/nullb0 of=/dev/null bs=4096 count=3 skip=300 iflag=direct status=none"
    rmmod null_blk
    modprobe sd_mod
    modprobe scsi_debug dev_size_mb=16
    local dev="" i
    for i in $(seq 50); do
        dev=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter0/host*/target*/*:*:*:*/block 2>/dev/null | head -n 1 || true)
        [[ -n $dev && -b /dev/$dev ]] && break
        nap 0.2
    done
    echo "$dev" >scsidev.out
    modprobe ext4
    mkfs.ext2 -q -F /dev/$dev
    mkdir -p /tmp/seedmnt
    mount -t ext2 /dev/$dev /tmp/seedmnt
    seed_run 086 "sh -c 'dd if=/dev/zero of=/tmp/seedmnt/f bs=65536 count=4 conv=fsync status=none; sleep 1.5'"
    echo 3 >/proc/sys/vm/drop_caches
    seed_run 087 "sh -c 'cat /tmp/seedmnt/f >/dev/null; sleep 1.5'"
    umount /tmp/seedmnt
    rmmod scsi_debug
}

check() {
    [[ $(cat rc) == 0 ]]
    local n pid dev
    for n in 004 010 023 045 046 060 066 083 084 086 087 090 091 092; do
        [[ $(cat $n.rc) == 0 ]] || { echo "seed $n: staprun exit $(cat $n.rc)"; cat $n.err; return 1; }
    done
    # 004: "<execname>(<pid>) <probefunc>(<args>) -> <ret> (<ERRNAME>)" for the failing stat and lstat
    pid=$(sed -n 's/^statmiss \([0-9]*\)$/\1/p' 004.out)
    grep -qx "statmiss($pid) __x64_sys_newstat(\"/nonexistent/seed-004\", 0x[0-9a-f]*) -> -2 (ENOENT)" 004.out ||
        grep -qE "^statmiss\\($pid\\) __x64_sys_newstat\\(\"/nonexistent/seed-004\", 0x[0-9a-f]+\\) -> -2 \\(ENOENT\\)$" 004.out
    grep -qE "^statmiss\\($pid\\) __x64_sys_newlstat\\(\"/nonexistent/seed-004\", 0x[0-9a-f]+\\) -> -2 \\(ENOENT\\)$" 004.out
    not grep -q "^statmiss($pid) __x64_sys_newfstat" 004.out
    # 007: the run stops with the array overflow error naming t
    [[ $(cat 007.rc) != 0 && $(cat 007.rc) != 124 ]]
    grep -q "ERROR: Array overflow, check MAXMAPENTRIES near identifier 't' at " 007.err
    # 010: 1, 2, 3, one a second
    [[ $(head -n 3 010.out | tr '\n' ' ') == "1 2 3 " ]]
    # 066: "PN HANDLER irq N dev NAME" for entries and exits; the virtio requests queue's among them
    not grep -vE '^irq_handler\.(entry|exit) +[^ ]+ irq [0-9]+ dev .+$' 066.out
    # (PREEMPT_RT: the hard irq's handler is irq_default_primary_handler, vring_interrupt runs in its thread)
    local h=vring_interrupt
    if kernel_is_rt; then h=irq_default_primary_handler; fi
    grep -qE "^irq_handler\.entry +$h irq [0-9]+ dev virtio[0-9]+-requests\$" 066.out
    grep -qE "^irq_handler\.exit +$h irq [0-9]+ dev virtio[0-9]+-requests\$" 066.out
    # 083: every second "COMMAND FORK POSTFORK EXEC PROC" and "<exec> <args> Nus Nus Nus Nus" rows: both trues
    grep -qE '^ {41}COMMAND +FORK POSTFORK +EXEC +PROC$' 083.out
    [[ $(grep -cE '^ +true +.* +-?[0-9]+us +-?[0-9]+us +-?[0-9]+us +-?[0-9]+us$' 083.out) -ge 2 ]]
    # 084: every second "  FAULTS VMFILE" and "<count> <file>" rows: cat's faults in libc among them
    grep -qx '  FAULTS VMFILE' 084.out
    not grep -vE '^ *[0-9]+ [^ ]+$|^  FAULTS VMFILE$' 084.out
    grep -qE '^ *[0-9]+ libc\.so\.6$' 084.out
    # 023: "The time is N jiffies" every 400 us, N never going back
    not grep -vxE 'The time is [0-9]+ jiffies' 023.out
    (( $(wc -l <023.out) >= 10 ))
    sort -c -n -k4 023.out
    # 090: one fd per read of every process: numbers only, cat's file among them
    not grep -vxE '[0-9]+' 090.out
    grep -qx 3 090.out
    # 091: only reads on CPU 0 (cat pinned there reads fd 3), 092: only cat's reads (fd 3 and 0... as it does)
    not grep -vxE '[0-9]+' 091.out
    grep -qx 3 091.out
    not grep -vxE '[0-9]+' 092.out
    grep -qx 3 092.out
    # 045: every second "<devname> <bytes>": nullb0 read 8 x 4096 bytes in the first second
    grep -qE '^  nullb0 32768$' 045.out
    # 046: "      DEVICE   ASVC_T <date>" headers, then "<dev> <avg us>" rows, nullb0 among them
    grep -qE '^      DEVICE   ASVC_T (Mon|Tue|Wed|Thu|Fri|Sat|Sun) ' 046.out
    grep -qE '^      nullb0 +[0-9]+$' 046.out
    # 060: "io dev: nullb0 inode: -1 blkno: N count: 4096" for the 3 direct reads from sector 2400 on
    [[ $(grep nullb0 060.out) == "io dev: nullb0 inode: -1 blkno: 2400 count: 4096 
io dev: nullb0 inode: -1 blkno: 2408 count: 4096 
io dev: nullb0 inode: -1 blkno: 2416 count: 4096 " ]]
    # 086: "        BDEV VFS KB/s BDEV KB/s" headers, the scsi disk's 256 KB written through the VFS and to it
    dev=$(cat scsidev.out)
    grep -qx '        BDEV VFS KB/s BDEV KB/s' 086.out
    awk -v d="$dev" '$1 == d {v += $2; b += $3} END {exit !(v == 256 && b >= 256)}' 086.out
    # 087: "        BDEV VFS OP/s BDEV OP/s SCSI OP/s": cat's reads reached the disk through the SCSI layer
    grep -qx '        BDEV VFS OP/s BDEV OP/s SCSI OP/s' 087.out
    awk -v d="$dev" '$1 == d {v += $2; b += $3; s += $4} END {exit !(v >= 1 && b >= 1 && s >= 1)}' 087.out
}
