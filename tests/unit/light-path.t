# the light hit path: which probe bodies the translator generates for it (-p3), lock-free @count-only statistics, and that both builds compile
# Used by tests/run (issue 14): translator/codegen/light.c, cg_stats_lockfree, cg_stats_add_unlocked, runtime/core/probe.c's STP_LIGHT_* macros.
cost_s=15

KP='probe kprobe.function("ksys_read")'

# gen SCRIPT: its module's C in ./c.
gen() {
    "$STAP" -p3 -r "$KVER" -e "$1" >c 2>err || { echo "stap -p3 failed on: $1"; cat err; return 1; }
}

# light N SCRIPT: probe body N of SCRIPT is generated for the light path, its descriptor says so,
# and the body names neither the context nor a frame.
light() {
    gen "$2"
    grep -q "^#define STP_LIGHT_PROBE_$1 STP_LIGHT_OK(" c || { echo "probe $1 not light: $2"; cat c; return 1; }
    grep -q "\.light = STP_LIGHT_PROBE_$1[ ,]" c || { echo "probe $1's descriptor not light: $2"; return 1; }
    body "$1" | not grep -E '(^|[^A-Za-z0-9_])(c|f)->' || { echo "probe $1's light body uses c or f: $2"; return 1; }
}

# heavy N SCRIPT: probe body N is generated as before (its frame, the full hit path).
heavy() {
    gen "$2"
    not grep -q "STP_LIGHT_PROBE_$1\b" c || { echo "probe $1 is light: $2"; return 1; }
    grep -q "struct frame_probe_$1 \*f = &((union stp_frame \*)c->frames)->probe_$1;" c ||
        { echo "probe $1 has no frame: $2"; return 1; }
}

# body N: the C of probe_N's function in ./c.
body() { sed -n "/^static void probe_$1(struct stp_context \*c)\$/,/^}\$/p" c; }

run() {
    # the issue's probe: c <<< 1 read by @count alone counts with this_cpu_inc, no lock, no context
    light 0 "global c; $KP { c <<< 1 } probe end { println(@count(c)) }"
    grep -q '^#define STP_LIGHT_PROBE_0 STP_LIGHT_OK(1)' c
    body 0 | grep -q 'stp_stat_count_inc(g_c);'
    grep -q '^#define NLOCKS_probe_0 0$' c
    # the end probe (which prints) is not light, and reads c under its write lock
    heavy 1 "global c; $KP { c <<< 1 } probe end { println(@count(c)) }"
    grep -A1 'locks_probe_1\[\] = {' c | grep -q '{ &lock_c, 1 },'

    # empty bodies, in any family
    light 0 "$KP { }"
    grep -q '^#define STP_LIGHT_PROBE_0 STP_LIGHT_OK(0)' c
    light 0 'probe timer.ms(10) { }'
    light 0 "$KP.return { }"
    # globals: arithmetic, comparisons, &&, ternaries, strings assigned and compared, if/else, next
    light 0 "global n, x, s; $KP { if (n > 5 && x != 3) n++ else { s = \"a\"; x += 2 << n }; x = n ? x * 3 : -x; if (s == \"b\") next; n-- }"
    grep -q '^#define STP_LIGHT_PROBE_0 STP_LIGHT_OK(8)' c
    # the globals it writes are locked as before
    grep -A4 'locks_probe_0\[\] = {' c | grep -q '{ &lock_n, 1 },'
    grep -A4 'locks_probe_0\[\] = {' c | grep -q '{ &lock_s, 1 },'
    # sixteen statements are light, seventeen are not
    light 0 "global n; $KP { $(printf 'n++; %.0s' {1..16}) }"
    heavy 0 "global n; $KP { $(printf 'n++; %.0s' {1..17}) }"
    # a statistic read by another operator: still light, a full add (stp_stat_add_as); with no lock
    # when only end probes read it (they run once every other probe has stopped: cg_stats_add_unlocked),
    # arrays of statistics too, deleted there or not; under the read lock when a probe that runs with
    # the session reads it (a timer, begin, through a function, by `in` or foreach)
    light 0 "global c; $KP { c <<< 1 } probe end { println(@sum(c)) }"
    body 0 | grep -q 'stp_stat_add_as(g_c, '
    grep -q '^#define NLOCKS_probe_0 0$' c
    light 0 "global c; $KP { c[execname()] <<< 1 } probe end { foreach (k in c) println(@sum(c[k])); delete c }"
    grep -q '^#define NLOCKS_probe_0 0$' c
    for reader in "probe timer.s(1) { println(@sum(c)) }" "probe begin { println(@max(c)) }" \
                  "function f() { return @avg(c) } probe timer.s(1) { println(f()) }"; do
        light 0 "global c; $KP { c <<< 1 } $reader probe end { println(@sum(c)) }"
        grep -A1 'locks_probe_0\[\] = {' c | grep -q '{ &lock_c, 0 },' || { echo "no read lock with: $reader"; return 1; }
    done
    for reader in "probe timer.s(1) { println([\"a\"] in c) }" "probe timer.s(1) { foreach (k in c) println(k) }"; do
        light 0 "global c; $KP { c[execname()] <<< 1 } $reader probe end { println(@sum(c[\"a\"])) }"
        grep -A2 'locks_probe_0\[\] = {' c | grep -q '{ &lock_c, 0 },' || { echo "no read lock with: $reader"; return 1; }
    done
    # one that is deleted somewhere: the read lock too (a clear must not race an add)
    light 0 "global c; $KP { c <<< 1 } probe timer.s(1) { delete c } probe end { println(@count(c)) }"
    body 0 | grep -q 'stp_stat_add_as(g_c, '
    grep -A1 'locks_probe_0\[\] = {' c | grep -q '{ &lock_c, 0 },'
    # ... and not light where it is deleted
    heavy 1 "global c; $KP { c <<< 1 } probe timer.s(1) { delete c } probe end { println(@count(c)) }"

    # calls reading the task or a clock: light
    light 0 "global n; $KP { if (pid() == 0 || tid() == cpu()) next; n += gettimeofday_ns() & 1 }"
    # array elements (issue 19): read, incremented, assigned, <<< into a statistics array, with
    # execname() keys as two words of comm; a full array is reported by the slot function out of
    # line, near the element, with no context (NULL) and no location stored on the hit path
    light 0 "global p; $KP { p[pid()]++ }"
    grep -q '^#define STP_LIGHT_PROBE_0 STP_LIGHT_OK(1)' c
    body 0 | grep -qF "gm_p__slot(NULL, g_p, k1, 0, \"identifier 'p' at <input>:1:"
    body 0 | not grep -q 'last_stmt'
    grep -A1 'locks_probe_0\[\] = {' c | grep -q '{ &lock_p, 1 },'
    light 0 "global n; $KP { n[execname()]++ }"
    body 0 | grep -q 'stp_comm_key('
    light 0 "global a, x; $KP { a[pid(), execname(), \"k\"] = x + a[1, \"\", \"k\"]; x = a[tid(), execname(), \"\"] * 2 }"
    light 0 "global s; $KP { s[pid(), execname()] <<< tid() } probe end { foreach ([p, e] in s) println(@count(s[p, e])) }"
    body 0 | grep -qF "gm_s__slot(NULL, stp_pmap_cpu(g_s), "
    # on the full path the same element reports through c, its location given to the slot function
    # (stored by the error alone)
    heavy 0 "global p; $KP { p[pid()]++; printf(\"x\") }"
    body 0 | grep -qF "gm_p__slot(c, g_p, k1, 0, \"identifier 'p' at <input>:1:"
    body 0 | not grep -qF "c->last_stmt = \"identifier 'p' at <input>:1:"

    # what needs the context or can fail or run long: the full path
    heavy 0 "$KP { printf(\"x\\n\") }"                        # output
    heavy 0 "$KP { x = 1; x++ }"                             # locals (in the context's frames)
    heavy 0 "global n; $KP { if (execname() == \"\") next; n++ }"    # a call (a string temporary)
    heavy 0 "global s; $KP { s = pp() }"                      # the context
    heavy 0 "global n; $KP { while (n < 3) n++ }"            # a loop
    heavy 0 "global n; $KP { n = 10 / n }"                    # division by 0 is an error
    heavy 0 "global n; $KP { n %= 7 }"
    heavy 0 "global a; $KP { a[1] /= 2 }"                     # division on an element
    heavy 0 "global a; $KP { a[execname() . \"x\"]++ }"         # a key needing a temporary
    heavy 0 "global a; $KP { a[\"x\"] = \"y\" }"                # an array of strings
    heavy 0 "global a; $KP { if (1 in a) a[1]++ }"            # membership
    heavy 0 "global a; $KP { a[1] = 1; delete a[1] }"
    heavy 0 "global n; $KP { try { n++ } catch { n-- } }"     # the error state
    heavy 0 "global c, n; $KP { c <<< 1; n = @count(c) }"     # reading statistics
    heavy 0 "global s; $KP { s = s . \"x\" }"                 # a string temporary
    heavy 0 "global n, s; $KP { n = n ? 1 : 2; s = n ? \"a\" : \"b\" }"
    heavy 0 "global n; function f() { n++ } $KP { f() }"      # a script function
    heavy 0 "global n; $KP { if (\"x\" =~ \"x\") n++ }"       # the regex state
    heavy 0 'probe begin { exit() }'

    # target variables (the kernel's DWARF): not light; the same tracepoint without them is
    if [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]]; then
        light 0 'global c; probe kernel.trace("raw_syscalls:sys_enter") { c <<< 1 } probe end { println(@count(c)) }'
        heavy 0 'global c; probe kernel.trace("raw_syscalls:sys_enter") { c <<< $id } probe end { println(@count(c)) }'
    fi

    # both builds of a light body compile: the light path, -DSTP_NO_LIGHT, and MAXACTION below
    # its statements (its descriptor's light is then 0, and the body charges its actions)
    local s="global c, n, p; $KP { c <<< 1; n++; p[pid()]++ } probe end { println(@count(c), n) }"
    "$STAP" -p4 -r "$KVER" -m t_light -e "$s" >/dev/null 2>err || { cat err; return 1; }
    "$STAP" -p4 -r "$KVER" -m t_light_full -DSTP_NO_LIGHT -e "$s" >/dev/null 2>err || { cat err; return 1; }
    "$STAP" -p4 -r "$KVER" -m t_light_max1 -DMAXACTION=1 -e "$s" >/dev/null 2>err || { cat err; return 1; }
    [[ -f t_light.ko && -f t_light_full.ko && -f t_light_max1.ko ]]
}
