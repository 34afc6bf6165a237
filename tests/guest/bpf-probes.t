# the BPF runtime's kernel probe families in a kernel that has kprobes: kernel.function entries and returns
# with $count and $return (dd's reads of one byte), kprobe.function, a BTF tracepoint's argument, typed for KVER, run by staprun NAME.bo
# Used by tests/run (issue 48): translator/bpfprog/ (kprobes placed by the providers), runtime/bpf/targetvars.h.

build() {
    $STAP --runtime=bpf -p4 -m t_bpfk -e '
global reads, ones, rets, kp, execs
probe kernel.function("ksys_read") { if (execname() == "dd") { reads++; if ($count == 1) ones++ } }
probe kernel.function("ksys_read").return { if (execname() == "dd" && $return == 1) rets++ }
probe kprobe.function("ksys_read") { if (execname() == "dd") kp++ }
probe kernel.trace("sched_process_exec") { if ($p->pid == pid()) execs++ }
probe timer.s(2) {
	/* the probes are armed one after the other while dd reads: their counts differ by a few */
	printf("ones>=1000:%d rets~ones:%d kprobe~function:%d execs>0:%d\n", ones >= 1000,
	       rets - ones < 10 && ones - rets < 10, kp - reads < 10 && reads - kp < 10, execs > 0)
	exit()
}' >p4.out
    [[ $(cat p4.out) == t_bpfk.bo && -f t_bpfk.bo ]]
}

guest() {
    run_reading t_bpfk.bo
}

check() {
    [[ $(cat rc) == 0 ]]
    [[ $(cat out) == "ones>=1000:1 rets~ones:1 kprobe~function:1 execs>0:1" ]]
    [[ ! -s err ]]
}
