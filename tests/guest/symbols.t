# symbols and backtraces in kprobe, kretprobe, timer and begin probes: symname/symdata/probefunc/ppfunc/
# probemod/modname/addr, backtrace/print_backtrace/sprint_backtrace/print_stack/sprint_stack/stack/
# callers/caller/caller_addr/print_regs in SystemTap's formats, MAXBACKTRACE and MAXSTRINGLEN bounds.
# Used by tests/run: runtime/core/symbols.h, tapset/linux/context*.stp, runtime/probes/kprobes.c.

timeout_s=120

# Blocks of several lines are printed between "== NAME" and "== end".
common='
function syms:string(bt:string) {
    s = ""
    t = tokenize(bt, " ")
    while (t != "") {
        s .= " " . symname(strtol(t, 16))
        t = tokenize("", " ")
    }
    return s
}
function ntok:long(bt:string) {
    n = 0
    t = tokenize(bt, " ")
    while (t != "") {
        n++
        t = tokenize("", " ")
    }
    return n
}'

sym_main="$common"'
global entry_done, ret_done, ticks
probe timer.ms(10) {
    if (++ticks != 2)
        next
    bt = backtrace()
    printf("timer: %d %d\n", ntok(bt) > 0, stack(0) == strtol(tokenize(bt, " "), 16))
    println("== timer pb"); print_backtrace(); println("== end")
    println("== timer ps"); print_stack(bt); println("== end")
}
probe begin {
    println("begin addr=", addr(), " probefunc=[", probefunc(), "] ppfunc=[", ppfunc(), "]")
    try { println(probemod()) } catch (e) { println("begin probemod error: ", e) }
    try { println(modname(0)) } catch (e) { println("begin modname(0) error: ", e) }
    println("begin sym0: ", symname(0), " ", symdata(0))
    bt = backtrace()
    println("begin bt: ", bt)
    println("begin syms:", syms(bt))
    println("== begin regs"); print_regs(); println("== end")
    println("== begin pb"); print_backtrace(); println("== end")
    println("== begin ps"); print_stack(bt); println("== end")
    println("ready")
}
probe kprobe.function("vfs_read") {
    if (execname() != "dd" || entry_done)
        next
    entry_done = 1
    bt = backtrace()
    printf("entry: probefunc=%s ppfunc=%s symname=%s probemod=%s modname=%s\n", probefunc(), ppfunc(),
           symname(addr()), probemod(), modname(addr()))
    println("entry symdata: ", symdata(addr()))
    printf("entry addr=stack0=bt0: %d %d\n", addr() == stack(0), addr() == strtol(tokenize(bt, " "), 16))
    println("entry bt: ", bt)
    println("entry syms:", syms(bt))
    printf("entry caller: %d %s %d\n", caller() == sprintf("%s 0x%x", symname(stack(1)), stack(1)),
           symname(caller_addr()), caller_addr() == stack(1))
    printf("entry callers: %d %d\n", callers(1) == sprintf("0x%x 0x%x", stack(0), stack(1)), callers(-1) . " " == bt)
    try { println(stack(1000)) } catch (e) { println("entry stack(1000) error: ", e) }
    printf("entry rip: RIP: %016x\n", addr())
    println("== entry regs"); print_regs(); println("== end")
    println("== entry pb"); print_backtrace(); println("== end")
    println("== entry ps"); print_stack(bt); println("== end")
    println("== entry ss"); print(sprint_stack(bt)); println("== end")
    println("== entry sb"); print(sprint_backtrace()); println("== end")
    if (ret_done)
        exit()
}
probe kprobe.function("vfs_read").return {
    if (execname() != "dd" || ret_done)
        next
    ret_done = 1
    bt = backtrace()
    printf("ret: probefunc=%s ppfunc=%s symname=%s probemod=%s\n", probefunc(), ppfunc(), symname(addr()),
           probemod())
    println("ret symdata: ", symdata(addr()))
    println("ret syms:", syms(bt))
    printf("ret stack: %d %d\n", stack(0) == strtol(tokenize(bt, " "), 16), caller_addr() == stack(1))
    println("== ret pb"); print_backtrace(); println("== end")
    println("== ret ps"); print_stack(bt); println("== end")
    if (entry_done)
        exit()
}'

# Small bounds: 3 frames, strings of 47 bytes (2 hex addresses, 2 sprint_backtrace lines).
sym_small="$common"'
probe begin { println("ready") }
probe kprobe.function("vfs_read") {
    if (execname() != "dd")
        next
    bt = backtrace()
    printf("small bt: %d %d\n", ntok(bt), strlen(bt))
    println("== small pb"); print_backtrace(); println("== end")
    println("== small sb"); print(sprint_backtrace()); println("== end")
    printf("small ss: [%s]\n", sprint_stack(bt))
    println("small stack(2): ", symname(stack(2)))
    try { println(stack(3)) } catch (e) { println("small stack(3) error: ", e) }
    exit()
}'

build() {
    $STAP -p4 -m t_sym -e "$sym_main" >/dev/null
    $STAP -p4 -m t_sym_small -DMAXBACKTRACE=3 -DMAXSTRINGLEN=48 -e "$sym_small" >/dev/null
}

# run_module MODULE: staprun it, and dd reads until it exits by itself.
run_module() {
    staprun "$1.ko" >"$1.out" 2>"$1.err" &
    local pid=$! i
    for i in $(seq 100); do
        file_has "$1.out" '^ready$' && break
        nap 0.1
    done
    while kill -0 "$pid" 2>/dev/null; do
        dd if=/dev/zero of=/dev/null bs=7 count=3 2>/dev/null
    done
    wait "$pid"
    not loaded "$1"
}

guest() {
    run_module t_sym
    run_module t_sym_small
}

# block FILE NAME: the lines between "== NAME" and the next "== end".
block() { awk -v s="== $2" '$0 == s { f = 1; next } $0 == "== end" { f = 0 } f' "$1"; }

# symdata line of print_backtrace/print_stack: " 0x<16 hex> : name+0xOFF/0xSIZE [kernel]"
full_re='^ 0x[0-9a-f]{16} : [A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[kernel\]$'

check() {
    local o=t_sym.out s=t_sym_small.out
    [[ $(cat rc) == 0 ]]
    # the timer probe may fire inside a kprobe hit on the same CPU: that hit is skipped (reported)
    only_skip_warnings t_sym.err
    only_skip_warnings t_sym_small.err

    # begin: no registers; the stack of the process that started the session, without the
    # module's own frames; errors of the functions that need a probed address
    grep -qx 'begin addr=0 probefunc=\[\] ppfunc=\[\]' $o
    grep -qx 'begin probemod error: Cannot determine kernel module name' $o
    grep -qx 'begin modname(0) error: Cannot determine kernel module name' $o
    grep -qx 'begin sym0: 0x0000000000000000 0x0000000000000000' $o
    grep -Eqx 'begin bt: (0x[0-9a-f]{16} )+' $o
    grep -Eqx 'begin syms:( [A-Za-z0-9_.]+)* entry_SYSCALL_64[A-Za-z0-9_]*' $o
    [[ -z $(block $o 'begin regs') ]]
    block $o 'begin pb' >begin.pb
    block $o 'begin ps' >begin.ps
    [[ -s begin.pb ]]
    diff begin.pb begin.ps
    not grep -Ev "$full_re" begin.pb
    (( $(wc -l <begin.pb) == $(grep '^begin bt: ' $o | wc -w) - 2 ))

    # timer (hard interrupt): from the interrupted kernel code, or the interrupt's own stack
    grep -qx 'timer: 1 1' $o
    block $o 'timer pb' >timer.pb
    block $o 'timer ps' >timer.ps
    [[ -s timer.pb ]]
    diff timer.pb timer.ps
    not grep -Ev '^ 0x[0-9a-f]{16} : [A-Za-z0-9_.]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[[A-Za-z0-9_]+\]$' timer.pb

    # kprobe.function("vfs_read"): the function, its module, its entry address; with IBT (6.12) the
    # kernel puts a probe on a function's entry after its 4-byte ENDBR64, so addr() is there
    local entry=0x0
    if grep -qx 'CONFIG_X86_KERNEL_IBT=y' "/boot/config-$KVER"; then entry=0x4; fi
    grep -qx 'entry: probefunc=vfs_read ppfunc=vfs_read symname=vfs_read probemod=kernel modname=kernel' $o
    grep -Eqx "entry symdata: vfs_read\+$entry/0x[0-9a-f]+ \[kernel\]" $o
    grep -qx 'entry addr=stack0=bt0: 1 1' $o
    grep -Eqx 'entry bt: (0x[0-9a-f]{16} ){3,}' $o
    grep -Eqx 'entry syms: vfs_read ksys_read( [A-Za-z0-9_.]+)* entry_SYSCALL_64[A-Za-z0-9_]*' $o
    grep -qx 'entry caller: 1 ksys_read 1' $o
    grep -qx 'entry callers: 1 1' $o
    grep -qx 'entry stack(1000) error: cannot unwind the kernel stack to depth 1000' $o
    # print_backtrace() = print_stack(backtrace()) = sprint_stack(backtrace()), one line a frame
    block $o 'entry pb' >entry.pb
    block $o 'entry ps' >entry.ps
    block $o 'entry ss' >entry.ss
    diff entry.pb entry.ps
    diff entry.pb entry.ss
    not grep -Ev "$full_re" entry.pb
    (( $(wc -l <entry.pb) == $(grep '^entry bt: ' $o | wc -w) - 2 ))
    head -n 1 entry.pb | grep -q " : vfs_read+$entry/0x"
    sed -n 2p entry.pb | grep -q ' : ksys_read+0x'
    # the same frames in each: the hex addresses of backtrace() in order
    [[ $(awk '{ printf "%s ", $1 }' entry.pb) == "$(sed -n 's/^entry bt: //p' $o)" ]]
    # sprint_backtrace(): "name+0xOFF [kernel]" for each of those lines
    block $o 'entry sb' >entry.sb
    sed -E 's|^ 0x[0-9a-f]{16} : ([^ ]+)/0x[0-9a-f]+ (\[kernel\])$|\1 \2|' entry.pb | diff - entry.sb
    # print_regs(): 10 lines, RIP the probed address
    block $o 'entry regs' >entry.regs
    [[ $(wc -l <entry.regs) == 10 ]]
    [[ $(head -n 1 entry.regs) == "$(sed -n 's/^entry rip: //p' $o)" ]]
    grep -Eqx 'RSP: [0-9a-f]{16}  EFLAGS: [0-9a-f]{8}' entry.regs
    grep -Eqx 'RAX: [0-9a-f]{16} RBX: [0-9a-f]{16} RCX: [0-9a-f]{16}' entry.regs
    grep -Eqx 'R13: [0-9a-f]{16} R14: [0-9a-f]{16} R15: [0-9a-f]{16}' entry.regs
    grep -Eqx 'CS:  0010 DS: [0-9a-f]{4} ES: [0-9a-f]{4} CR0: [0-9a-f]{16}' entry.regs

    # kprobe.function("vfs_read").return: the function at its entry, the backtrace from the
    # return site in the caller
    grep -qx 'ret: probefunc=vfs_read ppfunc=vfs_read symname=vfs_read probemod=kernel' $o
    grep -Eqx "ret symdata: vfs_read\+$entry/0x[0-9a-f]+ \[kernel\]" $o
    grep -Eqx 'ret syms: ksys_read( [A-Za-z0-9_.]+)* entry_SYSCALL_64[A-Za-z0-9_]*' $o
    grep -qx 'ret stack: 1 1' $o
    block $o 'ret pb' >ret.pb
    block $o 'ret ps' >ret.ps
    # "Returning from:  <vfs_read's entry line>", "Returning to  :  <first line>", the rest
    [[ $(head -n 1 ret.pb) == "Returning from: $(head -n 1 entry.pb)" ]]
    sed -n 2p ret.pb | grep -Eq '^Returning to  :  0x[0-9a-f]{16} : ksys_read\+0x'
    sed -e 1d -e 's/^Returning to  : //' ret.pb | diff - ret.ps
    not grep -Ev "$full_re" ret.ps

    # -DMAXBACKTRACE=3 -DMAXSTRINGLEN=48: 3 frames printed; strings keep whole entries
    grep -qx 'small bt: 2 38' $s
    block $s 'small pb' >small.pb
    [[ $(wc -l <small.pb) == 3 ]]
    head -n 3 entry.pb | sed -E 's/^ 0x[0-9a-f]{16}//' | diff - <(sed -E 's/^ 0x[0-9a-f]{16}//' small.pb)
    block $s 'small sb' >small.sb
    head -n 2 entry.sb | diff - small.sb
    grep -qx 'small ss: \[\]' $s
    grep -q '^small stack(2): [A-Za-z0-9_]' $s
    grep -qx 'small stack(3) error: cannot unwind the kernel stack to depth 3' $s
}
