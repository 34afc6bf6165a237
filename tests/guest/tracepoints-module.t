# kernel.trace on a module's tracepoint (stap_tpmod, -d KO): it goes live when the module loads mid-run, again after a reload
# Used by tests/run (issue 14): the module notifier of runtime/probes/tracepoints.c, typed reads of the module's own struct.

timeout_s=120

build() {
    need_kernel_dwarf
    source "$TOP/tests/lib/testmod.sh"
    kmod_build tpmod "$TOP/build/tests/tpmod/$KVER" >ko.path
    local ko
    ko=$(cat ko.path)
    # -L lists the module's tracepoint with its argument types
    $STAP -d "$ko" -L 'kernel.trace("stap_tpmod:*")' >list.out
    $STAP -p4 -m t_tpmod -d "$ko" -e '
probe kernel.trace("stap_tpmod:stap_tpmod_event") {
    printf("%s seq %d tag %s value %d label %s\n", pp(), $seq, kernel_string($tag), $info->value,
           kernel_string($info->label))
}' >/dev/null
    # the system named alone, without -d: not found in the kernel, nor as a module named so
    not $STAP -p2 -e 'probe kernel.trace("stap_tpmod:stap_tpmod_event") {}' 2>nodash.err
}

guest() {
    local ko
    ko=$(cat ko.path)
    not loaded stap_tpmod
    # the run starts without the module; it is loaded, fired, removed and loaded again meanwhile
    staprun -c "sh -c 'insmod $ko; echo 3 >/sys/module/stap_tpmod/parameters/fire; rmmod stap_tpmod;
                       insmod $ko; rmmod stap_tpmod'" t_tpmod.ko >module.out
    not loaded stap_tpmod
}

check() {
    [[ $(cat rc) == 0 ]]
    grep -qx 'kernel.trace("stap_tpmod:stap_tpmod_event") $seq:int $tag:char const\* $info:struct stap_tpmod_info\*' \
        list.out
    grep -q "no tracepoint 'stap_tpmod:stap_tpmod_event'" nodash.err
    local want pp='kernel.trace("stap_tpmod:stap_tpmod_event")'
    want=$(for s in 1 2 3 4 5; do echo "$pp seq $s tag init value ${s}00 label tp$s"; done
           for s in 6 7 8; do echo "$pp seq $s tag fire value ${s}00 label tp$s"; done
           for s in 1 2 3 4 5; do echo "$pp seq $s tag init value ${s}00 label tp$s"; done)
    [[ $(cat module.out) == "$want" ]]
}
