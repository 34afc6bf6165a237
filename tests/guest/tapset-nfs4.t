# tapset nfs.fop/proc.* and nfsd.* on a loopback NFSv4.2 mount: the nfsv4/nfsd4 branches of the aliases with known writes, reads, lookup, rename, remove
# Used by tests/run (issue 15): tapset/linux/nfs.stp, nfs_proc.stp, nfsd.stp (nfsv4 and nfsd4_* DWARF probes).

timeout_s=150
btf_rerun=1

build() {
    source "$TOP/tests/guest/scripts/nfs/nfs-server.sh"
    nfs_need fs/nfs/nfs.ko fs/nfs/nfsv3.ko fs/nfs/nfsv4.ko fs/nfsd/nfsd.ko
    $STAP -p4 -m t_nfs4 "$TOP/tests/guest/scripts/nfs/nfs-vars.stp" >/dev/null
    # 3 x 8 KiB written and fsynced; a buffered read of the whole file on a fresh mount; a lookup of
    # a missing name; rename; unlink
    cat >workload.sh <<'WL'
M=/run/nfsmnt
dd if=/dev/zero of=$M/stp-nfs.dat bs=8192 count=3 conv=fsync 2>/dev/null
stat -c %i $M/stp-nfs.dat >ino.out
nfs_remount
dd if=$M/stp-nfs.dat of=/dev/null bs=8192 2>/dev/null
stat $M/stp-nfs-none >/dev/null 2>&1 || true
mv $M/stp-nfs.dat $M/stp-nfs.new
rm $M/stp-nfs.new
WL
}

guest() {
    source "$TOP/tests/guest/scripts/nfs/nfs-server.sh"
    nfs_up 4.2
    mountpoint -d /run/nfsmnt >dev.out
    local rc=0
    export -f nfs_remount; export NFS_MOUNT_OPTS NFS_EXPORT
    staprun -c "bash workload.sh" t_nfs4.ko >nfs.out || rc=$?
    nfs_down >/dev/null 2>&1
    return $rc
}

check() {
    [[ $(cat rc) == 0 ]]
    local dev ino o
    dev=$(cat dev.out) ino=$(cat ino.out)
    [[ $ino =~ ^[0-9]+$ ]]
    # client (nfs4_file_open; the generic read/write paths; the nfs4_proc_* RPC setups)
    grep -qx "fop.open stp-nfs.dat $dev $ino 0:${dev#*:} flag=1 size=0" nfs.out
    grep -qE "^fop.open stp-nfs.dat [0-9]+:[0-9]+ $ino [0-9]+:[0-9]+ flag=0 size=24576\$" nfs.out
    for o in 0 8192 16384; do
        grep -qx "fop.write_iter stp-nfs.dat $dev $ino pos=$o count=8192" nfs.out
        grep -qx "nfs.proc.write_setup 127.0.0.1 6 4 $ino count=8192 offset=$o" nfs.out
        grep -qx "nfs.proc.write 127.0.0.1 6 4 $ino count=8192 offset=$o" nfs.out
        grep -qx "nfs.proc.read_setup 127.0.0.1 6 4 $ino count=8192 offset=$o" nfs.out
        grep -qx "nfsd.write 127.0.0.1 count=8192 offset=$o stable=0" nfs.out
        grep -qx "nfsd.read 127.0.0.1 count=8192 offset=$o vlen=0" nfs.out
    done
    [[ $(grep -c "^nfs.proc.write_done 127.0.0.1 6 4 $ino status=8192 count=8192\$" nfs.out) == 3 ]]
    [[ $(grep -c "^nfs.proc.read_done 127.0.0.1 6 4 $ino status=8192 count=8192\$" nfs.out) == 3 ]]
    grep -qx "nfs.proc.commit_setup 127.0.0.1 6 4 $ino count=0 offset=0" nfs.out
    grep -qx "nfs.proc.commit_done $ino status=0" nfs.out
    grep -qx "nfsd.commit 127.0.0.1 count=0 offset=0" nfs.out
    grep -qx "fop.fsync.return 0" nfs.out
    grep -qx "proc.lookup 127.0.0.1 6 4 stp-nfs-none 12" nfs.out
    grep -qx "nfsd.lookup 127.0.0.1 stp-nfs-none 12" nfs.out
    grep -qx "proc.rename 127.0.0.1 6 4 stp-nfs.dat 11 stp-nfs.new 11 1" nfs.out
    grep -qx "proc.rename_done 127.0.0.1 status=0" nfs.out
    grep -qx "nfsd.rename 127.0.0.1 stp-nfs.dat 11 stp-nfs.new 11 fhs=1" nfs.out
    grep -qx "proc.remove 127.0.0.1 6 4 stp-nfs.new 11" nfs.out
    grep -qx "nfsd.unlink 127.0.0.1 stp-nfs.new 11 type=0" nfs.out
    # every NFSv4 request is a COMPOUND (procedure 1); none of the NFSv3 procedures ran
    grep -qE "^proc 127.0.0.1 6 4 100003 1 x[0-9]+\$" nfs.out
    not grep -q "^proc 127.0.0.1 6 3 " nfs.out
    not grep -q "^nfsd.proc" nfs.out
    # NFSv4 requests are COMPOUNDs (nfsd.proc.compound, which nfsd.proc.entries leaves out as SystemTap's), no NFSv3 procedure
    grep -qx "compounds 1" nfs.out
    grep -qx "ret nfsd.proc.compound.return 4 0 NFS_OK" nfs.out
    not grep -q "^ret nfsd.proc.[a-z]*.return 3 " nfs.out
    grep -qx "rqst_addr 1 0" nfs.out
    grep -qx "nret nfsd.lookup 2" nfs.out
    grep -qx "nret nfsd.rename 0" nfs.out
    grep -qx "nret nfsd.unlink 0" nfs.out
    grep -qx "xid_zero 0" nfs.out
}
