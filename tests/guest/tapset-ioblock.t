# tapset ioblock.*, ioblock_trace.*, ioscheduler.*: direct I/O to null_blk (sectors, sizes, READ/WRITE) and a buffered file read on ext2 on brd (ino),
# by the module and, the same workload again, by the same script as a BPF object (stap --runtime=bpf)
# Used by tests/run (issue 15, 48): tapset/linux/ioblock.stp, ioscheduler.stp, dev.stp (bdevname).

timeout_s=90
btf_rerun=1

build() {
    need_kernel_dwarf
    need_kmod drivers/block/null_blk/null_blk
    need_kmod drivers/block/brd
    command -v mkfs.ext2 >/dev/null || { echo "no mkfs.ext2 (e2fsprogs)"; exit 77; }
    $STAP -p4 -m t_iob "$TOP/tests/guest/scripts/io/ioblock-vars.stp" >/dev/null
    $STAP --runtime=bpf -p4 -m t_iob "$TOP/tests/guest/scripts/io/ioblock-vars.stp" >/dev/null
}

# workload OBJECT OUT: the I/O below under staprun OBJECT, its output into OUT (stderr OUT.err), nullb0's scheduler none
# at the start and the page cache dropped
workload() {
    echo none >/sys/block/nullb0/queue/scheduler
    sync
    echo 3 >/proc/sys/vm/drop_caches
    # 4 direct reads of 4096 bytes from sector 800, 2 direct writes to sector 400; then the file, through the page
    # cache; then a direct read from sector 1600 through the mq-deadline scheduler
    staprun -c "sh -c 'dd if=/dev/nullb0 of=/dev/null bs=4096 count=4 skip=100 iflag=direct 2>/dev/null;
        dd if=/dev/zero of=/dev/nullb0 bs=4096 count=2 seek=50 oflag=direct 2>/dev/null; cat /tmp/iobmnt/data >/dev/null;
        echo mq-deadline >/sys/block/nullb0/queue/scheduler; dd if=/dev/nullb0 of=/dev/null bs=4096 count=1 skip=200 iflag=direct 2>/dev/null'" "$1" >"$2" 2>"$2.err"
}

guest() {
    modprobe null_blk nr_devices=1 gb=1 bs=4096
    [[ -b /dev/nullb0 ]]
    cat /sys/block/nullb0/dev >nulldev.out
    cat /sys/block/nullb0/queue/scheduler >sched.out
    modprobe brd rd_nr=1 rd_size=4096
    modprobe ext4
    mkfs.ext2 -q -F -b 1024 /dev/ram0
    mkdir -p /tmp/iobmnt
    mount -t ext2 /dev/ram0 /tmp/iobmnt
    dd if=/dev/zero of=/tmp/iobmnt/data bs=10000 count=1 2>/dev/null
    sync
    echo 3 >/proc/sys/vm/drop_caches
    stat -c '%i' /tmp/iobmnt/data >ino.out
    workload t_iob.ko iob.out
    workload t_iob.bo iobb.out || echo $? >bpf.rc
    umount /tmp/iobmnt
    rmmod brd null_blk
}

# What ioblock-vars.stp prints for dd's direct I/O to nullb0 (no page cache: ino -1; one page each). The bio's
# flags & 1 is BIO_NO_PAGE_REF before 6.5 (clear for dd's pages), BIO_PAGE_PINNED from 6.5 on (dd's pinned pages).
want_nullb() {
    local major=$1 s p=0
    [[ $(printf '%s\n' 6.5 "${KVER%%[-+]*}" | sort -V | head -n 1) != 6.5 ]] || p=1
    for s in 800 808 816 824; do
        echo "ioblock.request dd nullb0 -1 $s 4096 READ 0 1 0 0 1 $p -1"
        echo "ioblock_trace.request dd nullb0 -1 $s 4096 READ 0 1 0 0 1 $p -1"
        echo "elv_issue_request none $major 0 READ $s"
        echo "elv_completed_request none $major 0 READ $s"
        echo "ioblock.end nullb0 -1 $s 4096 4096 0 0 1"
    done
    for s in 400 408; do
        echo "ioblock.request dd nullb0 -1 $s 4096 WRITE 1 1 0 0 1 $p -1"
        echo "ioblock_trace.request dd nullb0 -1 $s 4096 WRITE 1 1 0 0 1 $p -1"
        echo "elv_add_request none $major 0 WRITE $s"
        echo "elv_issue_request none $major 0 WRITE $s"
        echo "elv_completed_request none $major 0 WRITE $s"
        echo "ioblock.end nullb0 -1 $s 4096 4096 0 1 1"
    done
    echo "ioblock.request dd nullb0 -1 1600 4096 READ 0 1 0 0 1 $p -1"
    echo "ioblock_trace.request dd nullb0 -1 1600 4096 READ 0 1 0 0 1 $p -1"
    echo "elv_add_request mq-deadline $major 0 READ 1600"
    echo "elv_issue_request mq-deadline $major 0 READ 1600"
    echo "elv_completed_request mq-deadline $major 0 READ 1600"
    echo "ioblock.end nullb0 -1 1600 4096 4096 0 0 1"
}

# check_run OUT: what one run printed
check_run() {
    local iob=$1
    want_nullb "$(cut -d: -f1 nulldev.out)" >want.out
    grep -E 'nullb0|^elv_' $iob >got.out
    # 6.12 issues dd's direct writes to a queue without a scheduler at once, never inserting them (no
    # block_rq_insert: no ioscheduler.elv_add_request)
    if [[ $(printf '%s\n' 6.12 "${KVER%%[-+]*}" | sort -V | head -n 1) == 6.12 ]]; then
        sed -i '/^elv_add_request none .* WRITE /d' want.out
    fi
    diff want.out got.out
    # cat's read of the 10000-byte file: the 10 1 KiB blocks of ext2 in one bio carrying its inode's 3 pages
    # (in 1 to 3 bio_vecs: physically adjacent pages share one)
    local ino sector
    ino=$(cat ino.out)
    sector=$(sed -n "s/^ioblock\.request cat ram0 $ino \([0-9]*\) 10240 READ 0 [123] 0 0 1 0 -1$/\1/p" $iob)
    [[ $sector == [1-9]* ]]
    grep -q "^ioblock_trace\.request cat ram0 $ino $sector 10240 READ 0 [123] 0 0 1 0 -1$" $iob
    grep -q "^ioblock\.end ram0 $ino $sector 10240 10240 0 0 [123]$" $iob
    grep -q "^ioblock_trace\.end ram0 $ino $sector 10240 10240 0 0 [123]$" $iob
    local major
    major=$(cut -d: -f1 nulldev.out)
    if [[ $(printf '%s\n' 6.12 "${KVER%%[-+]*}" | sort -V | head -n 1) != 6.12 ]]; then
        grep -qx 'plug fired 2' $iob
        grep -qx 'unplug_io fired 2' $iob
        # the insertions: the plugged writes (tracepoint only), the read through mq-deadline (both)
        [[ $(grep '^ioscheduler\.elv_add_request\.' $iob | sort) == \
"ioscheduler.elv_add_request.kp elv_add_request READ $major fired 1
ioscheduler.elv_add_request.tp elv_add_request READ $major fired 1
ioscheduler.elv_add_request.tp elv_add_request WRITE $major fired 2" ]]
    else
        # 6.12 plugs dd's reads too (each plug unplugged), issues the writes without inserting them, and hands
        # the plugged read to mq-deadline in a list (blk_mq_dispatch_list), not through blk_mq_insert_request:
        # elv_add_request.kp (a kprobe there) misses it, the tracepoint does not
        local p
        p=$(sed -n 's/^plug fired //p' $iob)
        (( p >= 2 )) && grep -qx "unplug_io fired $p" $iob
        [[ $(grep '^ioscheduler\.elv_add_request\.' $iob | sort) == \
"ioscheduler.elv_add_request.tp elv_add_request READ $major fired 1" ]]
    fi
}

check() {
    [[ $(cat rc) == 0 && ! -e bpf.rc ]] || { cat iobb.out.err; false; }
    grep -q '^\[none\]' sched.out
    check_run iob.out
    check_run iobb.out
}
