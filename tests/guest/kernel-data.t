# kernel-data: kernel.data("SYMBOL").write and .length(4).rw, hardware watchpoints (debug registers, emulated by QEMU TCG): each sysctl write of dirty_expire_interval hits the write watchpoint once with the new value, each read of it the rw one; a missing symbol fails at start; bad points fail in pass 2. The ADDRESS form is armed in guest/stap-e-in-guest: KASLR moves the address at each boot, so only a module compiled in the guest knows it
# Used by tests/run (issue 31): translator/providers/hwbkpt.c, runtime/probes/hwbkpt.c.

have_vmlinux() { [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]]; }

build() {
    have_vmlinux || { echo "no /usr/lib/debug/boot/vmlinux-$KVER" >SKIP; return 0; }
    cp /bin/cat rdexp
    # the sysctl vm.dirty_expire_centisecs is the int dirty_expire_interval: written by the write(2)
    # to /proc/sys/vm/dirty_expire_centisecs only, read by its read(2) (and the writeback threads)
    $STAP -p4 -m t_kdata -e '
global w
probe begin { println("armed") }
probe kernel.data("dirty_expire_interval").write {
    w++
    printf("%s %d\n", pp(), @var("dirty_expire_interval@mm/page-writeback.c"))
}
probe end { printf("writes %d\n", w) }' >/dev/null
    # .rw alone (TCG reports one watchpoint of those an access matches): the reader's hits and the
    # writer's (the process that wrote the value seen last at a write)
    $STAP -p4 -m t_kdrw -e '
global rw, writer
probe begin { println("armed") }
probe kernel.data("dirty_expire_interval").length(4).rw {
    rw[execname()]++
    if (@var("dirty_expire_interval@mm/page-writeback.c") > 3000 && execname() != "rdexp") writer = execname()
}
probe end { printf("rw: reads %d writes %d\n", rw["rdexp"], rw[writer]) }' >/dev/null
    $STAP -p4 -m t_kdnone -e 'probe kernel.data("no_such_symbol_stp").write { }' >/dev/null
    # optional: left out at start, the run goes on
    $STAP -p4 -m t_kdopt -e 'probe kernel.data("no_such_symbol_stp").write ? { } probe timer.ms(10) { println("ran"); exit() }' >/dev/null
    # the address form: hex in the canonical name, aligned to the length; four debug registers
    $STAP -p2 -e 'probe kernel.data(0xffffffff81000008).length(8).rw { }' | grep -qx 'kernel.data(0xffffffff81000008).length(8).rw /\* <- .*'
    not $STAP -p2 -e 'probe kernel.data(0xffffffff81000002).length(4).write { }' >/dev/null 2>align.err
    grep -q '^<input>:1:19: semantic error: address 0xffffffff81000002 is not aligned to the watchpoint.s length (4 bytes)$' align.err
    not $STAP -p2 -e 'probe kernel.data(8).write, kernel.data(16).write, kernel.data(24).write, kernel.data(32).write, kernel.data(40).write { }' >/dev/null 2>many.err
    grep -q 'semantic error: too many kernel.data watchpoints: the CPU has 4 debug registers' many.err
}

guest() {
    [[ -e SKIP ]] && { cat SKIP; return 0; }
    local f=/proc/sys/vm/dirty_expire_centisecs orig
    orig=$(cat $f)
    echo "$orig" >orig
    for m in kdata kdrw; do
        staprun t_$m.ko >$m.out 2>$m.err & run=$!
        io=$(stapio_of $run)
        waitfor $m.out armed
        for v in 3001 3002 3003; do echo $v >$f; done
        ./rdexp $f >/dev/null
        ./rdexp $f >/dev/null
        echo "$orig" >$f
        kill -INT "$io"
        wait $run
    done
    not staprun t_kdnone.ko >kdnone.out 2>kdnone.err
    staprun t_kdopt.ko >kdopt.out 2>kdopt.err
}

check() {
    [[ -e SKIP ]] && return 0
    [[ $(cat rc) == 0 ]] || { cat err kdata.err; return 1; }
    local orig
    orig=$(cat orig)
    printf 'armed\n%s\n%s\n%s\n%s\nwrites 4\n' \
        "kernel.data(\"dirty_expire_interval\").write 3001" "kernel.data(\"dirty_expire_interval\").write 3002" \
        "kernel.data(\"dirty_expire_interval\").write 3003" "kernel.data(\"dirty_expire_interval\").write $orig" | diff - kdata.out
    only_skip_warnings kdata.err
    # the two reads, and the four writes of the process that wrote 300x
    printf 'armed\nrw: reads 2 writes 4\n' | diff - kdrw.out
    only_skip_warnings kdrw.err
    grep -q "probe point kernel.data(\"no_such_symbol_stp\").write: no kernel symbol 'no_such_symbol_stp'" kdnone.err
    [[ $(cat kdopt.out) == ran && ! -s kdopt.err ]]
}
