# batched kprobe registration: a batch holding one site the kernel refuses still arms the others (optional '?'
# points, kprobe and DWARF families) or fails with the same one-line error as that site alone
# Used by tests/run (issue 19): runtime/probes/kprobe_batch.h's fallback to one-by-one registration; batches of 2
# (-DSTP_KPROBE_BATCH=2) so that the refused site sits inside a batch after a good one, with batches before and after.

# kprobe_int3_handler exists but is on the kernel's kprobe blacklist; module nfs is not loaded in the guest
OPT_POINTS='kprobe.function("vfs_read") ?, kprobe.function("ksys_read") ?, kprobe.function("vfs_write") ?,
    kprobe.function("kprobe_int3_handler") ?, kprobe.function("ksys_write") ?, kprobe.function("vfs_fsync") ?,
    kernel.function("vfs_readv") ?, module("nfs").function("nfs_fsync_dir") ?, kernel.function("vfs_writev") ?'

build() {
    need_kernel_dwarf
    local b=(-D STP_KPROBE_BATCH=2 -D STP_NO_FENTRY)   # kprobes only: entry sites would go through ftrace (fentry.h)
    $STAP -p4 "${b[@]}" -m t_kb_opt -w -e 'global n
probe '"$OPT_POINTS"' { if (pid() == target()) n[ppfunc()]++ }
probe end { foreach (f in n) printf("%s %d\n", f, n[f] > 0) }' >/dev/null
    # a refused site in a batch of kprobes, and a DWARF site of an absent module in a batch of DWARF sites
    $STAP -p4 "${b[@]}" -m t_kb_klist -e 'probe kprobe.function("vfs_read"), kprobe.function("ksys_read"),
        kprobe.function("vfs_write"), kprobe.function("kprobe_int3_handler"), kprobe.function("ksys_write")
        { println("never") }' >/dev/null
    $STAP -p4 "${b[@]}" -m t_kb_dlist -e 'probe kernel.function("vfs_read"), kernel.function("vfs_write"),
        kernel.function("vfs_readv"), module("nfs").function("nfs_fsync_dir"), kernel.function("vfs_writev")
        { println("never") }' >/dev/null
}

guest() {
    mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
    grep -q '^nfs ' /proc/modules && echo "nfs is loaded" >nfs.loaded
    grep -c . /sys/kernel/debug/kprobes/list >kprobes.none || echo 0 >kprobes.none
    staprun -c "sh -c 'grep -c . /sys/kernel/debug/kprobes/list >kprobes.opt; cat /etc/hostname >/dev/null; echo x >/dev/null; sync work.tmp 2>/dev/null; true'" \
        t_kb_opt.ko >opt.out 2>opt.err || echo $? >opt.rc
    local m
    for m in klist dlist; do
        staprun "t_kb_$m.ko" >"$m.out" 2>"$m.err" || echo $? >"$m.rc"
    done
    grep '^t_' /proc/modules >left.modules || true
}

check() {
    [[ $(cat rc) == 0 ]]
    [[ ! -e nfs.loaded ]] || { echo "nfs loaded in the guest: the test needs it absent"; return 1; }
    [[ ! -s left.modules ]] || { cat left.modules; return 1; }
    # optional points: no message, every site but the two refused ones armed, the read and write paths hit
    [[ ! -e opt.rc ]] || { echo "t_kb_opt exited $(cat opt.rc)"; cat opt.err; return 1; }
    [[ ! -s opt.err ]] || { cat opt.err; return 1; }
    local armed=$(( $(cat kprobes.opt) - $(cat kprobes.none) ))
    (( armed == 7 )) || { echo "$armed of 9 sites armed, expected 7"; return 1; }
    grep -qx 'vfs_read 1' opt.out && grep -qx 'ksys_read 1' opt.out || { cat opt.out; return 1; }
    grep -qx 'vfs_write 1' opt.out && grep -qx 'ksys_write 1' opt.out || { cat opt.out; return 1; }
    # a refused site in a batch: exit 1 with the one line the site alone gives (guest/unknown-symbol, and
    # guest/dwarf-probes for an absent module), nothing printed
    local m
    for m in klist dlist; do
        [[ $(cat "$m.rc" 2>/dev/null) == 1 ]] || { echo "t_kb_$m: exit status $(cat "$m.rc" 2>/dev/null || echo 0)"; return 1; }
        [[ ! -s $m.out ]]
        [[ $(grep -c . "$m.err") == 1 ]] || { cat "$m.err"; return 1; }
    done
    grep -qxF "ERROR: probe point kprobe.function(\"kprobe_int3_handler\"): kernel symbol 'kprobe_int3_handler': the kernel does not allow probing it (blacklisted, notrace or not a function) (-22)" klist.err ||
        { cat klist.err; return 1; }
    grep -qE '^ERROR: module nfs is not loaded \(load it before starting the probes\): cannot probe nfs:nfs_fsync_dir\+0x0 for module\("nfs"\)\.function\("nfs_fsync_dir@fs/nfs/dir\.c:[0-9]+"\)$' dlist.err ||
        { cat dlist.err; return 1; }
}
