# kernel backtraces and symbols on the BPF runtime against the module's, in one boot: the same script as a module and
# as BPF prints the same frames of a kprobe, a kretprobe and a tracepoint (backtrace, print_backtrace,
# sprint_backtrace, print_stack, sprint_stack, stack, callers, caller, symdata, modname), and addr() where a kernel.function's
# entry is hit (the module's through ftrace, BPF's on a trampoline).  Used by tests/run (issue 48):
# runtime/bpf/symbols.h (bpf_get_stack at the hit, %pS), translator/bpfprog/object.c (stp_save_kstack).

# no globals: the module takes no lock (a vCPU descheduled holding one skips a hit); dd's three reads of 7 bytes
script='
probe kprobe.function("vfs_read") {
    if (execname() != "dd" || int_arg(3) != 7)
        next
    bt = backtrace()
    println("entry symdata: ", symdata(addr()), " modname: ", modname(addr()))
    try { println(modname(0)) } catch (e) { println("modname(0) error: ", e) }
    printf("entry addr=stack0=bt0: %d %d\n", addr() == stack(0), addr() == strtol(tokenize(bt, " "), 16))
    println("entry bt: ", bt)
    printf("entry caller: %d %s %d\n", caller() == sprintf("%s 0x%x", symname(stack(1)), stack(1)),
           symname(caller_addr()), caller_addr() == stack(1))
    printf("entry callers: %d %d\n", callers(1) == sprintf("0x%x 0x%x", stack(0), stack(1)), callers(-1) . " " == bt)
    try { println(stack(1000)) } catch (e) { println("entry stack(1000) error: ", e) }
    println("== entry pb"); print_backtrace(); println("== end")
    println("== entry ps"); print_stack(bt); println("== end")
    println("== entry ss"); print(sprint_stack(bt)); println("== end")
    println("== entry sb"); print(sprint_backtrace()); println("== end")
}
probe kprobe.function("vfs_read").return {
    if (execname() != "dd" || returnval() != 7)
        next
    bt = backtrace()
    printf("ret stack: %d %d\n", stack(0) == strtol(tokenize(bt, " "), 16), caller_addr() == stack(1))
    println("ret symdata: ", symdata(addr()))
    println("== ret ps"); print_stack(bt); println("== end")
    println("== ret pb"); print_backtrace(); println("== end")
}
probe kernel.function("vfs_read") {
    if (execname() == "dd" && $count == 7)
        println("kf symdata: ", symdata(addr()))
}
probe kernel.trace("sched_process_exec") {
    if (execname() != "dd")
        next
    println("== exec ps"); print_stack(backtrace()); println("== end")
}'

build() {
    $STAP -p4 -m t_bsym -e "$script" >/dev/null
    $STAP --runtime=bpf -p4 -m t_bsym -e "$script" >/dev/null
    [[ -f t_bsym.ko && -f t_bsym.bo ]]
}

guest() {
    local t
    for t in ko bo; do
        staprun -c "dd if=/dev/zero of=/dev/null bs=7 count=3" t_bsym.$t >$t.out 2>$t.err
        echo $? >$t.rc
    done
}

# block FILE NAME: the lines between "== NAME" and the next "== end".
block() { awk -v s="== $2" '$0 == s { f = 1; next } $0 == "== end" { f = 0 } f' "$1"; }

full_re='^ 0x[0-9a-f]{16} : [A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[kernel\]$'

check() {
    local t b
    [[ $(cat ko.rc bo.rc) == $'0\n0' ]]
    not grep -v -e 'records in' -e 'records out' -e 'bytes.* copied' ko.err bo.err
    for t in ko bo; do
        grep -Eqx 'entry symdata: vfs_read\+0x[04]/0x[0-9a-f]+ \[kernel\] modname: kernel' $t.out
        grep -qx 'modname(0) error: Cannot determine kernel module name' $t.out
        grep -qx 'entry addr=stack0=bt0: 1 1' $t.out
        grep -Eqx 'entry bt: (0x[0-9a-f]{16} ){3,}' $t.out
        grep -qx 'entry caller: 1 ksys_read 1' $t.out
        grep -qx 'entry callers: 1 1' $t.out
        [[ $(grep -Ec '^kf symdata: vfs_read\+0x[04]/0x[0-9a-f]+ \[kernel\]$' $t.out) == 3 ]]
        grep -qx 'entry stack(1000) error: cannot unwind the kernel stack to depth 1000' $t.out
        [[ $(grep -c '^entry caller: 1 ksys_read 1$' $t.out) == 3 && $(grep -c '^ret stack: 1 1$' $t.out) == 3 ]]
        for b in 'entry pb' 'entry ps' 'entry ss' 'entry sb' 'ret ps' 'ret pb' 'exec ps'; do
            block $t.out "$b" >"$t.${b/ /.}"
            [[ -s $t.${b/ /.} ]]
        done
        diff $t.entry.pb $t.entry.ps
        diff $t.entry.pb $t.entry.ss
        not grep -Ev "$full_re" $t.entry.pb $t.ret.ps $t.exec.ps
        [[ $(awk '{ printf "%s ", $1 }' $t.entry.pb) == "$(sed -n 's/^entry bt: //p' $t.out | tr -d '\n')" ]]
        sed -E 's|^ 0x[0-9a-f]{16} : ([^ ]+)/0x[0-9a-f]+ (\[kernel\])$|\1 \2|' $t.entry.pb | diff - $t.entry.sb
        head -n 1 $t.ret.ps | grep -q ' : ksys_read+0x'
        # a .return: the function at its entry (as a kprobe there), "Returning from:" its line, "Returning to  :"
        # before the return site's, then the rest as print_stack(backtrace()) prints them
        [[ $(grep -Ec '^ret symdata: vfs_read\+0x[04]/0x[0-9a-f]+ \[kernel\]$' $t.out) == 3 ]]
        [[ $(head -n 1 $t.ret.pb) == "Returning from: $(head -n 1 $t.entry.pb)" ]]
        sed -n 2p $t.ret.pb | grep -Eq '^Returning to  :  0x[0-9a-f]{16} : ksys_read\+0x'
        grep -v '^Returning from: ' $t.ret.pb | sed 's/^Returning to  : //' | diff - $t.ret.ps
        grep -q ' : bprm_execve+0x' $t.exec.ps
    done
    # the same frames from both runtimes
    diff ko.out bo.out
}
