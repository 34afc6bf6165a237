# tapset nfs.fop/aop/proc.* and nfsd(.proc).*: known writes, reads, a lookup, a rename and removes on a loopback NFSv3 mount
# Used by tests/run (issue 15, 31): tapset/linux/nfs.stp, nfs_proc.stp, nfsd.stp, rpc.stp (DWARF probes in nfs, nfsv3, nfsd), and nfs's
# nfs_fsync_exit tracepoint (typed from nfs's BTF in the btf/ rerun).

timeout_s=150
btf_rerun=1

build() {
    source "$TOP/tests/guest/scripts/nfs/nfs-server.sh"
    nfs_need fs/nfs/nfs.ko fs/nfs/nfsv3.ko fs/nfsd/nfsd.ko
    gcc -O1 -Wall -o nfsmap "$TOP/tests/guest/scripts/nfs/nfsmap.c"
    # nfsd.read's vlen: the kvecs nfsd_read fills (6.1); 6.12's reads into the request's own and has none (0)
    if $STAP -L 'module("nfsd").function("nfsd_read")' | grep -q ' \$vlen:'; then echo ok; else echo 0; fi >vlen.want
    $STAP -p4 -m t_nfs "$TOP/tests/guest/scripts/nfs/nfs-vars.stp" >/dev/null
    # the workload: 3 x 8 KiB written and fsynced, a 4 KiB O_DIRECT read at 8 KiB, a buffered read of
    # the whole file on a fresh mount (unlike drop_caches, which keeps pages still in a per-CPU LRU
    # batch, an unmount empties the page cache for sure), a lookup of a missing name, rename, unlink,
    # mkdir, rmdir; then nfsmap: a sparse 3-page file, fcntl F_SETFL O_APPEND and F_SETLK (a write lock
    # on its first 4 KiB), lseek to 4 KiB, a read fault on page 1 of a MADV_RANDOM mapping (read_folio)
    cat >workload.sh <<'WL'
M=/run/nfsmnt
dd if=/dev/zero of=$M/stp-nfs.dat bs=8192 count=3 conv=fsync 2>/dev/null
stat -c %i $M/stp-nfs.dat >ino.out
dd if=$M/stp-nfs.dat of=/dev/null bs=4096 count=1 skip=2 iflag=direct 2>/dev/null
nfs_remount
mountpoint -d $M >dev2.out
dd if=$M/stp-nfs.dat of=/dev/null bs=8192 2>/dev/null
stat $M/stp-nfs-none >/dev/null 2>&1 || true
mv $M/stp-nfs.dat $M/stp-nfs.new
rm $M/stp-nfs.new
mkdir $M/stp-nfs.dir
rmdir $M/stp-nfs.dir
./nfsmap $M/stp-nfs.map
WL
}

guest() {
    source "$TOP/tests/guest/scripts/nfs/nfs-server.sh"
    nfs_up 3
    mountpoint -d /run/nfsmnt >dev.out
    local rc=0
    export -f nfs_remount; export NFS_MOUNT_OPTS NFS_EXPORT
    staprun -c "bash workload.sh" t_nfs.ko >nfs.out || rc=$?
    nfs_down >/dev/null 2>&1
    return $rc
}

check() {
    [[ $(cat rc) == 0 ]]
    local dev dev2 ino
    dev=$(cat dev.out) dev2=$(cat dev2.out) ino=$(cat ino.out)
    local vl
    vl=$(cat vlen.want)
    [[ $ino =~ ^[0-9]+$ ]]
    # client: file operations
    grep -qx "fop.open stp-nfs.dat $dev $ino 0:${dev#*:} flag=1 size=0" nfs.out
    grep -qx "fop.write_iter stp-nfs.dat $dev $ino pos=0 count=8192" nfs.out
    grep -qx "fop.write_iter stp-nfs.dat $dev $ino pos=8192 count=8192" nfs.out
    grep -qx "fop.write_iter stp-nfs.dat $dev $ino pos=16384 count=8192" nfs.out
    [[ $(grep -c '^fop.write_iter ' nfs.out) == 3 ]]
    grep -qx "fop.fsync stp-nfs.dat $ino datasync=0" nfs.out
    [[ $(grep -c '^trace.nfs_fsync_exit ' nfs.out) == 1 ]] && grep -qx "trace.nfs_fsync_exit $ino error=0" nfs.out
    grep -qx "fop.fsync.return 0" nfs.out
    grep -qx "fop.open stp-nfs.dat $dev $ino 0:${dev#*:} flag=0 size=24576" nfs.out
    grep -qx "fop.open stp-nfs.dat $dev2 $ino 0:${dev2#*:} flag=0 size=24576" nfs.out
    grep -qx "fop.llseek 8192 SEEK_CUR" nfs.out
    grep -qx "fop.read_iter stp-nfs.dat $dev $ino pos=8192 count=4096 parent=/" nfs.out
    grep -qx "fop.read_iter stp-nfs.dat $dev2 $ino pos=0 count=8192 parent=/" nfs.out
    grep -qx "fop.read_iter stp-nfs.dat $dev2 $ino pos=16384 count=8192 parent=/" nfs.out
    grep -qx "fop.read_iter stp-nfs.dat $dev2 $ino pos=24576 count=8192 parent=/" nfs.out
    grep -qx "fop.read_iter.return 4096 dd" nfs.out
    grep -qx "fop.read_iter.return 0 dd" nfs.out
    [[ $(grep -c "^fop.release stp-nfs.dat $ino\$" nfs.out) == 3 ]]
    grep -qx "fop.flush $ino" nfs.out
    # client: page cache (the 24 KiB written page by page, each in full: 6 pages of 4 KiB on 6.1; 6.12's NFS takes
    # dd's 8 KiB writes into large folios, 3 of 8 KiB)
    local b
    b=$(awk -v ino="$ino" '$1 == "aop.write_begin" && $2 == ino && $3 ~ /^page=[0-5]$/ && $4 == "offset=0" &&
        $5 == "to=" substr($6, 6) { n++; s += substr($6, 6) } END { print n + 0, s + 0 }' nfs.out)
    [[ $b == "6 24576" || $b == "3 24576" ]] || { echo "write_begin: $b"; false; }
    [[ $(awk -v ino="$ino" '$1 == "aop.write_end" && $2 == ino && $3 ~ /^page=[0-5]$/ { n++; s += substr($4, 8) }
        END { print n + 0, s + 0 }' nfs.out) == "${b% *} 24576" ]]
    grep -qx "aop.writepages $ino wsize=8192 wpages=2" nfs.out
    grep -qE "^aop.readahead $ino index=0 nr_pages=[1-9][0-9]* rsize=8192\$" nfs.out
    # client: RPCs (3 writes of 8 KiB, unstable, then a commit; the direct read; the buffered reads)
    local o
    for o in 0 8192 16384; do
        grep -qx "nfs.proc.write_setup 127.0.0.1 6 3 $ino count=8192 offset=$o" nfs.out
        grep -qx "nfs.proc.write 127.0.0.1 6 3 $ino count=8192 offset=$o" nfs.out
        grep -qx "nfs.proc.read 127.0.0.1 6 3 $ino count=8192 offset=$o" nfs.out
        grep -qx "nfs.proc.read_setup 127.0.0.1 6 3 $ino count=8192 offset=$o" nfs.out
        grep -qx "nfsd.write 127.0.0.1 count=8192 offset=$o stable=0" nfs.out
        grep -qx "nfsd.proc.write 127.0.0.1 6 3 uid=0 gid=0 count=8192 offset=$o" nfs.out
        grep -qx "nfsd.read 127.0.0.1 count=8192 offset=$o vlen=$vl" nfs.out
        grep -qx "nfsd.proc.read 127.0.0.1 6 3 uid=0 gid=0 count=8192 offset=$o" nfs.out
    done
    [[ $(grep -c '^nfs.proc.write ' nfs.out) == 3 ]]
    [[ $(grep -c "^nfs.proc.write_done 127.0.0.1 6 3 $ino status=8192 count=8192\$" nfs.out) == 3 ]]
    [[ $(grep -c "^nfs.proc.read_done 127.0.0.1 6 3 $ino status=8192 count=8192\$" nfs.out) == 3 ]]
    grep -qx "nfs.proc.read 127.0.0.1 6 3 $ino count=4096 offset=8192" nfs.out
    grep -qx "nfs.proc.read_done 127.0.0.1 6 3 $ino status=4096 count=4096" nfs.out
    grep -qx "nfsd.read 127.0.0.1 count=4096 offset=8192 vlen=$vl" nfs.out
    grep -qx "nfs.proc.commit_setup 127.0.0.1 6 3 $ino count=0 offset=0" nfs.out
    grep -qx "nfs.proc.commit 127.0.0.1 6 3 $ino count=0 offset=0" nfs.out
    grep -qx "nfs.proc.commit_done $ino status=0" nfs.out
    grep -qx "nfsd.commit 127.0.0.1 count=0 offset=0" nfs.out
    grep -qx "nfsd.proc.commit 127.0.0.1 6 3 uid=0 gid=0 count=0 offset=0" nfs.out
    [[ $(grep -c '^nfsd.write ' nfs.out) == 3 ]]
    [[ $(grep -c '^nfsd.read.return 0$' nfs.out) -ge 4 ]]
    grep -qx "xid_zero 0" nfs.out
    [[ $(grep -c '^fop.write_iter.return 8192$' nfs.out) == 3 ]]
    [[ $(grep -c '^nfsd.write.return 0$' nfs.out) == 3 ]]
    grep -qx "fop.open.return 0" nfs.out
    not grep -q "^fop.open.return -" nfs.out
    grep -qx "fop.llseek.return 4096" nfs.out
    grep -qx "dispatch.return 1" nfs.out
    not grep -q "^dispatch.return [^1]" nfs.out
    # nfsd opens the file (its open-file cache) for writing (NFSD_MAY_WRITE 2) and reading (NFSD_MAY_READ 4)
    grep -qx "nfsd.open 127.0.0.1 access=2 type=0" nfs.out
    grep -qx "nfsd.open 127.0.0.1 access=4 type=0" nfs.out
    grep -qx "nfsd.close stp-nfs.dat" nfs.out
    # names: create, lookup, open/release contexts, rename, remove, mkdir/rmdir
    grep -qx "proc.create 127.0.0.1 6 3 stp-nfs.dat 11 mode=666" nfs.out
    grep -qx "nfsd.proc.create 127.0.0.1 6 3 uid=0 gid=0 stp-nfs.dat 11" nfs.out
    grep -qx "nfsd.createv3 127.0.0.1 stp-nfs.dat 11 mode=644 createmode=0" nfs.out
    grep -qx "proc.open 127.0.0.1 6 3 stp-nfs.dat" nfs.out
    grep -qx "proc.release 127.0.0.1 6 3 stp-nfs.dat" nfs.out
    grep -qx "proc.lookup 127.0.0.1 6 3 stp-nfs-none 12" nfs.out
    grep -qx "nfsd.proc.lookup 127.0.0.1 6 3 uid=0 gid=0 stp-nfs-none 12" nfs.out
    grep -qx "nfsd.lookup 127.0.0.1 stp-nfs-none 12" nfs.out
    grep -qx "proc.rename 127.0.0.1 6 3 stp-nfs.dat 11 stp-nfs.new 11 1" nfs.out
    grep -qx "proc.rename_done 127.0.0.1 status=0" nfs.out
    grep -qx "nfsd.proc.rename 127.0.0.1 6 3 uid=0 gid=0 stp-nfs.dat 11 stp-nfs.new 11" nfs.out
    grep -qx "nfsd.rename 127.0.0.1 stp-nfs.dat 11 stp-nfs.new 11 fhs=1" nfs.out
    grep -qx "proc.remove 127.0.0.1 6 3 stp-nfs.new 11" nfs.out
    grep -qx "nfsd.proc.remove 127.0.0.1 6 3 uid=0 gid=0 stp-nfs.new 11" nfs.out
    # nfsd.proc.entries and nfsd.proc.return (the replies' status through nfsderror), rpc.stp's addr_from_rqst*
    grep -qx "entries nfsd.proc.remove 127.0.0.1 stp-nfs.new" nfs.out
    grep -qx "entries nfsd.proc.rename 127.0.0.1 stp-nfs.dat stp-nfs.new" nfs.out
    grep -qx "ret nfsd.proc.lookup.return 3 2 NFSERR_NOENT" nfs.out
    grep -qx "ret nfsd.proc.lookup.return 3 0 NFS_OK" nfs.out
    grep -qx "ret nfsd.proc.remove.return 3 0 NFS_OK" nfs.out
    grep -qx "ret nfsd.proc.rename.return 3 0 NFS_OK" nfs.out
    grep -qx "ret nfsd.proc.write.return 3 0 NFS_OK" nfs.out
    grep -qx "ret nfsd.proc.read.return 3 0 NFS_OK" nfs.out
    grep -qx "ret nfsd.proc.commit.return 3 0 NFS_OK" nfs.out
    grep -qx "ret nfsd.proc.create.return 3 0 NFS_OK" nfs.out
    not grep -q "^ret nfsd.proc.compound" nfs.out
    grep -qx "compounds 0" nfs.out
    grep -qx "rqst_addr 1 0" nfs.out
    # nfsd.entries and nfsd.return: each of them seen, the lookup of the missing name failing (NOENT)
    local n
    for n in open close read write lookup commit create createv3 unlink rename; do
        grep -qx "nentry nfsd.$n" nfs.out
    done
    for n in open read write lookup commit create unlink rename; do
        grep -qx "nret nfsd.$n 0" nfs.out
    done
    grep -qx "nret nfsd.lookup 2" nfs.out
    grep -qx "nfsd.unlink 127.0.0.1 stp-nfs.new 11 type=-16384" nfs.out
    grep -qx "nfsd.create 127.0.0.1 stp-nfs.dir 11 type=16384" nfs.out
    grep -qx "nfsd.unlink 127.0.0.1 stp-nfs.dir 11 type=16384" nfs.out
    # nfsmap
    local mino
    mino=$(awk '$1 == "fop.open" && $2 == "stp-nfs.map" { print $4; exit }' nfs.out)
    [[ $mino =~ ^[0-9]+$ && $mino != "$ino" ]]
    grep -qx "fop.check_flags append=1" nfs.out
    grep -qx "fop.lock $mino cmd=6 type=1 start=0 end=4095" nfs.out
    grep -qx "fop.llseek.map 4096 SEEK_SET" nfs.out
    grep -qx "fop.mmap stp-nfs.map $mino len=12288 shared=1" nfs.out
    grep -qx "aop.read_folio $mino index=1 rsize=8192 size=1" nfs.out
    grep -qx "map.proc.read count=4096 offset=4096" nfs.out
    grep -qx "nfsd.read 127.0.0.1 count=4096 offset=4096 vlen=$vl" nfs.out
    # the NFSv3 procedures seen by nfsd.dispatch: LOOKUP 3, READ 6, WRITE 7, CREATE 8, MKDIR 9, REMOVE 12,
    # RMDIR 13, RENAME 14, COMMIT 21
    local p
    for p in "3 x[1-9]" "6 x[5-9]" "7 x3" "8 x2" "9 x1" "12 x1" "13 x1" "14 x1" "21 x1"; do
        grep -qxE "proc 127.0.0.1 6 3 100003 $p" nfs.out
    done
}
