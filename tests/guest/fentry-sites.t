# fentry sites: kernel function entries armed through one ftrace_ops (no kprobe listed), their handler seeing what a kprobe's sees (addr, probefunc, $count, backtrace, counts); hits nested in a handler missed as a kprobe's; a notrace function falls back to a kprobe; -DSTP_NO_FENTRY keeps kprobes
# Used by tests/run (issue 19): runtime/probes/fentry.h, the .fentry addresses of translator/providers/kernelfn.c.

timeout_s=300

# The same script twice: through ftrace (the default) and through kprobes (-DSTP_NO_FENTRY).  dd's first read
# of 1 byte gives the context lines; every read of dd is counted, entry and return.  irq_work_tick (called
# every tick; kernel/irq_work.c is built without ftrace's call) can only be a kprobe: it falls back and counts.
SCRIPT='
global n, nr, nk, nk2, ticks, shown, pos, nested
probe kernel.function("vfs_read") {
	if (execname() != "dd") next
	n <<< 1
	# 16 bytes of the file, read with copy_from_kernel_nofault (1, 2, 4 or 8 bytes the runtime loads
	# itself), which is probed: those hits nest in this one
	pos += strlen(kernel_buffer_quoted($file, 16))
	if (shown++) next
	printf("addr %s %s\nprobefunc %s\ncount %d\n", symname(addr()), symdata(addr()), probefunc(), $count)
	frame = tokenize(sprint_backtrace(), "\n")
	printf("frame %s\ncaller %s\n", frame, tokenize("", "\n"))
}
probe kernel.function("vfs_read").return { if (execname() == "dd") nr <<< 1 }
probe kernel.function("ksys_read") { if (execname() == "dd") nk <<< 1 }
probe kernel.function("ksys_read") { if (execname() == "dd") nk2 <<< 1 }   # two sites at one address: both run
probe kernel.function("irq_work_tick") { ticks <<< 1 }
probe kernel.function("copy_from_kernel_nofault") { nested <<< 1 }
probe end {
	printf("reads %d returns %d ksys_read %d %d ticks %d\n", @count(n), @count(nr), @count(nk), @count(nk2), @count(ticks) > 0)
	if (pos < 0 || @count(nested) < 0) println("never")
}'

build() {
    need_kernel_dwarf
    $STAP -p4 -m t_fe -e "$SCRIPT" >/dev/null
    $STAP -p4 -m t_fe_kp -D STP_NO_FENTRY -e "$SCRIPT" >/dev/null
    # the site table gives the entries' link-time addresses, and the module the KASLR reference
    $STAP -p3 -e "$SCRIPT" >t_fe.c
    grep -q '\.symbol = "vfs_read", \.offset = 0x0UL, \.fentry = 0x' t_fe.c
    grep -q '^#define STP_FENTRY_REF_ADDR 0x' t_fe.c
}

# run M: dd's 200 reads under module M; the command records the kprobes the kernel lists and vfs_read's line of
# ftrace's enabled functions meanwhile
run_one() {
    staprun -c "sh -c 'grep -c . /sys/kernel/debug/kprobes/list >$1.kprobes; grep -E \"^(vfs_read|ksys_read|irq_work_tick) \" /sys/kernel/tracing/enabled_functions >$1.ftrace; grep -cE \" (vfs_read|ksys_read|irq_work_tick)\\+0x\" /sys/kernel/debug/kprobes/list >$1.named; dd if=/dev/zero of=/dev/null bs=1 count=200 2>/dev/null'" \
        "$1.ko" >"$1.out" 2>"$1.err"
}

guest() {
    mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
    grep -c . /sys/kernel/debug/kprobes/list >none.kprobes || echo 0 >none.kprobes
    run_one t_fe
    run_one t_fe_kp
    grep '^t_fe' /proc/modules >left.modules || true
    grep -c 'stp_fentry_hit' /sys/kernel/tracing/enabled_functions >left.ftrace || true
}

check() {
    [[ $(cat rc) == 0 ]]
    [[ ! -s left.modules ]] || { cat left.modules; return 1; }
    [[ $(cat left.ftrace) == 0 ]] || { echo "ftrace still calls stp_fentry_hit after the runs"; return 1; }
    local m
    for m in t_fe t_fe_kp; do
        # a tick (irq_work_tick) that interrupts a handler or a kprobe on its CPU is skipped and reported, nothing else;
        # a lock-contention skip too (a vCPU descheduled while it held a lock): the counts below stay exact
        not grep -vE '^WARNING: (Skipped probes: [0-9]+ \(reentrancy [0-9]+, lock contention [0-9]+\)|Number of errors: 0, skipped probes: [0-9]+|Missed kprobe hits: [0-9]+ \(hit while another kprobe ran\))$' \
            "$m.err" || { cat "$m.err"; return 1; }
        echo "--- $m (kprobes listed $(( $(cat $m.kprobes) - $(cat none.kprobes) )))"
        cat "$m.out" "$m.ftrace"
        # dd's 200 reads of one byte and those of its start (the first of which gives the context lines)
        awk '$1 == "reads" { ok = $2 >= 200 && $4 == $2 && $6 >= 200 && $7 == $6 && $9 == 1 } END { exit !ok }' "$m.out"
        grep -qE '^count [1-9][0-9]*$' "$m.out"
        grep -qx 'probefunc vfs_read' "$m.out"
        grep -qE '^addr vfs_read vfs_read\+0x' "$m.out"   # the probed address is vfs_read's own
        grep -qE '^frame vfs_read\+0x' "$m.out"           # the backtrace starts there, then its caller
        grep -qE '^caller ksys_read\+0x' "$m.out"
    done
    # the handler saw the same registers either way
    diff t_fe.out t_fe_kp.out
    # hits of copy_from_kernel_nofault nested in the vfs_read handler (dd's 200 reads and more) are missed hits, as a
    # kprobe's while another runs, not reentrancy skips (which MAXSKIPPED, 100, would have ended the run on)
    for m in t_fe t_fe_kp; do
        grep -qE '^WARNING: Missed kprobe hits: ([2-9][0-9][0-9]|[0-9]{4,}) \(hit while another kprobe ran\)$' "$m.err" ||
            { echo "$m: no missed hits for the nested copy_from_kernel_nofault"; cat "$m.err"; return 1; }
    done
    # through ftrace: the entries of vfs_read and ksys_read are no kprobes (vfs_read's .return is a kretprobe),
    # ftrace calls stp_fentry_hit for ksys_read (alone there) and two ops for vfs_read (ours, the kretprobe's);
    # irq_work_tick, which ftrace cannot trace, is a kprobe.  Through kprobes: all six are kprobes.
    [[ $(( $(cat t_fe.kprobes) - $(cat none.kprobes) )) == 2 && $(cat t_fe.named) == 2 ]]
    [[ $(( $(cat t_fe_kp.kprobes) - $(cat none.kprobes) )) == 6 && $(cat t_fe_kp.named) == 5 ]]
    grep -q '^ksys_read .*stp_fentry_hit' t_fe.ftrace
    grep -qE '^vfs_read \(2\)' t_fe.ftrace
    not grep -q '^irq_work_tick' t_fe.ftrace
    not grep -q stp_fentry_hit t_fe_kp.ftrace
}
