#!/bin/busybox sh
# guest-init.sh - /init of the QEMU test guest's initramfs: mounts the host over 9p, runs a batch, powers off.
# Used by tests/lib/guest.sh, which copies it into build/guest/initramfs-KVER.cpio (rebuilt when this changes).
#
# Kernel command line (set by tests/lib/guest.sh):
#   stap.results=ABS   host directory shared writable (9p tag "results"), mounted at /host/ABS
#   stap.runner=ABS    host script run with bash in the chroot: `bash RUNNER BATCHFILE [off]`
#   stap.batch=ABS     host file listing the case directories to run
#   stap.timeouts=off  (optional) the runner applies no case timeouts (guest time is not real
#                      time under -icount sleep=off; the host's watchdog enforces them instead)

/bin/busybox --install -s /bin
export PATH=/bin

say() { echo "@@GUEST $*" >/dev/console; }

finish() {
    say "poweroff"
    sync
    poweroff -f
    sleep 10
}

param() {
    local kv
    for kv in $(cat /proc/cmdline); do
        case "$kv" in "$1="*) echo "${kv#*=}"; return;; esac
    done
}

load_modules() {
    local m
    for m in $(cat /modules.list); do
        insmod "/lib/modules/$m" || { say "insmod $m failed"; return 1; }
    done
}

ninep() {  # ninep TAG DIR [ro]
    mount -t 9p -o "trans=virtio,version=9p2000.L,msize=512000${3:+,$3}" "$1" "$2"
}

# The host root, read-only, with the guest's own proc/sys/dev/tmp on top so that host
# absolute paths (build/bin/staprun, bash, coreutils) work unchanged after chroot.
mount_host() {
    local results=$1
    mkdir -p /host
    # cache=loose: the guest keeps what it read of the host root (programs, libraries, the tree):
    # without it every exec reads its binary and libraries over 9p again, 0.3 s a program under
    # TCG instead of 0.15. The host does not change those files while a batch runs; the results
    # (the case directories the host writes) are a mount of their own, without a cache.
    ninep hostroot /host ro,cache=loose || return 1
    # a tree cloned under /tmp (the runner's path says where it is): its directory under the host's /tmp stays
    # visible through the guest's own /tmp, bound back in from the read-only host root
    local runner=$2 keep=
    case $runner in /tmp/?*/*) keep=${runner#/tmp/}; keep=/tmp/${keep%%/*} ;; esac
    if [ -n "$keep" ]; then
        mkdir -p /hosttmp && mount --bind /host/tmp /hosttmp || return 1
    fi
    mount -t proc proc /host/proc &&
    mount -t sysfs sys /host/sys &&
    mount -t devtmpfs dev /host/dev &&
    mount -t tmpfs tmp /host/tmp &&
    mount -t tmpfs run /host/run || return 1
    if [ -n "$keep" ]; then
        mkdir -p "/host$keep" && mount --bind "/hosttmp${keep#/tmp}" "/host$keep" || return 1
    fi
    ninep results "/host$results" || return 1
    mount -t debugfs debugfs /host/sys/kernel/debug 2>/dev/null
    mount -t tracefs tracefs /host/sys/kernel/tracing 2>/dev/null
    mount -t securityfs securityfs /host/sys/kernel/security 2>/dev/null   # lockdown's state, as a distribution mounts it
    mkdir -p /host/dev/pts /host/dev/shm
    mount -t devpts devpts /host/dev/pts
    mount -t tmpfs shm /host/dev/shm
    return 0
}

main() {
    mount -t proc proc /proc
    mount -t sysfs sys /sys
    mount -t devtmpfs dev /dev
    # show warnings and worse on the console (tests/lib/guest.sh scans it for oopses)
    echo 5 >/proc/sys/kernel/printk

    local results runner batch timeouts
    results=$(param stap.results)
    runner=$(param stap.runner)
    batch=$(param stap.batch)
    timeouts=$(param stap.timeouts)
    if [ -z "$results" ] || [ -z "$runner" ] || [ -z "$batch" ]; then
        say "missing stap.results/stap.runner/stap.batch on the kernel command line"
        finish
    fi
    load_modules || finish
    mount_host "$results" "$runner" || { say "mounting the host over 9p failed"; finish; }

    say "ready"
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/tmp TERM=dumb LANG=C.UTF-8 \
        chroot /host /bin/bash "$runner" "$batch" ${timeouts:-on} </dev/null >/dev/console 2>&1
    say "batch exited with $?"
    finish
}

main
