# the BPF runtime's kernel probe families in a kernel that has kprobes: kernel.function entries and returns
# with $count, $return and @entry($count) (dd's reads of one byte), kprobe.function, a BTF tracepoint's argument, typed for KVER,
# run by staprun NAME.bo with -c (dd starts once every probe is armed: the counts are exact)
# Used by tests/run (issue 48): translator/bpfprog/ (kprobes placed by the providers), runtime/bpf/targetvars.h.

build() {
    $STAP --runtime=bpf -p4 -m t_bpfk -e '
global reads, ones, rets, ent, kp, execs
probe kernel.function("ksys_read") { if (execname() == "dd") { reads++; if ($count == 1) ones++ } }
probe kernel.function("ksys_read").return { if (execname() == "dd" && $return == 1) { rets++; if (@entry($count) == 1) ent++ } }
probe kprobe.function("ksys_read") { if (execname() == "dd") kp++ }
probe kernel.trace("sched_process_exec") { if (execname() == "dd" && $p->pid == pid()) execs++ }
probe end { printf("ones=%d rets=%d entry=%d kprobe=function:%d execs=%d\n", ones, rets, ent, kp == reads, execs) }' >p4.out
    [[ $(cat p4.out) == t_bpfk.bo && -f t_bpfk.bo ]]
}

guest() {
    staprun -c "dd if=/dev/zero of=/dev/null bs=1 count=2000" t_bpfk.bo
}

check() {
    [[ $(cat rc) == 0 ]]
    [[ $(cat out) == "ones=2000 rets=2000 entry=2000 kprobe=function:1 execs=1" ]]
    # dd's own summary on stderr, nothing else
    not grep -v -e 'records in' -e 'records out' -e 'bytes .* copied' err
}
