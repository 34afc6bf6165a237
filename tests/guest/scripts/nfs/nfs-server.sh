# nfs-server.sh - bash functions: a loopback NFS server exporting a tmpfs, mounted at /run/nfsmnt, and its teardown.
# Sourced by tests/guest/tapset-nfs.t (NFSv3) and tapset-nfs4.t (NFSv4.2), nfs_need in build(); the guest's root is read-only.

# nfs_need MODULE.ko...: in build(), skip the case (exit 77, saying why) without the kernel's DWARF, these
# modules' debuginfo (paths below kernel/; in a rerun typed from BTF, FROM_BTF, the modules) or the NFS server and
# client programs.
nfs_need() {
    need_kernel_dwarf
    local m
    for m in "$@"; do
        [[ -z ${FROM_BTF:-} ]] || { need_kmod "${m%.ko}"; continue; }
        [[ -e /usr/lib/debug/lib/modules/$KVER/kernel/$m ]] ||
            { echo "no $m debuginfo under /usr/lib/debug/lib/modules/$KVER (make deps)"; exit 77; }
    done
    for m in exportfs rpc.nfsd rpc.mountd rpcbind mount.nfs; do
        PATH=$PATH:/usr/sbin:/sbin command -v $m >/dev/null || { echo "no $m (make deps: nfs-kernel-server, nfs-common, rpcbind)"; exit 77; }
    done
}

NFS_MOUNT_OPTS="proto=tcp,rsize=8192,wsize=8192"

# nfs_up VERS: the server (v3 only, or v3 and v4 for VERS 4.x) and the mount at /run/nfsmnt with
# vers=VERS; rsize = wsize = 8 KiB so that a 24 KiB file moves in 3 RPCs each way. NFSv3 mounts
# with nolock (no statd/lockd upcalls); NFSv4's grace period is ended at once (no client has
# state to reclaim), so that the first OPEN is not refused with NFS4ERR_GRACE.
nfs_up() {
    local vers=$1
    ip link set lo up
    mount -t tmpfs nfslib /var/lib/nfs
    : >/var/lib/nfs/etab; : >/var/lib/nfs/rmtab; : >/var/lib/nfs/xtab
    mkdir -p /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /run/rpcbind /run/nfsexp /run/nfsmnt
    mount -t tmpfs nfsexp /run/nfsexp
    modprobe nfsd; modprobe nfs; modprobe nfsv3
    mount -t nfsd nfsd /proc/fs/nfsd
    rpcbind -w
    # fsid=: tmpfs has no UUID to build file handles from. For NFSv4 the export is the pseudo root
    # (fsid=0, mounted as "/"): the guest's / and /run (9p, tmpfs) cannot make the pseudo file
    # system leading to it
    if [[ $vers == 3 ]]; then
        exportfs -o rw,no_root_squash,insecure,fsid=77,no_subtree_check 127.0.0.1:/run/nfsexp
        NFS_EXPORT=/run/nfsexp
    else
        exportfs -o rw,no_root_squash,insecure,fsid=0,no_subtree_check 127.0.0.1:/run/nfsexp
        NFS_EXPORT=/
    fi
    if [[ $vers == 3 ]]; then
        rpc.mountd --no-nfs-version 4
        rpc.nfsd --no-nfs-version 4 2
        NFS_MOUNT_OPTS+=",vers=3,nolock"
    else
        modprobe nfsv4
        rpc.mountd
        rpc.nfsd 2
        echo Y >/proc/fs/nfsd/v4_end_grace
        NFS_MOUNT_OPTS+=",vers=$vers"
    fi
    timeout 60 mount -t nfs -o "$NFS_MOUNT_OPTS" 127.0.0.1:$NFS_EXPORT /run/nfsmnt
}

# nfs_remount: a fresh mount (its page cache empty)
nfs_remount() {
    umount /run/nfsmnt
    mount -t nfs -o "$NFS_MOUNT_OPTS" 127.0.0.1:$NFS_EXPORT /run/nfsmnt
}

nfs_down() {
    umount /run/nfsmnt || true
    rpc.nfsd 0 || true
    exportfs -ua || true
    pkill -x rpc.mountd || true
    pkill -x rpcbind || true
    umount /proc/fs/nfsd /run/nfsexp /var/lib/nfs || true
}
