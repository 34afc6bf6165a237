# tapset functions of a known process: cmdline_*, env_var, sid, pgrp, task_ns_*, task_*_file_handles, task_start_time, @uregister/@kregister, @kderef/@uderef, @container_of, @cast_sizeof, system(), tz_*
# Used by tests/run (issue 15): tapset/linux/context-cmdline.stp, context-ids.stp, task2.stp, task_time.stp, target.stpm, x86_64/dwarf-registers.stp, target-deref.stp, logging.stp (system) and stapio/system.c, tz.stp (stapio's "tz" command).

timeout_s=90
btf_rerun=1

build() {
    need_kernel_dwarf
    gcc -O1 -Wall -o funcs_helper "$TOP/tests/guest/scripts/funcs/funcs_helper.c"
    $STAP -p4 -m t_funcs "$TOP/tests/guest/scripts/funcs/funcs.stp" >/dev/null
    $STAP -p4 -m t_system -e '
probe begin { println("before") system("echo sys-$((6 * 7)) $(id -u)") println("after") }
probe timer.ms(200) { exit() }
probe end { println("end") }' >/dev/null
    $STAP -p4 -m t_tz -e 'probe begin { println(tz_gmtoff(), " ", tz_name()) println(tz_ctime(0)) println(tz_ctime(1000000000)) exit() }' >/dev/null
}

guest() {
    staprun -c "env -i FUNCS_VAR=hello42 PATH=/usr/bin:/bin $PWD/funcs_helper alpha beta gamma >$PWD/helper.out" \
        t_funcs.ko >funcs.out
    staprun t_system.ko >system.out 2>system.err
    # a POSIX TZ string, 3 hours west of UTC: no tzdata needed; UTC when stapio has no zone name
    TZ=ABC+3 staprun t_tz.ko >tz.out
    TZ=UTC0 staprun t_tz.ko >tz-utc.out
}

check() {
    local pid sid pgrp nfds fdsize start
    read -r _ pid sid pgrp nfds fdsize start <helper.out
    [[ $sid == "$pid" && $pgrp == "$pid" && $nfds == 9 ]]
    cat >want.out <<EOW
cmdline_str $PWD/funcs_helper alpha beta gamma
cmdline_arg0 $PWD/funcs_helper
cmdline_arg2 beta
cmdline_arg9 []
cmdline_args12 alpha,beta
cmdline_args2- beta+gamma
env_var hello42
env_var_path /usr/bin:/bin
env_var_unset []
ids $pid $sid $pgrp $pid $pid
fds $nfds $fdsize
start $start
uregister 77 16962 77
kregister 1 1
kderef 1 1 102
uderef 47
container_of 1
module_container_of 1
sizeof 16 16 1
cpuid 1
EOW
    grep -v '^time ' funcs.out | diff want.out -
    grep -Eq '^time usr: [0-9]+m[0-9]+\.[0-9]{3}s, sys: [0-9]+m[0-9]+\.[0-9]{3}s$' funcs.out
    # system(): run by sh (the arithmetic) as the user who ran staprun (root here), after the
    # output printed before the call
    [[ ! -s system.err ]]
    grep -n . system.out >numbered.out
    [[ $(grep -c '^[0-9]*:sys-42 0$' numbered.out) == 1 ]]
    [[ $(grep -n '^before$' system.out | cut -d: -f1) -lt $(grep -n '^sys-42 0$' system.out | cut -d: -f1) ]]
    grep -q '^after$' system.out && grep -q '^end$' system.out
    # tz_*: the zone stapio saw at the start (the "tz" command)
    [[ $(cat tz.out) == "10800 ABC"$'\n'"Wed Dec 31 21:00:00 ABC 1969"$'\n'"Sat Sep  8 22:46:40 ABC 2001" ]]
    [[ $(cat tz-utc.out) == "0 UTC"$'\n'"Thu Jan  1 00:00:00 UTC 1970"$'\n'"Sun Sep  9 01:46:40 UTC 2001" ]]
}
