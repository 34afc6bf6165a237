# perf: timer.profile on every CPU (user_mode, pid, addr, backtrace), perf.sw.* and perf.type().config() hits, .sample rates, .process, @perf counters, hw events refused at start
# Used by tests/run: translator/providers/{profile,perf}.c, runtime/probes/{profile,perf}.c, tapset/linux/perf.stp.

timeout_s=300

build() {
    cat >spin.c <<'EOF'
#include <stdlib.h>
#include <time.h>
/* spin SECONDS: user-mode busy loop */
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 3);
	volatile unsigned long n = 0;
	while (time(NULL) < end)
		for (int i = 0; i < 1000000; i++)
			n++;
	return 0;
}
EOF
    gcc -O1 -o spin spin.c
    gcc -O1 -o pftouch "$TOP/tests/perf/pftouch.c"
    # timer.profile: hits per CPU, user/kernel, the spinning process seen by pid(); one kernel
    # hit's addr() as a symbol and its backtrace
    $STAP -p4 -m t_prof -e '
global hits, user, kern, upid, bt, rate
probe begin { println("armed") }
probe timer.profile {
    hits[cpu()]++
    if (user_mode()) {
        user++
        if (execname() == "spin") upid[pid()]++
    } else {
        kern++
        if (!bt && addr()) { bt = 1; printf("kaddr %s\n", symname(addr())); print_backtrace() }
    }
}
probe timer.profile.freq.hz(100) { rate[cpu()]++ }
probe timer.s(2) {
    foreach (c+ in hits) printf("cpu %d %d\n", c, hits[c])
    foreach (c+ in rate) printf("hz100 %d %d\n", c, rate[c])
    printf("user %d kern %d\n", user, kern)
    foreach (p in upid) printf("spinpid %d %d\n", p, upid[p])
    exit()
}' >/dev/null
    # perf software events: an alias with .sample, the raw form, the default period, context switches
    $STAP -p4 -m t_psw -e '
global pfsum, pf1, pf64, clk, clkdef, clkhz, csw, pfmin, pfmax, pfback, ran
probe begin { println("armed") }
probe perf.sw.page_faults.counter("pf") { ran++ }
probe timer.profile {
    v = @perf("pf"); c = cpu()
    if (!(c in pfmin)) pfmin[c] = v
    if (v < pfmax[c]) pfback++
    pfmax[c] = v
}
probe perf.sw.page_faults.sample(1) { if (execname() == "pftouch") pf1++ }
probe perf.type(1).config(2).sample(64) { if (execname() == "pftouch") pf64++ }
probe perf.sw.cpu_clock.sample(10000000) { clk[cpu()]++ }
probe perf.sw.cpu_clock { clkdef[cpu()]++ }
probe perf.type(1).config(0).hz(50) { clkhz[cpu()]++ }
probe perf.sw.context_switches.sample(1) { csw++ }
probe timer.s(3) {
    printf("pf1 %d\npf64 %d\ncsw %d\n", pf1, pf64, csw)
    foreach (c in pfmin) pfsum += pfmax[c] - pfmin[c]
    printf("counter %d back %d ran %d\n", pfsum, pfback, ran)
    foreach (c+ in clk) printf("clk %d %d\n", c, clk[c])
    foreach (c+ in clkdef) printf("clkdef %d %d\n", c, clkdef[c])
    foreach (c+ in clkhz) printf("clkhz %d %d\n", c, clkhz[c])
    exit()
}' >/dev/null
    # .process: the page faults of the target process (staprun -c: sh -c CMD) and of the children
    # it starts, no one else's; its counter read at the end
    $STAP -p4 -m t_pproc -e '
global n, other
probe perf.sw.page_faults.process.sample(1) {
    n++   # the target: the child of stapio until it execs sh, sh, then pftouch
    if (execname() != "stapio" && execname() != "sh" && execname() != "pftouch") other++
}
probe perf.type(1).config(2).process.counter("tpf") { }
probe end { printf("proc %d other %d counter %d\n", n, other, @perf("tpf")) }' >/dev/null
    # ended under load: fast clocks, every context switch and page fault, the profile timer, and
    # .process events on a live target (-x) that keeps running after the run
    $STAP -p4 -m t_pload -e '
global hits
probe perf.sw.cpu_clock.sample(200000), perf.sw.context_switches.sample(1), perf.sw.page_faults.sample(1),
      timer.profile, perf.sw.task_clock.process.sample(1000000), perf.sw.page_faults.process.sample(1) { hits <<< 1 }
probe timer.ms(700) { printf("load %d\n", @count(hits) > 0); exit() }' >/dev/null
    # hardware events: each of PERF_TYPE_HARDWARE's configs alone, not optional (the begin probe
    # runs before the perf probes are armed, as in SystemTap)
    for i in 0 1 2 3 4 5 6 7 8 9; do
        $STAP -p4 -m t_phw$i -e "probe perf.type(0).config($i) { } probe begin { println(\"hw $i armed\"); exit() }" >/dev/null
    done
    # an optional hardware alias next to a software one: the run goes on without it
    $STAP -p4 -m t_phwopt -e '
global n
probe perf.hw.cpu_cycles ? { n++ }
probe perf.sw.cpu_clock { n++ }
probe timer.ms(500) { printf("opt %d\n", n > 0); exit() }' >/dev/null
}

guest() {
    ./spin 4 & spin=$!
    staprun t_prof.ko >prof.out 2>prof.err
    echo "spin $spin" >>prof.out
    wait $spin

    staprun t_psw.ko >psw.out 2>psw.err & run=$!
    waitfor psw.out armed
    ./pftouch
    wait $run

    staprun -c ./pftouch t_pproc.ko >proc.out 2>proc.err
    not staprun t_pproc.ko >noproc.out 2>noproc.err

    # the target spins longer than the three runs take, even on a slow host; it is killed after
    ./spin 60 & spin=$!
    (while kill -0 $spin 2>/dev/null; do ls / >/dev/null; done) & churn=$!
    for i in 1 2 3; do
        staprun -x $spin t_pload.ko >>load.out 2>>load.err
    done
    kill -0 $spin   # the target outlived the runs
    kill $spin 2>/dev/null || true
    wait $spin $churn || true

    ls /sys/bus/event_source/devices >pmus
    dmesg | grep -i 'performance events' >pmu.dmesg || true
    for i in 0 1 2 3 4 5 6 7 8 9; do
        rc=0; staprun t_phw$i.ko >hw$i.out 2>hw$i.err || rc=$?
        echo $rc >hw$i.rc
    done
    staprun t_phwopt.ko >opt.out 2>opt.err
}

check() {
    # timer.profile fired on both CPUs, about HZ (250) times a second for 2 s
    [[ $(grep -c '^cpu ' prof.out) == 2 ]]
    awk '$1 == "cpu" && !($3 >= 150 && $3 <= 700) { bad = 1 } END { exit bad }' prof.out
    awk '$1 == "hz100" && ($3 >= 80 && $3 <= 260) { n++ } END { exit n != 2 }' prof.out
    # the spinning program was interrupted in user mode, under its own pid
    awk '$1 == "user" && $2 > 0 && $4 > 0 { ok = 1 } END { exit !ok }' prof.out
    spin=$(awk '$1 == "spin" { print $2 }' prof.out)
    grep -qx "spinpid $spin [0-9]*" prof.out
    # a kernel hit's address is a kernel symbol, and its backtrace has frames
    grep -Eq '^kaddr [a-z_][a-z0-9_.]*$' prof.out
    grep -Eq '^ 0x[0-9a-f]+ : [a-z_][a-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+' prof.out
    only_skip_warnings prof.err

    # 4096 pages touched: one hit each with .sample(1) (plus the loader's), one in 64 with .sample(64)
    awk '$1 == "pf1" && $2 >= 4096 && $2 <= 4700 { ok = 1 } END { exit !ok }' psw.out
    awk '$1 == "pf64" && $2 >= 60 && $2 <= 76 { ok = 1 } END { exit !ok }' psw.out
    awk '$1 == "csw" && $2 > 0 { ok = 1 } END { exit !ok }' psw.out
    # cpu_clock every 10 ms: ~300 a CPU in 3 s; by default every 1 ms: ~3000
    awk '$1 == "clk" && $3 >= 150 && $3 <= 400 { n++ } END { exit n != 2 }' psw.out
    awk '$1 == "clkdef" && $3 >= 1500 && $3 <= 4000 { n++ } END { exit n != 2 }' psw.out
    # .hz(50) on the cpu clock: the kernel turns it into a 20 ms period, ~150 a CPU in 3 s
    awk '$1 == "clkhz" && $3 >= 75 && $3 <= 200 { n++ } END { exit n != 2 }' psw.out
    # @perf("pf") in timer.profile: this CPU's page fault count, never going back, grew by at
    # least pftouch's faults; the counter probe's own body never runs
    awk -v pf1="$(awk '$1 == "pf1" { print $2 }' psw.out)" \
        '$1 == "counter" && $2 >= pf1 && $4 == 0 && $6 == 0 { ok = 1 } END { exit !ok }' psw.out
    only_skip_warnings psw.err

    # .process under -c: pftouch's 4096 faults and a few hundred of the shell's and the loader's, no
    # other process's; the counter saw as many; without a target the run does not start
    awk '$1 == "proc" && $2 >= 4096 && $2 <= 5000 && $4 == 0 && $6 == $2 { ok = 1 } END { exit !ok }' proc.out
    grep -q 'probe point perf.type(1).config(2).process.sample(1): .*no target process' noproc.err

    # three runs ended under load, each with hits
    [[ $(grep -cx 'load 1' load.out) == 3 ]]
    only_skip_warnings load.err

    # hardware events: without a hardware PMU ("cpu" in /sys/bus/event_source/devices) each one
    # fails at start with the probe point and the kernel's reason; with one, each that starts runs
    for i in 0 1 2 3 4 5 6 7 8 9; do
        if grep -qx cpu pmus; then
            [[ $(cat hw$i.rc) == 0 && $(cat hw$i.out) == "hw $i armed" ]] || grep -q "perf event type 0 config $i" hw$i.err
        else
            [[ $(cat hw$i.rc) != 0 ]]
            grep -q "probe point perf.type(0).config($i): perf event type 0 config $i: " hw$i.err
        fi
    done
    grep -qx 'opt 1' opt.out
}
