# bpf-runtime - the --runtime=bpf column of the script cases (issue 48): every tests/runtime/NAME.stp built
# with stap --runtime=bpf and run with staprun NAME.bo on this host (BPF objects load here, no guest), its
# stdout, stderr and exit status compared with NAME.out, NAME.err and `#! rc:` as the module's are in the
# guest. A case that does not pass must be in tests/runtime/bpf.list with the reason it gave: refused at
# translation ("X is not available on the BPF runtime yet"), or by staprun; and a listed case must give
# exactly that reason, so that a feature added to the BPF runtime takes its cases off the list (a "fail:" line
# there is a known defect, the kernel's verifier refusing what the runtime wrote). A case whose
# pass 2 fails without --runtime=bpf as well (what this host lacks: kernel headers for a tracepoint's
# system, a module's types), or that this host cannot attach (kprobes), is counted, not judged. Used by tests/run (unit/bpf-runtime).
asan_rerun=0
timeout_s=900
cost_s=120

# one_case SCRIPT: its outcome line "NAME OUTCOME" into NAME.outcome: pass, refused: WHY, host: WHY or fail: WHY
one_case() {
    local s=$1 name d rc=0 want_rc line pid i
    local -a opts args ropts
    name=${s##*/} name=${name%.stp}
    mkdir -p "c/$name"
    cd "c/$name" || return 1
    cp "$s" .
    directive() { sed -n "s/^#! $1: //p" "$s" | head -n 1; }
    eval "opts=($(directive stap))"
    eval "args=($(directive staprun))"
    eval "ropts=($(directive staprun-options))"
    want_rc=$(directive rc)
    outcome() { echo "$name $*" >"../../$name.outcome"; cd ../..; }
    # (named as the case's module is, rt_NAME: module_name() prints it)
    if ! $STAP --runtime=bpf -p4 -m "rt_${name//[^A-Za-z0-9_]/_}" "${opts[@]}" "$name.stp" >p4.out 2>p4.err; then
        line=$(sed -n 's/.*error: \(.*\) is not available on the BPF runtime yet.*/\1/p' p4.err | head -n 1)
        [[ -n $line ]] && { outcome "refused: $line"; return 0; }
        if ! $STAP -p2 "${opts[@]}" "$name.stp" >/dev/null 2>p2.err; then
            outcome "host: $(grep -m1 'error' p2.err | sed 's/^[^ ]* //')"
            return 0
        fi
        outcome "fail: pass 4: $(grep -m1 'error' p4.err)"
        return 0
    fi
    if [[ -n $(directive workload) ]]; then
        timeout 60 "$STAPRUN" "${ropts[@]}" rt_*.bo "${args[@]}" >stdout 2>stderr &
        pid=$!
        for ((i = 0; i < 300; i++)); do
            [[ -s stdout ]] && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        bash -c "$(directive workload)" >/dev/null 2>&1 || true
        wait "$pid" || rc=$?
    else
        timeout 60 "$STAPRUN" "${ropts[@]}" rt_*.bo "${args[@]}" >stdout 2>stderr || rc=$?
    fi
    # this host has no kprobes: a kernel.function or kprobe probe, translated, cannot attach here
    grep -Eq '^stapio: cannot attach .*: this kernel has no kprobes(, and no BPF trampoline for its function)?$' stderr && { outcome "host: no kprobes"; return 0; }
    line=$(sed -n 's/^staprun: cannot run .*: \(.* for modules only\)$/\1/p' stderr | head -n 1)
    [[ -n $line ]] && { outcome "refused: $line"; return 0; }
    # the kernel's verifier refused the object: a defect of the BPF runtime, listed as such until mended
    line=$(sed -n 's/^stapio: cannot load BPF object [^ ]*: \(.*\) (-v shows .*$/\1/p' stderr | head -n 1)
    [[ -n $line ]] && { outcome "fail: the kernel refused the object: $line"; return 0; }
    if [[ -n $(directive sed) ]]; then
        sed -i "$(directive sed)" stdout stderr
    fi
    if [[ $rc != "${want_rc:-0}" ]]; then
        outcome "fail: exit status $rc, not ${want_rc:-0}: $(head -c 300 stderr | tr '\n' '|')"
    elif ! cmp -s stdout "${s%.stp}.out"; then
        outcome "fail: stdout differs: $(diff stdout "${s%.stp}.out" | head -n 4 | tr '\n' '|')"
    elif { [[ -e ${s%.stp}.err ]] && ! cmp -s stderr "${s%.stp}.err"; } || { [[ ! -e ${s%.stp}.err ]] && [[ -s stderr ]]; }; then
        outcome "fail: stderr differs: $(head -c 300 stderr | tr '\n' '|')"
    else
        outcome pass
    fi
}

# kernel_side: a BTF-typed tracepoint fires here (tp_btf), counted in an array keyed by execname() and a
# statistic, exit() from the probe, the end probe printing both; the run's lines exact. Then with -c CMD.
kernel_side() {
    local pid i
    # timer.profile and timer.profile.freq.hz(N): a cpu-clock perf event on each CPU, the busy CPU's ticks seen, with
    # the interrupted registers (probefunc() names a kernel function, "" in user mode)
    timeout 60 $STAP --runtime=bpf -c "sh -c 'i=0; while [ \$i -lt 300000 ]; do i=\$((i + 1)); done'" -e '
global n, h, mine, bad
probe timer.profile { n++; if (pid() == target()) { mine++; if ((probefunc() == "") != user_mode()) bad++ } }
probe timer.profile.freq.hz(100) { h++ }
probe end { printf("ticks %d %d %d %s %d\n", n > 0, h > 0, mine > 0, pp(), bad) }' >prof.out 2>prof.err || { cat prof.out prof.err; return 1; }
    [[ $(cat prof.out) == "ticks 1 1 1 end 0" ]] || { cat prof.out prof.err; return 1; }
    # a timer probe reads no other hit's registers or stack (a profile tick's, in the same CPU's context before it)
    timeout 60 $STAP --runtime=bpf -c "sh -c 'i=0; while [ \$i -lt 100000 ]; do i=\$((i + 1)); done'" -e '
global n, t, bad
probe timer.profile { n++ }
probe timer.ms(1) { t++; if (addr() != 0 || probefunc() != "" || backtrace() != "") bad++ }
probe end { printf("stale %d %d %d\n", n > 0, t > 0, bad) }' >stale.out 2>stale.err || { cat stale.out stale.err; return 1; }
    [[ $(cat stale.out) == "stale 1 1 0" ]] || { cat stale.out stale.err; return 1; }
    # perf.sw.* (perf.type(1).config(N)) on each CPU, by count and by rate: the busy command's CPU clock seen; a hardware
    # event this machine's CPUs may lack is named when it cannot be opened
    timeout 60 $STAP --runtime=bpf -c "sh -c 'i=0; while [ \$i -lt 300000 ]; do i=\$((i + 1)); done'" -e '
global n, h, mine
probe perf.sw.cpu_clock.sample(1000000) { n++; if (pid() == target()) mine++ }
probe perf.type(1).config(1).hz(100) { h++ }
probe end { printf("perf %d %d %d\n", n > 0, h > 0, mine > 0) }' >perf.out 2>perf.err || { cat perf.out perf.err; return 1; }
    [[ $(cat perf.out) == "perf 1 1 1" ]] || { cat perf.out perf.err; return 1; }
    if ! timeout 60 $STAP --runtime=bpf -e 'probe perf.hw.instructions { } probe timer.ms(100) { exit() }' >/dev/null 2>perfhw.err; then
        grep -q '^stapio: cannot open perf event type 0 config 1 on CPU 0 for stp_perf_[0-9]*_0_1_1000000_0: ' perfhw.err ||
            { cat perfhw.err; return 1; }
    fi
    # tapset C marked for both runtimes: errno names (the kernel's own codes too), IS_ERR, a string read that falls back
    timeout 60 $STAP --runtime=bpf -e 'probe begin { printf("%s %s %s %s %d %d [%s] [%s]\n", errno_str(2), errno_str(-512),
        errno_str(9999), errno_str(-1), _IS_ERR(-2), _IS_ERR(4096), kernel_string2(0, "bad"), kernel_string2_n(0, 3, "bad2")); exit() }' \
        >tapc.out 2>tapc.err || { cat tapc.err; return 1; }
    [[ $(cat tapc.out) == "ENOENT ERESTARTSYS E#9999 EPERM 1 0 [bad] [bad2]" ]] || { cat tapc.out tapc.err; return 1; }
    timeout 60 $STAP --runtime=bpf -e 'probe begin { printf("%s|%s|%s|%s|%s %s\n", ctime(0), ctime(951782400), ctime(-86400),
        ctime(2147483647), ip_ntop(0x0100007f), ip_ntop(0xffffffff)); exit() }' >ctime.out 2>ctime.err || { cat ctime.err; return 1; }
    [[ $(cat ctime.out) == "Thu Jan  1 00:00:00 1970|Tue Feb 29 00:00:00 2000|Wed Dec 31 00:00:00 1969|Tue Jan 19 03:14:07 2038|127.0.0.1 255.255.255.255" ]] ||
        { cat ctime.out ctime.err; return 1; }
    # a full wrapping array's oldest entry gives way, as the module's: by insertion (an update keeps its place, a deleted
    # one has none), string values and string keys alike
    timeout 60 $STAP --runtime=bpf -e 'global s%[3], m%[2] probe begin { for (i = 1; i <= 5; i++) s[i] = sprintf("v%d", i)
        s[4] = "x"; s[6] = "six"; foreach (k+ in s) printf("%d=%s ", k, s[k]); println()
        m["a", 1] = 1; m["b", 2] = 2; delete m["a", 1]; m["c", 3] = 3; m["d", 4] = 4
        foreach ([a, b] in m+) printf("%s%d=%d ", a, b, m[a, b]); println(); exit() }' >wrap.out 2>wrap.err || { cat wrap.err; return 1; }
    printf '%s\n' "4=x 5=v5 6=six " "c3=3 d4=4 " | diff - wrap.out || { cat wrap.err; return 1; }
    # ... and arrays of statistics, through a deletion, delete of the whole array and a slice's
    timeout 60 $STAP --runtime=bpf -e 'global s%[2], m%[2] probe begin { s[1] <<< 1; s[2] <<< 2; delete s[1]; s[3] <<< 3; s[4] <<< 4
        foreach (k+ in s) printf("%d:%d ", k, @sum(s[k])); println()
        delete s; s[5] <<< 5; s[6] <<< 6; s[7] <<< 7; foreach (k+ in s) printf("%d:%d ", k, @sum(s[k])); println()
        m[1,1] <<< 1; m[1,2] <<< 1; delete m[1,*]; m[2,1] <<< 1; m[2,2] <<< 1; m[3,3] <<< 1
        foreach ([a+,b] in m) printf("%d,%d ", a, b); println(); exit() }' >wraps.out 2>wraps.err || { cat wraps.err; return 1; }
    printf '%s\n' "3:3 4:4 " "6:6 7:7 " "2,2 3,3 " | diff - wraps.out || { cat wraps.err; return 1; }
    # a tapset's STAP_ERROR with a format and its values, and with none (substr's), as the module words them
    timeout 60 $STAP --runtime=bpf -e 'probe begin { try { println(ctime(99999999999)) } catch (e) { println(e) }
        try { println(stringat("ab", 5)) } catch (e) { println(e) } exit() }' >terr.out 2>terr.err || { cat terr.err; return 1; }
    printf '%s\n' "ctime: time 99999999999 out of range" "Position out of bounds" | diff - terr.out || { cat terr.err; return 1; }
    cat >tp.stp <<'EOF'
global execs, n
probe begin { println("ready") }
probe kernel.trace("sched_process_exec") {
	if (execname() == "true") {
		execs[execname()]++
		n <<< 10 * execs["true"]
		if (execs["true"] == 3)
			exit()
	}
}
probe end { printf("true=%d count=%d sum=%d max=%d\n", execs["true"], @count(n), @sum(n), @max(n)) }
EOF
    timeout 60 $STAP --runtime=bpf tp.stp >tp.out 2>tp.err &
    pid=$!
    for ((i = 0; i < 600; i++)); do
        [[ -s tp.out ]] && break
        sleep 0.1
    done
    for i in 1 2 3 4 5; do /bin/true; done
    wait "$pid" || { echo "stap --runtime=bpf tp.stp failed:"; cat tp.out tp.err; return 1; }
    printf 'ready\ntrue=3 count=3 sum=60 max=30\n' | diff - tp.out || return 1
    [[ ! -s tp.err ]] || { cat tp.err; return 1; }
    # -c CMD: released once the probes are armed (its exec is seen), the run ends when it exits
    timeout 60 $STAP --runtime=bpf -c "/bin/true x" -e 'probe kernel.trace("sched_process_exec") {
	if (execname() == "true") printf("exec %s\n", execname()) } probe end { println("end") }' >c.out 2>c.err ||
        { cat c.out c.err; return 1; }
    printf 'exec true\nend\n' | diff - c.out || return 1
    [[ ! -s c.err ]] || { cat c.err; return 1; }
    # the caller's time zone, as stapio writes it into the object before the load (a module's gets it by "tz")
    $STAP --runtime=bpf -p4 -m tzobj -e 'probe begin { printf("%d %s %s\n", tz_gmtoff(), tz_name(), tz_ctime(0)) exit() }' \
        >/dev/null || return 1
    [[ $(TZ=EST5 "$STAPRUN" tzobj.bo) == "18000 EST Wed Dec 31 19:00:00 EST 1969" &&
       $(TZ=UTC0 "$STAPRUN" tzobj.bo) == "0 UTC Thu Jan  1 00:00:00 UTC 1970" ]] || { TZ=EST5 "$STAPRUN" tzobj.bo; return 1; }
}

# probes_here: the probe families this host runs as BPF, with target variables: uprobes on a program built
# here (arguments in registers, a structure through a user pointer, $return, -c and target()), an SDT
# marker whose semaphore the attach counts (python3.11's gc__start fires only then), a BTF tracepoint's
# arguments ($p->pid, $old_pid, @cast) and the tapset's C on CO-RE types (d_name, task_parent, task_pid, task_tid,
# task_execname)
probes_here() {
    cat >prog.c <<'EOF'
#include <stdio.h>
struct pair { long a; int b; };
__attribute__((noinline)) long work(int x, struct pair *p) { return x * 10 + p->a + p->b; }
int main(void) { struct pair p = { 100, 5 }; long s = 0; for (int i = 0; i < 3; i++) s += work(i, &p); printf("%ld\n", s); return 0; }
EOF
    gcc -g -O1 -o prog prog.c || return 1
    cat >up.stp <<'EOF'
probe process("./prog").function("work") { printf("work x=%d a=%d b=%d mine=%d\n", $x, $p->a, $p->b, pid() == target()) }
probe process("./prog").function("work").return { printf("work returns %d\n", $return) }
EOF
    timeout 60 $STAP --runtime=bpf -c ./prog up.stp >up.out 2>up.err || { cat up.out up.err; return 1; }
    printf '%s\n' "work x=0 a=100 b=5 mine=1" "work returns 105" "work x=1 a=100 b=5 mine=1" "work returns 115" \
        "work x=2 a=100 b=5 mine=1" "work returns 125" | diff - <(grep '^work' up.out) || { cat up.err; return 1; }
    grep -qx 345 up.out && [[ ! -s up.err ]] || { cat up.out up.err; return 1; }
    # __get_argv() (syscall.execve's argstr): a user argv array's strings quoted, an unreadable element or array as its
    # address, NULL; skip leaves the first ones out
    cat >argvp.c <<'EOF'
volatile int sink;
__attribute__((noinline)) void show(char **argv) { if (argv && argv != (char **)16) sink += argv[0][0]; }
int main(int argc, char **argv) { char x[] = "x"; char *bad[] = { x, (char *)8, 0 }; (void)argc; show(argv); show(bad); show((char **)16); show(0); return 0; }
EOF
    gcc -g -O1 -o argvp argvp.c || return 1
    timeout 60 $STAP --runtime=bpf -c './argvp one "two words" "q\"t"' -e 'probe process("./argvp").function("show") {
        println(__get_argv($argv, 0), " | ", __get_argv($argv, 1)) }' >argv.out 2>argv.err || { cat argv.out argv.err; return 1; }
    printf '%s\n' '["./argvp", "one", "two words", "q\"t"] | ["one", "two words", "q\"t"]' '["x", 0x8] | [0x8]' '[0x10] | [0x10]' \
        'NULL | NULL' | diff - argv.out || { cat argv.err; return 1; }
    # __count_envp(): an envp array's count, singular for one; its address when unreadable
    cat >envp.c <<'EOF'
volatile int sink;
__attribute__((noinline)) void envs(char **envp) { if (envp && envp != (char **)16) sink += envp[0] != 0; }
int main(int argc, char **argv, char **envp) { char *one[] = { argv[0], 0 }; char *none[] = { 0 }; (void)argc; envs(envp); envs(one); envs(none); envs((char **)16); envs(0); return 0; }
EOF
    gcc -g -O1 -o envp envp.c || return 1
    timeout 60 env -i PATH="$PATH" A=1 B=2 $STAP --runtime=bpf -c ./envp -e 'probe process("./envp").function("envs") {
        println(__count_envp($envp)) }' >envp.out 2>envp.err || { cat envp.out envp.err; return 1; }
    printf '%s\n' '[/* 3 vars */]' '[/* 1 var */]' '[/* 0 vars */]' 0x10 NULL | diff - envp.out || { cat envp.err; return 1; }
    # is_return(): one handler for an entry and its return
    timeout 60 $STAP --runtime=bpf -c ./prog -e 'probe process("./prog").function("work"), process("./prog").function("work").return {
        printf("%s %d\n", ppfunc(), is_return()) }' >isr.out 2>isr.err || { cat isr.out isr.err; return 1; }
    [[ $(grep '^work' isr.out | tr '\n' ' ') == "work 0 work 1 work 0 work 1 work 0 work 1 " ]] || { cat isr.out isr.err; return 1; }
    # @entry in a .return probe: saved per call, a recursion's levels each with their own (and a string)
    cat >rec.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long f(long n, const char *s) { return n <= 0 ? 0 : f(n - 1, s + 1) + n; }
int main(int argc, char **argv) { const char *s = "abcdefgh"; printf("%s\n", s); printf("%ld\n", f(argc > 1 ? atol(argv[1]) : 3, s)); return 0; }
EOF
    gcc -g -O1 -o rec rec.c || return 1
    timeout 60 $STAP --runtime=bpf -c './rec 3' -e 'probe process("./rec").function("f").return {
        printf("f(%d, %s) = %d\n", @entry($n), @entry(user_string($s)), $return) }' >rec.out 2>rec.err || { cat rec.out rec.err; return 1; }
    printf '%s\n' "f(0, defgh) = 0" "f(1, cdefgh) = 1" "f(2, bcdefgh) = 3" "f(3, abcdefgh) = 6" |
        diff - <(grep '^f(' rec.out) || { cat rec.err; return 1; }
    # pretty printing: $$vars, $$parms, $p$ and $p$$ of a struct through a user pointer (a user string's address,
    # as the module prints it: its memory is read as the kernel's)
    cat >ppu.c <<'EOF'
#include <stdio.h>
struct inner { int x; char c; };
struct pair { long a; int b; const char *name; struct inner in; char tag; };
__attribute__((noinline)) long work(int x, struct pair *p) { return x * 10 + p->a + p->b; }
int main(void) { struct pair p = { 100, 5, "pname", { 7, 'q' }, '\n' }; printf("%s %ld\n", p.name, work(3, &p)); return 0; }
EOF
    gcc -g -O0 -o ppu ppu.c || return 1
    timeout 60 $STAP --runtime=bpf -c ./ppu -e 'probe process("./ppu").function("work") { printf("%s|%s|%s|%s\n", $$vars, $$parms, $p$, $p$$) printf("ppfunc %s\n", ppfunc()) }' \
        >ppu.out 2>ppu.err || { cat ppu.out ppu.err; return 1; }
    grep -Eqx "x=0x3 p=(0x[0-9a-f]+)\|x=0x3 p=\1\|\{\.a=100, \.b=5, \.name=0x[0-9a-f]+, \.in=\{\.\.\.\}, \.tag='\\\\n'\}\|\{\.a=100, \.b=5, \.name=0x[0-9a-f]+, \.in=\{\.x=7, \.c='q'\}, \.tag='\\\\n'\}" ppu.out ||
        { cat ppu.out ppu.err; return 1; }
    grep -qx "ppfunc work" ppu.out || { cat ppu.out ppu.err; return 1; }
    # the conversions' quoting (user_string_quoted, _n_quoted: escapes, cut at maxlen or at the output's size)
    cat >quote.c <<'EOF'
#include <string.h>
static char buf[64] = "a\"b\\c\td\001e";
__attribute__((noinline)) int f(const char *s) { return strlen(s); }
int main(void) { buf[0] = 'a'; return f(buf) == 0; }
EOF
    gcc -g -O0 -o quote quote.c || return 1
    timeout 60 $STAP --runtime=bpf -c ./quote -e 'probe process("./quote").function("f") {
	printf("%s %s %s\n", user_string_quoted($s), user_string_n_quoted($s, 3), user_string_n_quoted($s, 4, 7)) }' \
        >quote.out 2>quote.err || { cat quote.out quote.err; return 1; }
    printf '%s\n' '"a\"b\\c\td\001e" "a\"b"... "a"...' | diff - quote.out || { cat quote.err; return 1; }
    if [[ -x /usr/bin/python3.11 ]]; then
        timeout 60 $STAP --runtime=bpf -c "/usr/bin/python3.11 -c 'import gc; gc.collect()'" -e '
global n
probe process("/usr/bin/python3.11").mark("gc__start") { n++ }
probe end { printf("gc runs seen: %s\n", n > 0 ? "yes" : "no") }' >sdt.out 2>sdt.err || { cat sdt.out sdt.err; return 1; }
        echo "gc runs seen: yes" | diff - sdt.out || { cat sdt.err; return 1; }
    fi
    # as a BTF tracepoint, and as a raw tracepoint (what stapio falls back to where the kernel has no BTF type for it)
    local raw sec
    for raw in "" -DSTP_BPF_RAW_TRACEPOINTS; do
        timeout 60 $STAP --runtime=bpf $raw -c "/bin/sh -c '/bin/true; /bin/true'" -e '
probe kernel.trace("sched_process_exec") {
	if (execname() == "true") printf("%s %d %d %s %d %d %d %s\n", execname(), $p->pid == pid(), $old_pid == pid(),
		d_name(@cast($bprm, "linux_binprm")->file->f_path->dentry), task_parent(task_current()) != 0,
		task_pid(task_current()) == pid(), task_tid(task_current()) == tid(), task_execname(task_current()))
	if (execname() == "true") printf("%s %s [%s]\n", symname($p->sched_class->enqueue_task), symname(0), ppfunc())
}' -p4 -m "tpv${raw:+_raw}" >/dev/null &&
            timeout 60 "$STAPRUN" -vv -c "/bin/sh -c '/bin/true; /bin/true'" "tpv${raw:+_raw}.bo" >tpv.out 2>tpv.err ||
            { cat tpv.out tpv.err; return 1; }
        printf 'true 1 1 true 1 1 1 true\nenqueue_task_fair 0x0000000000000000 []\ntrue 1 1 true 1 1 1 true\nenqueue_task_fair 0x0000000000000000 []\n' | diff - tpv.out ||
            { cat tpv.err; return 1; }
        sec=tp_btf
        [[ -z $raw ]] || sec=raw_tp
        grep -q "^stapio: stp_tp_0000 ($sec/sched_process_exec): attached$" tpv.err || { cat tpv.err; return 1; }
        # -v: what the load cost, per program and map (the ring is 16 MiB)
        grep -Eq "^stapio: stp_tp_0000 \($sec/sched_process_exec\): [1-9][0-9]* instructions verified, [1-9][0-9]* translated \([1-9][0-9]* bytes\), [1-9][0-9]* bytes of machine code$" tpv.err &&
            grep -q "^stapio: map stp_ring: a ring of 16384 KiB, [1-9][0-9]* KiB locked$" tpv.err &&
            grep -Eq "^stapio: the load: [1-9][0-9]* instructions verified, [1-9][0-9]* KiB of maps$" tpv.err || { cat tpv.err; return 1; }
    done
    # perf counters on each CPU read where a kernel probe runs: context switches (a perf probe between them, which
    # counts in the perf probes' numbering) and the CPU's clock, both counting since the load
    timeout 60 $STAP --runtime=bpf -c "/bin/sh -c '/bin/true; /bin/true'" -e '
probe perf.type(1).config(3).counter("cs") { } probe perf.type(1).config(0).hz(10) { } probe perf.type(1).config(0).counter("clk") { }
probe kernel.trace("sched_process_exec") { if (execname() == "true") printf("%d %d\n", @perf("cs") > 0, @perf("clk") > 1000) }' \
        >perf.out 2>perf.err || { cat perf.out perf.err; return 1; }
    printf '1 1\n1 1\n' | diff - perf.out && [[ ! -s perf.err ]] || { cat perf.err; return 1; }
    # a kernel function's entry on a BPF trampoline where the kernel has one, else on its kprobe twin: this kernel
    # refuses the trampoline (the object loaded again without it) and has no kprobes; -D STP_BPF_KPROBES_ONLY has
    # no trampoline to refuse (guest/bpf-trampolines runs both where they attach)
    $STAP --runtime=bpf -p4 -m tramp -e 'global n; probe kprobe.function("ksys_read") { n++ }' >/dev/null &&
        $STAP --runtime=bpf -p4 -m kponly -D STP_BPF_KPROBES_ONLY -e 'global n; probe kprobe.function("ksys_read") { n++ }' >/dev/null ||
        return 1
    ! timeout 60 "$STAPRUN" -v tramp.bo >tramp.out 2>tramp.err && ! timeout 60 "$STAPRUN" -v kponly.bo >kponly.out 2>kponly.err ||
        { cat tramp.err kponly.err; return 1; }
    grep -q "^stapio: the kernel refused .*/tramp.bo's trampolines (.*): kprobes instead$" tramp.err &&
        grep -q '^stapio: cannot attach stp_kp_0000 (kprobe/0/ksys_read): this kernel has no kprobes, and no BPF trampoline for its function$' tramp.err &&
        grep -q '^stapio: cannot attach stp_kp_0000 (kprobe/0/ksys_read): this kernel has no kprobes$' kponly.err &&
        ! grep -q 'trampoline' kponly.err && [[ ! -s tramp.out && ! -s kponly.out ]] || { cat tramp.err kponly.err; return 1; }
}

# output_modes: -o with a strftime name, -S SIZE,N's rotation (the newest N files of at most SIZE MB kept); records
# a full ring refused are counted and reported as the module runtime reports them, with the ring's size
output_modes() {
    local y lost
    # output_lost_records() and output_lost_bytes() in the script: the same counts, read by the end probe once the
    # ring has room (the begin probe's last records, and its exit()'s, were lost after the loop: stapio ends the run
    # all the same)
    timeout 60 $STAP --runtime=bpf -D STP_BPF_RING_BYTES=4096 -e '
probe begin { for (i = 0; i < 500; i++) printf("%d\n", i); exit() }
probe end { printf("lost %d %d\n", output_lost_records(), output_lost_bytes()) }' >lost.out 2>lost.err || { cat lost.err; return 1; }
    lost=$(sed -n 's/^WARNING: \([0-9]*\) records (\([0-9]*\) bytes) lost$/\1 \2/p' lost.err)
    # a hit's output is one record (as the module's), cut where its buffer of STP_BPF_OUT_CAP fills: the lines that
    # came are the first ones, in whole buffers; each lost line's printf took 24 bytes (its sub-record's head, the
    # format's number, the value, padding), the exit() record 8
    [[ -n $lost && $(tail -n 1 lost.out) == "lost $lost" ]] && sed -i '$d' lost.out &&
        diff lost.out <(seq 0 $(( $(wc -l <lost.out) - 1 ))) >/dev/null &&
        (( $(wc -l <lost.out) < 500 && ${lost% *} >= 2 && ${lost#* } == 24 * (500 - $(wc -l <lost.out)) + 8 )) &&
        grep -qx 'WARNING: the ring of 4096 bytes was full (-D STP_BPF_RING_BYTES=N makes it larger: a power of 2)' lost.err ||
        { echo "lost records:"; wc -l <lost.out; cat lost.err; return 1; }
    y=$(date +%Y)
    timeout 60 $STAP --runtime=bpf -o o_%Y.txt -e 'probe begin { printf("to file\n"); exit() }' >o.out 2>o.err ||
        { cat o.out o.err; return 1; }
    [[ $(cat "o_$y.txt") == "to file" && ! -s o.out && ! -s o.err ]] || { ls; cat o.err; return 1; }
    timeout 60 $STAP --runtime=bpf -DMAXACTION=100000 -S 1,2 -o rot.txt -e '
probe begin { for (i = 0; i < 30000; i++) printf("%0100d\n", i); exit() }' >rot.out 2>rot.err || { cat rot.err; return 1; }
    # 3 MB written: rot.txt.0 rotated away, .1 full, .2 ends with the last line
    [[ ! -e rot.txt.0 && -e rot.txt.1 && -e rot.txt.2 && ! -e rot.txt.3 ]] || { ls -la rot.txt*; return 1; }
    (( $(stat -c %s rot.txt.1) <= 1048576 )) || { ls -la rot.txt*; return 1; }
    [[ $(tail -n 1 rot.txt.2) == "$(printf '%0100d' 29999)" && ! -s rot.err ]] || { tail -n 2 rot.txt.2; cat rot.err; return 1; }
    # switch_file(): chunk 1 in swf.out, chunk 2 in swf.out.1, chunk 3 in swf.out.2 (as a module's: guest/output-files)
    timeout 60 $STAP --runtime=bpf -o swf.out -e 'global n
probe timer.ms(100) { printf("chunk %d\n", ++n); switch_file(); if (n == 3) exit() }' >swf.stdout 2>swf.err ||
        { cat swf.err; return 1; }
    [[ $(cat swf.out) == "chunk 1" && $(cat swf.out.1) == "chunk 2" && $(cat swf.out.2) == "chunk 3" ]] ||
        { head swf.out*; return 1; }
    (( $(ls swf.out* | wc -l) <= 4 )) && [[ ! -s swf.stdout && ! -s swf.err ]] || { ls swf.out*; cat swf.err; return 1; }
}

# expect_refusal WANT CMD...: CMD exits 1 with WANT in its stderr (r.err)
expect_refusal() {
    local want=$1 rc=0
    shift
    "$@" >r.out 2>r.err || rc=$?
    if [[ $rc != 1 ]] || ! grep -qF -- "$want" r.err; then
        echo "$* gave exit $rc, wanted 1 and \"$want\":"; cat r.out r.err; return 1
    fi
}

# refusals: staprun NAME.bo not installed setuid, run by another user than root, cannot load it (privileges checks the
# setuid one), and takes none of the options of modules; a bad object, file or
# name; an unknown runtime; what the BPF runtime cannot run, refused at translation with where and why
refusals() {
    $STAP --runtime=bpf -p4 -m tpobj -e 'probe begin { exit() }' >/dev/null || return 1
    chmod 755 .
    expect_refusal "Operation not permitted (BPF needs root" setpriv --reuid=65534 --regid=65534 \
        --groups "$(getent group stapdev | cut -d: -f3)" "$STAPRUN" "$PWD/tpobj.bo" || return 1
    expect_refusal "are for modules only" "$STAPRUN" -L tpobj.bo || return 1
    expect_refusal "cannot set x=1: the script has no global x that it reads" "$STAPRUN" tpobj.bo x=1 || return 1
    expect_refusal "are for modules only" "$STAPRUN" -b 4 tpobj.bo || return 1
    cp tpobj.bo 'bad name.bo'
    expect_refusal "a BPF object file is named NAME.bo" "$STAPRUN" 'bad name.bo' || return 1
    expect_refusal "cannot open BPF object missing.bo: No such file or directory" "$STAPRUN" missing.bo || return 1
    head -c 100 tpobj.bo >broken.bo
    expect_refusal "cannot open BPF object $PWD/broken.bo" "$STAPRUN" broken.bo || return 1
    expect_refusal "--runtime=lua: the runtimes are kernel and bpf" $STAP --runtime=lua -e 'probe begin {}' || return 1
    expect_refusal "<input>:1:34: error: embedded-C function f() is not available on the BPF runtime yet: use the module runtime" \
        $STAP -g --runtime=bpf -p3 -e 'function f() %{ %} probe begin { f() }' || return 1
    grep -qxF '    function f() %{ %} probe begin { f() }' r.err || { cat r.err; return 1; }
    # an object built for another release: its members' offsets relocated at load to this kernel's (CO-RE), structs
    # by value on the way (f_path, d_name), an array (comm); one that prints a whole struct reads it at that release's
    # offsets, so it runs on that release only, as a module; one that reads nothing (pp()) runs anywhere
    local other
    other=$(ls /lib/modules | grep -vxF "$(uname -r)" | head -n 1) || true
    if [[ -n $other ]]; then
        $STAP --runtime=bpf -r "$other" -p4 -m kvbound -e 'probe kernel.trace("sched_process_exec") { println($bprm->file->f_path$) }' >/dev/null &&
            $STAP --runtime=bpf -r "$other" -p4 -m kvfree -e 'probe kernel.trace("sched_process_exec") { println(pp()) } probe begin { exit() }' >/dev/null &&
            $STAP --runtime=bpf -r "$other" -p4 -m kvcore -e 'probe kernel.trace("sched_process_exec") {
  if (pid() == target())
    printf("%d %d %s %s %s\n", $p->pid - pid(), $p->tgid - pid(), kernel_string($bprm->filename),
           kernel_string($bprm->file->f_path->dentry->d_name->name), kernel_string($p->comm))
}' >/dev/null || return 1
        expect_refusal "cannot run BPF object $PWD/kvbound.bo: its probes read kernel data laid out as in kernel $other; this is kernel $(uname -r): rebuild it with stap --runtime=bpf -r $(uname -r)" \
            "$STAPRUN" kvbound.bo || return 1
        "$STAPRUN" kvfree.bo >kvfree.out 2>kvfree.err || { cat kvfree.err; return 1; }
        "$STAPRUN" -c /bin/true kvcore.bo >kvcore.out 2>kvcore.err && [[ $(cat kvcore.out) == "0 0 /bin/true true true" ]] ||
            { echo "an object built for $other, relocated here:"; cat kvcore.out kvcore.err; return 1; }
        # a kernel global by name (__ksym), found in /proc/kallsyms at load: where the kernel lists no variables
        # (CONFIG_KALLSYMS_ALL unset), stapio says which one it lacks
        $STAP --runtime=bpf -r "$other" -p4 -m kvsym -e 'probe begin { printf("%d\n", @var("nr_threads@kernel/fork.c") > 0) exit() }' >/dev/null ||
            return 1
        if grep -q ' nr_threads$' /proc/kallsyms; then
            [[ $("$STAPRUN" kvsym.bo 2>&1) == 1 ]] || { "$STAPRUN" kvsym.bo; return 1; }
        else
            expect_refusal "cannot run BPF object $PWD/kvsym.bo: its probes read the kernel's global nr_threads, which /proc/kallsyms does not list" \
                "$STAPRUN" kvsym.bo || return 1
        fi
    fi
    # matched()'s walk keeps two lists of threads, each with its groups: 281 threads of 32 groups' slots are too many
    expect_refusal "<input>:1:23: error: a regular expression with too many groups or threads for matched() is not available" \
        $STAP --runtime=bpf -p3 -e "probe begin { if (\"x\" =~ \"(a{250})$(printf '(b)%.0s' {1..30})\") println(matched(1)) }" || return 1
    expect_refusal "<input>:1:1: error: probe point perf.type(1).config(0).process.counter(\"c\") is not available on the BPF runtime yet" \
        $STAP --runtime=bpf -p3 -e 'probe perf.type(1).config(0).process.counter("c") { } probe kernel.trace("sched_process_exec") { println(@perf("c")) }' || return 1
    # a probe stapio runs is a sleepable program, which the kernel lets read no perf event
    expect_refusal "<input>:1:69: error: @perf in a begin, end, error, timer or procfs probe (stapio runs them) is not available" \
        $STAP --runtime=bpf -p3 -e 'probe perf.type(1).config(0).counter("c") { } probe begin { println(@perf("c")) }' || return 1
}

# privileges: a setuid staprun (in a directory of root's alone) runs NAME.bo for stapdev members, for stapusr members
# only installed in the systemtap directory, for no one else; stapio loads as root, then the output file, the -c
# command and stapio itself from the probes' arming on have the caller's ids alone
privileges() {
    local usr dev sd rel dir made=
    usr=$(getent group stapusr | cut -d: -f3) || true
    dev=$(getent group stapdev | cut -d: -f3) || true
    if [[ -z $usr || -z $dev ]] || ! command -v setpriv >/dev/null; then
        echo "no groups stapusr/stapdev or no setpriv here (scripts/install-deps.sh makes them)"
        return 1
    fi
    sd=$(mktemp -d /run/bpf-privileges.XXXXXX)
    chmod 755 "$sd"
    mkdir "$sd/sbin" "$sd/u"
    cp "$STAPRUN" "$(dirname "$STAPRUN")/stapio" "$sd/sbin/"
    chmod 4755 "$sd/sbin/staprun"
    chown 65534:65534 "$sd/u"
    # (a second: the -c command has run its greps long before the run ends, even on a loaded host)
    $STAP --runtime=bpf -p4 -m privs -e 'global n
probe timer.ms(50) { if (++n == 20) exit() }
probe end { printf("n=%d\n", n) }' >/dev/null
    cp privs.bo "$sd/u/"
    chown 65534 "$sd/u/privs.bo"
    # stapdev: the -c command reports its ids and stapio's (its parent) once the probes are armed
    (cd "$sd/u" && setpriv --reuid=65534 --regid=65534 --groups="$dev" "$sd/sbin/staprun" -o out.txt \
        -c "sh -c 'grep ^Uid: /proc/self/status; grep ^Uid: /proc/\$PPID/status; sleep 2'" privs.bo) >priv.out 2>priv.err ||
        { cat priv.out priv.err; rm -rf "$sd"; return 1; }
    printf 'Uid:\t65534\t65534\t65534\t65534\nUid:\t65534\t65534\t65534\t65534\n' | diff - priv.out &&
        [[ $(cat "$sd/u/out.txt") == n=20 && $(stat -c %u "$sd/u/out.txt") == 65534 ]] ||
        { echo "stapdev's run:"; cat priv.out priv.err "$sd/u/out.txt"; rm -rf "$sd"; return 1; }
    # stapusr: not outside the systemtap directory; no one else at all
    rel=$(cat /proc/sys/kernel/osrelease)
    dir=/lib/modules/$rel/systemtap
    (cd "$sd/u" && ! setpriv --reuid=65534 --regid=65534 --groups="$usr" "$sd/sbin/staprun" privs.bo) 2>priv.err &&
        grep -q "members of stapusr may only run modules installed in $dir/" priv.err &&
        (cd "$sd/u" && ! setpriv --reuid=65534 --regid=65534 --clear-groups "$sd/sbin/staprun" privs.bo) 2>priv.err &&
        grep -q "you are not allowed to run stap modules" priv.err || { cat priv.err; rm -rf "$sd"; return 1; }
    # stapusr: installed there (by root), it runs
    [[ -d $dir ]] || { mkdir -p "$dir" && made=1; }
    install -m 644 privs.bo "$dir/bpf_privs_test.bo"
    (cd "$sd/u" && setpriv --reuid=65534 --regid=65534 --groups="$usr" "$sd/sbin/staprun" "$dir/bpf_privs_test.bo") \
        >priv.out 2>priv.err || true
    rm -f "$dir/bpf_privs_test.bo"
    [[ -z $made ]] || rmdir "$dir" "$(dirname "$dir")" 2>/dev/null || true
    rm -rf "$sd"
    [[ $(cat priv.out) == n=20 ]] || { echo "stapusr's installed object:"; cat priv.out priv.err; return 1; }
}

run() {
    local s name want got bad=0 n=0 passed=0 host=0
    [[ $(id -u) == 0 ]] || { echo "needs root (BPF)"; exit 77; }
    [[ -r /sys/kernel/btf/vmlinux ]] || { echo "the kernel has no BTF"; exit 77; }
    command -v clang >/dev/null || { echo "no clang"; return 1; }
    STAPRUN=$TOP/build/bin/staprun
    kernel_side || return 1
    probes_here || return 1
    output_modes || return 1
    refusals || return 1
    privileges || return 1
    # pass 4 is cached as a module is: the second run runs no clang
    local i
    for i in 1 2; do
        SYSTEMTAP_DIR=$PWD/sd $STAP -v --runtime=bpf -e 'probe begin { printf("cached\n"); exit() }' >c$i.out 2>c$i.err ||
            { cat c$i.err; return 1; }
        grep -qx cached c$i.out || { cat c$i.out c$i.err; return 1; }
    done
    grep -q '^Pass 4: cache miss; stored' c1.err && grep -q '^Pass 4: using cached' c2.err || { cat c1.err c2.err; return 1; }
    # an array whose string keys are all literals or execname() has keys that long (runtime/lang-keys-bounded runs it)
    $STAP --runtime=bpf -p3 "$TOP/tests/runtime/lang-keys-bounded.stp" >keys.c
    [[ $(grep -o 'STP_KEY_STR([0-9]*)' keys.c | tr '\n' ' ') == "STP_KEY_STR(32) STP_KEY_STR(512) " ]] ||
        { echo "key sizes: $(grep 'STP_KEY_STR' keys.c)"; return 1; }
    # two at a time: most are refused in pass 3 (a fraction of a second), the rest load and run here
    for s in "$TOP/tests/runtime"/*.stp; do
        while (( $(jobs -rp | wc -l) >= 2 )); do wait -n || true; done
        ( one_case "$s" ) &
    done
    wait
    # the list: NAME<TAB>OUTCOME, comments and blank lines aside
    declare -A listed=()
    while IFS=$'\t' read -r name want; do
        [[ -z $name || $name == \#* ]] && continue
        listed[$name]=$want
        [[ -e $TOP/tests/runtime/$name.stp ]] || { echo "bpf.list names $name, which is no script case"; bad=1; }
    done <"$TOP/tests/runtime/bpf.list"
    for s in "$TOP/tests/runtime"/*.stp; do
        name=${s##*/} name=${name%.stp}
        n=$((n + 1))
        got=$(cut -d' ' -f2- "$name.outcome" 2>/dev/null || echo "fail: no outcome")
        case $got in
        pass) passed=$((passed + 1)) ;;
        host:*) host=$((host + 1)); continue ;;
        esac
        want=${listed[$name]:-pass}
        if [[ $got != "$want" ]]; then
            echo "$name: $got (bpf.list: $want)"
            bad=1
        fi
    done
    echo "$n script cases: $passed pass with --runtime=bpf, $host not runnable on this host, the rest refused as listed"
    return $bad
}
