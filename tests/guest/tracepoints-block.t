# kernel.trace("block:block_rq_*"): $rq members ($rq->__sector, __data_len, the disk's name) under direct I/O to null_blk
# Used by tests/run (issue 14): DWARF-typed tracepoint arguments read through struct request, block_rq_complete's $nr_bytes.

timeout_s=120
btf_rerun=1

build() {
    need_kernel_dwarf
    need_kmod drivers/block/null_blk/null_blk
    # each request dd issues to nullb0: its first sector and length; each completion: its bytes
    $STAP -p4 -m t_tpblock -e '
probe kernel.trace("block:block_rq_issue") {
    if (kernel_string($rq->q->disk->disk_name) == "nullb0" && execname() == "dd")
        printf("issue %d %d\n", $rq->__sector, $rq->__data_len)
}
probe kernel.trace("block:block_rq_complete") {
    if (kernel_string($rq->q->disk->disk_name) == "nullb0")
        printf("complete %d %d %d\n", $rq->__sector, $nr_bytes, $error)
}' >/dev/null
}

guest() {
    modprobe null_blk nr_devices=1 gb=1 bs=4096
    [[ -b /dev/nullb0 ]]
    # 8 reads of 4096 bytes from byte 409600 (sector 800), bypassing the page cache
    staprun -c 'dd if=/dev/nullb0 of=/dev/null bs=4096 count=8 skip=100 iflag=direct' t_tpblock.ko >block.out
    rmmod null_blk
}

check() {
    [[ $(cat rc) == 0 ]]
    local want
    # sectors 800, 808 ... 856: one issued request and one completion of 4096 bytes each
    want=$(for s in 800 808 816 824 832 840 848 856; do echo "issue $s 4096"; done)
    [[ $(grep '^issue ' block.out) == "$want" ]]
    want=$(for s in 800 808 816 824 832 840 848 856; do echo "complete $s 4096 0"; done)
    [[ $(grep '^complete ' block.out) == "$want" ]]
}
