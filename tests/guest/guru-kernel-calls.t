# printk (a dmesg line at its level), ftrace (a line in the ftrace buffer), mdelay/udelay (the handler spins: many more cycles than for 0; run on CPU 0: under TCG the other vCPU's delay loop and cycle counter are unreliable), raise (the current thread gets the signal: python3 killed by SIGTERM in write(2), its do_exit code 15); without -g printk, raise, mdelay, udelay are refused in pass 2
# Used by tests/run (issue 31): tapset/linux/guru-misc.stp.

timeout_s=60

build() {
    $STAP -p4 -g -m t_gurucalls -e '
probe begin {
	printk(6, "stp-printk-line 42")
	ftrace("stp-ftrace-line 43")
	/* the quickest of five: a host that preempts the TCG thread (or runs the other vCPU) while one is
	   measured adds its whole time slice to the cycles */
	c0 = -1
	for (i = 0; i < 5; i++) { c = get_cycles(); mdelay(0); udelay(0); d = get_cycles() - c; if (c0 < 0 || d < c0) c0 = d }
	c = get_cycles(); mdelay(20); udelay(3000); c1 = get_cycles() - c
	println("delay ", c1 > 20 * c0 && c1 > 100000)
	try { raise(12345) } catch (m) { println(m) }
}
probe syscall.write { if (pid() == target() && count == 61) raise(15) }
probe kprobe.function("do_exit") { if (pid() == target()) { printf("exit %d\n", int_arg(1)); exit() } }' >/dev/null
    local f
    for f in 'printk(1, "x")' 'raise(1)' 'mdelay(1)' 'udelay(1)'; do
        not $STAP -p2 -e "probe begin { $f }" 2>refused.err
        grep -q "needs guru mode (-g)" refused.err
    done
}

guest() {
    echo 1 >/sys/kernel/debug/tracing/tracing_on 2>/dev/null || true
    taskset -c 0 staprun -c "python3 -c 'import os; os.write(os.open(\"/dev/null\", os.O_WRONLY), bytes(61))'" t_gurucalls.ko >calls.out 2>calls.err
    cat /sys/kernel/debug/tracing/trace >trace.txt 2>/dev/null || echo "no tracefs" >trace.txt
}

check() {
    [[ ! -s calls.err ]] || { cat calls.err; return 1; }
    diff calls.out - <<EOW
delay 1
raise: signal 12345 not sent
exit 15
EOW
    grep -q 'stp-printk-line 42$' dmesg
    grep -q 'stp-ftrace-line 43$' trace.txt || { cat trace.txt | tail -5; return 1; }
}
