# full-disk.sh - the guest half of the full-disk cases: staprun -o on a 128 KiB tmpfs left 32 KiB, space freed mid-run.
# Used by tests/guest/full-disk.t and full-disk-json.t (sourced in guest(); their modules print 1000 lines, then 100 more).

# full_disk_run MODULE DIR: runs MODULE.ko with its output on a small tmpfs at DIR that fills; once the module's
# procfs n reads 1000 and stapio said it drops records, the file as it is then goes to during.out, the filler is
# removed and procfs more written; the run's exit status to run.rc, the final file to t.out; the module is gone
full_disk_run() {
    local M=$1 D=$2 pid i rc=0
    mkdir -p "$D"
    mount -t tmpfs -o size=128k full "$D"
    # 32 KiB left for the trace
    head -c 98304 /dev/zero >"$D/filler"
    staprun -o "$D/t.out" "$M.ko" >run.out 2>run.err & pid=$!
    for i in $(seq 600); do
        [[ $(cat "/proc/systemtap/$M/n" 2>/dev/null) == 1000 ]] && break
        sleep 0.1
    done
    # stapio's rounds: what the script printed is written, or counted
    sleep 2
    grep -q 'records are dropped' run.err
    cp "$D/t.out" during.out
    # space again, then the rest of the run
    rm "$D/filler"
    echo go >"/proc/systemtap/$M/more"
    wait $pid || rc=$?
    echo $rc >run.rc
    cp "$D/t.out" t.out
    umount "$D"
    not loaded "$M"
}
