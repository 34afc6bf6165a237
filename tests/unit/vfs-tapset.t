# the vfs, ioblock and ioscheduler tapsets in pass 2: each alias resolves on the kernel with
# the documented variables and types (stap -L), the device and path functions' signatures.
# Used by tests/run (issue 15).
cost_s=12

# ALIAS then its variables as stap -L prints them, sorted (the documented lists of the tapset files)
vfs_rw='dev:long devname:string file:long ino:long name:string pos:long'
vfs_ret='error:long error_str:string ret:long retstr:string'
blk='devname:string flags:long hw_segments:long idx:long ino:long name:string opf:long phys_segments:long rw:long vcnt:long'
blk_req="$blk bdev:long bdev_contains:long p_start_sect:long sector:long size:long"
blk_end="$blk bytes_done:long error:long sector:long size:long"
rq='disk_major:long disk_minor:long elevator_name:string name:string q:long rq:long rq_flags:long'
aliases=(
    "vfs.read|$vfs_rw argstr:string buf:long bytes_to_read:long"
    "vfs.read.return|$vfs_rw $vfs_ret buf:long bytes_read:long bytes_to_read:long"
    "vfs.write|$vfs_rw argstr:string buf:long bytes_to_write:long"
    "vfs.write.return|$vfs_rw $vfs_ret buf:long bytes_to_write:long bytes_written:long"
    "vfs.readv|$vfs_rw argstr:string bytes_to_read:long vec:long vlen:long"
    "vfs.readv.return|$vfs_rw $vfs_ret bytes_read:long bytes_to_read:long vec:long vlen:long"
    "vfs.writev|$vfs_rw argstr:string bytes_to_write:long vec:long vlen:long"
    "vfs.writev.return|$vfs_rw $vfs_ret bytes_to_write:long bytes_written:long vec:long vlen:long"
    "vfs.open|argstr:string dentry:long dev:long devname:string file:long filename:string ino:long name:string path:long"
    "vfs.open.return|$vfs_ret dentry:long dev:long devname:string file:long filename:string ino:long name:string path:long"
    "ioblock.request|$blk_req"
    "ioblock.end|$blk_end"
    "ioblock_trace.request|$blk_req q:long"
    "ioblock_trace.bounce|$blk_req q:long"
    "ioblock_trace.end|$blk_end q:long"
    "ioscheduler.elv_add_request|$rq"
    "ioscheduler.elv_add_request.tp|$rq"
    "ioscheduler.elv_add_request.kp|$rq"
    "ioscheduler.elv_completed_request|$rq"
    "ioscheduler_trace.elv_issue_request|$rq"
    "ioscheduler_trace.elv_completed_request|$rq"
    "ioscheduler_trace.elv_requeue_request|$rq"
    "ioscheduler_trace.plug|name:string rq_queue:long"
    "ioscheduler_trace.unplug_io|depth:long explicit:long name:string rq_queue:long"
)
signatures=(
    'MAJOR:long (dev:long)'
    'MINOR:long (dev:long)'
    'MKDEV:long (major:long, minor:long)'
    'usrdev2kerndev:long (dev:long)'
    'bdevname:string (bdev:long)'
    'bio_rw_num:long (rw:long)'
    'bio_rw_str:string (rw:long)'
    'task_dentry_path:string (task:long, dentry:long, vfsmnt:long)'
    'fullpath_struct_file:string (task:long, file:long)'
    'd_path:string (nd:long)'
    'real_mount:long (vfsmnt:long)'
    'inode_name:string (inode:long)'
)

run() {
    need_kernel_dwarf
    tapset_listing_matches
    # the constants and conversions, run in pass 2 only: folded values are checked by the guest tests
    $STAP -r "$KVER" -p2 -e 'probe begin { printf("%d %d %d %d %d\n", MAJOR(MKDEV(259, 3)), MINOR(MKDEV(259, 3)),
        usrdev2kerndev(0x803), BIO_READ, BIO_WRITE) }' >p2.out
}
