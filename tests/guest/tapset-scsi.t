# tapset scsi.*: direct reads and writes of known sizes, a rescan and offline/running state changes of a scsi_debug disk
# Used by tests/run (issue 15): tapset/linux/scsi.stp (module("scsi_mod") DWARF probes; from BTF, scsi_queue_rq and a tracepoint), timestamp.stp.

timeout_s=120
btf_rerun=1

build() {
    need_kernel_dwarf
    [[ -n $(find "/usr/lib/debug/lib/modules/$KVER" -name scsi_mod.ko 2>/dev/null) ]] ||
        { echo "no scsi_mod debuginfo under /usr/lib/debug/lib/modules/$KVER (make deps)"; exit 77; }
    [[ -n $(find "/lib/modules/$KVER" -name 'scsi_debug.ko*' 2>/dev/null) ]] || { echo "no scsi_debug module for $KVER"; exit 77; }
    $STAP -p4 -m t_scsi "$TOP/tests/guest/scripts/io/scsi-vars.stp" >/dev/null
}

guest() {
    # no udev in the guest: sd_mod is loaded by hand
    modprobe sd_mod
    modprobe scsi_debug dev_size_mb=8 num_tgts=1 max_luns=1
    local host dev i
    for i in $(seq 50); do
        dev=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter0/host*/target*/*:*:*:*/block 2>/dev/null | head -n 1 || true)
        [[ -n $dev && -b /dev/$dev ]] && break
        nap 0.2
    done
    [[ -b /dev/$dev ]]
    host=$(basename /sys/bus/pseudo/drivers/scsi_debug/adapter0/host*)
    host=${host#host}
    echo "$host $dev $(cat /sys/block/$dev/dev)" >dev.out
    udevadm settle 2>/dev/null || true
    sleep 1
    staprun -c "sh -c 'dd if=/dev/$dev of=/dev/null bs=4096 count=2 skip=10 iflag=direct 2>/dev/null;
        dd if=/dev/zero of=/dev/$dev bs=8192 count=1 seek=3 oflag=direct 2>/dev/null;
        echo 1 >/sys/block/$dev/device/rescan; echo offline >/sys/block/$dev/device/state;
        echo running >/sys/block/$dev/device/state'" t_scsi.ko >scsi.out
    rmmod scsi_debug
}

check() {
    [[ $(cat rc) == 0 ]]
    local host dev devno major minor
    read -r host dev devno <dev.out
    major=${devno%:*} minor=${devno#*:}
    grep '^ioentry\|^iodispatching' scsi.out >got.out
    {
        echo "ioentry $major $minor RUNNING 1 4096"
        echo "iodispatching $host 0 0 0 RUNNING 2 FROM_DEVICE 4096 1 1"
        echo "ioentry $major $minor RUNNING 1 4096"
        echo "iodispatching $host 0 0 0 RUNNING 2 FROM_DEVICE 4096 1 1"
        echo "ioentry $major $minor RUNNING 1 8192"
        echo "iodispatching $host 0 0 0 RUNNING 1 TO_DEVICE 8192 1 1"
    } >want.out
    diff want.out got.out
    grep -qx 'iodone FROM_DEVICE 1' scsi.out
    grep -qx 'iodone TO_DEVICE 1' scsi.out
    grep -qx 'iocompleted FROM_DEVICE 4096 x2' scsi.out
    grep -qx 'iocompleted TO_DEVICE 8192 x1' scsi.out
    # the rescan's commands (READ CAPACITY, MODE SENSE...): sd's 30 s timeout, all succeeded
    grep -qE '^ioexecute RUNNING 30 [0-9]+$' scsi.out
    grep -qx 'ioexecute.return 0' scsi.out
    grep -qx "set_state RUNNING 2 -> OFFLINE 6 $host:0:0:0" scsi.out
    grep -qx "set_state OFFLINE 6 -> RUNNING 2 $host:0:0:0" scsi.out
}
