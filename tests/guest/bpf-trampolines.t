# the BPF runtime's kernel function entries and returns on BPF trampolines (fentry, fexit) where the kernel has them,
# each beside its kprobe twin: the same counts with both, -D STP_BPF_KPROBES_ONLY keeping the kprobes, and a return
# whose object reads the instruction pointer (probefunc) staying a kretprobe; a function called from both probes is a
# global BPF function (verified once), of each program type.  Used by tests/run (issue 48): translator/bpfprog/object.c
# (trampoline_regs_ok, bpf_shared_function), runtime/bpf/targetvars.h, stapio/bpfrun.c (attach_probes).

build() {
    local script='global ones, rets
function dd:long(n:long) { return execname() == "dd" && n == 1 }
probe kernel.function("ksys_read") { if (dd($count) && int_arg(3) == 1 && $fd == 0) ones++ }
probe kernel.function("ksys_read").return { if (dd($return)) rets++ }
probe end { printf("ones=%d rets=%d\n", ones, rets) }'
    $STAP --runtime=bpf -p4 -m t_tr -e "$script" >/dev/null
    $STAP --runtime=bpf -p4 -m t_kp -D STP_BPF_KPROBES_ONLY -e "$script" >/dev/null
    $STAP --runtime=bpf -p4 -m t_ip -e 'global f, n, a
probe kernel.function("ksys_read") { if (execname() == "dd") { f = probefunc(); a = symdata(addr()) } }
probe kernel.function("ksys_read").return { if (execname() == "dd" && $return == 1) n++ }
probe end { printf("%s %d %s\n", f, n, a) }' >/dev/null
    [[ -f t_tr.bo && -f t_kp.bo && -f t_ip.bo ]]
    $STAP --runtime=bpf -p3 -e "$script" >t_tr.c
    grep -q '^__attribute__((__noinline__)) int fn_dd(struct stp_context \*c, struct frame_fn_dd \*f)$' t_tr.c
}

guest() {
    local t
    for t in tr kp ip; do
        staprun -v -c "dd if=/dev/zero of=/dev/null bs=1 count=2000" t_$t.bo >$t.out 2>$t.err
        echo $? >$t.rc
    done
}

# attached NAME SECTION: stapio -v says a program of that section is attached, from t_NAME
attached() {
    grep -Eq "^stapio: stp_[a-z]+_[0-9]+ \\($2\\): attached\$" "$1.err"
}

check() {
    [[ $(cat tr.rc kp.rc ip.rc) == $'0\n0\n0' ]]
    [[ $(cat tr.out) == "ones=2000 rets=2000" && $(cat kp.out) == "ones=2000 rets=2000" ]]
    attached tr fentry/ksys_read && attached tr fexit/ksys_read
    not grep -q 'stp_kp_.*attached' tr.err
    attached kp kprobe/0/ksys_read && attached kp kretprobe/0/ksys_read
    not grep -q 'stp_tr_' kp.err
    # addr(): where the kernel puts a kprobe, past the ENDBR64 on an IBT kernel (6.12), as the module's
    local entry=0x0
    if grep -qx 'CONFIG_X86_KERNEL_IBT=y' "/boot/config-$KVER"; then entry=0x4; fi
    grep -Eqx "ksys_read 2000 ksys_read\+$entry/0x[0-9a-f]+ \[kernel\]" ip.out
    attached ip fentry/ksys_read && attached ip kretprobe/0/ksys_read
    not grep -q 'fexit' ip.err
}
