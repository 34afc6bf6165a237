#!/usr/bin/env bash
# guest-hits.sh - runs inside the QEMU guest: one per-hit measurement (hitloop with or without a probe module).
# Used by bench/run, whose generated guest-run scripts call: guest-hits.sh baseline | kmod KO [ARGS] | stap KO|BO [SYM]
# | stap-tp KO (a stap module with a kernel.trace probe) | stap-u KO (a process(...).function probe) | stap-out KO SYM (output to a guest file) | bpftrace SCRIPT.
#
# Environment (set by the guest-run script): HITLOOP (path), CALLS, ROUNDS, SYM (the probed function).
# Output lines (parsed by bench/run): "round NS_PER_CALL", "sym ...", "kprobe ...", "tracepoint ...", "hits N", "note ...".
set -euo pipefail

note() { echo "note $*"; }

hitloop() { "$HITLOOP" "$CALLS" "$ROUNDS" | sed 's/^/round /'; }

# Reports whether SYM is in /proc/kallsyms and whether kprobes refuse it (blacklist).
sym_check() {
    local bl=/sys/kernel/debug/kprobes/blacklist line
    line=$(awk -v s="$SYM" '$3 == s { print $1, $2, $3; exit }' /proc/kallsyms)
    if [[ -z $line ]]; then
        echo "sym $SYM missing"
        return
    fi
    if [[ -r $bl ]] && awk -v s="$SYM" '$2 == s { f = 1 } END { exit !f }' "$bl"; then
        echo "sym $SYM blacklisted"
        return
    fi
    echo "sym $SYM present"
}

# Every fork+exec costs the guest millions of instructions (binaries come over 9p), so the
# waiting and polling below use bash builtins only. The waits have no time limit of their own:
# guest time races ahead of real time under -icount sleep=off (README.md), so the limit is
# bench/run's real-time watchdog.

# nap SECONDS: sleeps without running a program (read -t on a fifo nobody writes to; the
# guest has no /dev/fd for a process substitution)
NAP_FIFO=$(mktemp -u /tmp/bench-nap.XXXXXX)
mkfifo "$NAP_FIFO"
exec {NAP_FD}<>"$NAP_FIFO"
rm -f "$NAP_FIFO"
nap() { read -r -t "$1" -u "$NAP_FD" _ || true; }

# The kallsyms address of SYM: kprobes/list names the probe by the first symbol at that
# address, which can be an alias (__do_sys_getppid for __x64_sys_getppid). With IBT (6.12's
# CONFIG_X86_KERNEL_IBT) the kernel puts a probe on a function's entry after its 4-byte ENDBR64,
# so the listed address is SYM_ADDR + 4 there.
SYM_ADDR=$(awk -v s="$SYM" '$3 == s { print $1; exit }' /proc/kallsyms)
SYM_ADDR_ENDBR=
[[ -n $SYM_ADDR ]] && SYM_ADDR_ENDBR=$(printf '%016x' $((16#$SYM_ADDR + 4)))

# The line of /sys/kernel/debug/kprobes/list for SYM (none when not registered).
kprobe_line() {
    local line
    [[ -n $SYM_ADDR ]] || return 1
    while read -r line; do
        [[ $line == "$SYM_ADDR "* || $line == "$SYM_ADDR_ENDBR "* ]] && { echo "$line"; return 0; }
    done </sys/kernel/debug/kprobes/list
    return 1
}

# The line of ftrace's enabled_functions for SYM that has WHAT in it: stp_fentry_hit when our ftrace_ops carries it (a
# kernel.function entry armed through runtime/probes/fentry.h, which no kprobe lists), direct when a BPF trampoline
# (fentry, fexit) is on it.
enabled_line() {
    local line
    while read -r line; do
        [[ $line == "$SYM "* && $line == *"$1"* ]] && { echo "$line"; return 0; }
    done </sys/kernel/tracing/enabled_functions
    return 1
}

# a BPF object's program attached (stapio -v)
bpf_attached() { grep -q ': attached$' stap.err 2>/dev/null; }

has_kprobe() { kprobe_line >/dev/null || enabled_line stp_fentry_hit >/dev/null || enabled_line direct >/dev/null; }

stapio_pid() {
    local p comm
    for p in /proc/[0-9]*; do
        read -r comm <"$p/comm" 2>/dev/null || continue
        [[ $comm == stapio ]] && { echo "${p#/proc/}"; return 0; }
    done
    return 1
}

# stop_stap STAPRUN_PID: SIGINT to stapio (staprun then unloads the module), waits for staprun.
stop_stap() {
    local pid rc=0
    pid=$(stapio_pid) || { note "no stapio process"; pid=$1; }
    kill -INT "$pid" 2>/dev/null || true
    wait "$1" || rc=$?
    return "$rc"
}

run_kmod() {  # KO [PARAM=VALUE...]; with tp=TRACEPOINT the module probes that tracepoint, not SYM
    local ko=$1 name before arg label=$SYM
    name=$(basename "$ko" .ko)
    shift
    for arg; do
        [[ $arg == tp=* ]] && label="tracepoint ${arg#tp=}"
        [[ $arg == path=* ]] && label=uprobe
    done
    # only this case's messages: the earlier cases of the boot loaded the same module
    before=$(dmesg | wc -l)
    insmod "$ko" "sym=$SYM" "$@"
    # insmod returns once the module's init has registered its probe
    if [[ $label == tracepoint* || $label == uprobe ]]; then
        echo "$label registered by insmod"
    else
        echo "kprobe $(kprobe_line || echo "not listed")"
    fi
    hitloop
    rmmod "$name"
    # "NAME: LABEL hits N" gives the hits line, the module's other lines about LABEL become notes
    dmesg | tail -n "+$((before + 1))" | awk -v n="$name: $label " 'index($0, n) {
        if (/ hits [0-9]+$/) h = $NF; else print "note", substr($0, index($0, n)) }
        END { if (h != "") print "hits", h }'
}

# started: stapio -v has logged the module's "started" message (stp_session_start() has returned:
# every probe family is armed). Reads stap.err with builtins only.
started() {
    local line
    [[ -f stap.err ]] || return 1
    while IFS= read -r line; do
        [[ $line == *'got "started"'* ]] && return 0
    done <stap.err
    return 1
}

# run_stap KO [SYM|-tp [sites]]: SYM given = the module has a kprobe on it (ready when the kprobe is
# listed); -tp = a kernel.trace probe (ready when stapio, run with -v, logs "started": no
# kernel file lists a tracepoint's probes)
run_stap() {
    local ko=$1 probed=${2:-} name rc=0 verbose=() bpf=
    name=$(basename "$ko" .ko)
    [[ $ko == *.bo ]] && bpf=1      # a BPF object (stap --runtime=bpf): no control file, its kprobe listed
    [[ $probed == -tp || -n $bpf ]] && verbose=(-v)
    # job control: staprun and stapio in their own process group, SIGINT not ignored
    set -m
    staprun "${verbose[@]}" ${STAP_OUTFILE:+-o "$STAP_OUTFILE"} "$ko" >stap.out 2>stap.err &
    STAPRUN=$!
    set +m
    # if this script fails or is killed, the module must not stay loaded for the next case
    trap '[[ -n ${STAPRUN:-} ]] && stop_stap "$STAPRUN"' EXIT
    trap 'exit 1' TERM INT
    # ready: the control file is there and, for a kprobe variant, the kprobe is registered
    until { [[ -n $bpf ]] || [[ -e /proc/systemtap/$name/.cmd ]]; } &&
            case $probed in '') true ;; -tp) started ;; *) if [[ -n $bpf ]]; then bpf_attached; else has_kprobe; fi ;; esac; do
        kill -0 "$STAPRUN" 2>/dev/null || { note "staprun ended early: $(tr '\n' ' ' <stap.err)"; return 1; }
        nap 0.05
    done
    case $probed in
    '') ;;
    -tp) echo "tracepoint armed (stapio: started)" ;;
    *) echo "kprobe $(kprobe_line || echo "none; ftrace: $(enabled_line stp_fentry_hit || enabled_line direct)")"
       [[ -n $bpf ]] && grep ': attached$' stap.err ;;
    esac
    [[ ${3:-} == sites ]] && sites_listed     # run_stap_many
    # the session is started (probes armed) once the kprobe is listed; a moment for stapio
    nap 0.5
    hitloop
    stop_stap "$STAPRUN" || rc=$?
    STAPRUN=
    (( rc == 0 )) || note "staprun exited with status $rc: $(tr '\n' ' ' <stap.err)"
    # the counting variants print "hits N" from their end probe
    cat stap.out
}

# run_stap_out KO SYM: a module printing one line per hit, its output in the guest's tmpfs (as a service
# writes its trace file; not the 9p share); then "lines N" (the lines written but the end probe's),
# "produced N" (the end probe's count of the printf calls) and "lost N" (stapio's warning, 0 when none).
run_stap_out() {
    local lines=0 produced=- lost=0 line
    STAP_OUTFILE=/tmp/bench-hits-out.txt
    rm -f "$STAP_OUTFILE"
    run_stap "$@"           # its stdout (stap.out) is empty: the output goes to the file
    while IFS= read -r line; do
        if [[ $line == 'produced '* ]]; then produced=${line#produced }; else lines=$((lines + 1)); fi
    done <"$STAP_OUTFILE"
    while IFS= read -r line; do
        [[ $line == 'WARNING: '*' records ('*') lost' ]] && { lost=${line#WARNING: }; lost=${lost%% *}; }
    done <stap.err
    rm -f "$STAP_OUTFILE"
    echo "lines $lines"
    echo "produced $produced"
    echo "lost $lost"
    echo "hits $produced"
}

# ---- many sites (issue 19; branch kpbatch) ----
# run_stap_many KO: a module with a wildcard of many kprobe sites, measured once every site is armed (stapio
# logs "started"); prints "sites N", the kprobes the kernel lists then (read with builtins).
run_stap_many() { run_stap "$1" -tp sites; }

# sites_listed: "sites N", N the lines of kprobes/list and the functions ftrace calls stp_fentry_hit for
sites_listed() {
    local n=0 line
    while read -r line; do n=$((n + 1)); done </sys/kernel/debug/kprobes/list
    while read -r line; do [[ $line == *stp_fentry_hit* ]] && n=$((n + 1)); done </sys/kernel/tracing/enabled_functions
    echo "sites $n"
}
# ---- end of the many-sites block ----

# run_bpftrace SCRIPT: bpftrace in the background, ready once it has printed "Attaching" and a
# moment more; SIGINT after hitloop makes it print its map: "@c: N" becomes "hits N".
# bpftrace_start SCRIPT OUT: bpftrace in the background (its own process group: SIGINT reaches it),
# stdout to OUT, stderr to bt.err; BPFTRACE its pid, interrupted on exit if still running.
bpftrace_start() {
    set -m
    bpftrace "$1" >"$2" 2>bt.err &
    BPFTRACE=$!
    set +m
    trap '[[ -n ${BPFTRACE:-} ]] && kill -INT "$BPFTRACE" 2>/dev/null' EXIT
}

# bpftrace_hits: a moment after bpftrace attached, hitloop, then SIGINT and its exit status noted.
bpftrace_hits() {
    local rc=0
    nap 1
    hitloop
    kill -INT "$BPFTRACE"
    wait "$BPFTRACE" || rc=$?
    BPFTRACE=
    (( rc == 0 )) || note "bpftrace exited with status $rc: $(tr '\n' ' ' <bt.err)"
}

run_bpftrace() {
    local line
    bpftrace_start "$1" bt.out
    until [[ -f bt.out ]] && grep -q '^Attaching' bt.out; do
        kill -0 "$BPFTRACE" 2>/dev/null || { note "bpftrace ended early: $(tr '\n' ' ' <bt.err)"; return 1; }
        nap 0.1
    done
    echo "bpftrace $(head -n 1 bt.out)"
    bpftrace_hits
    while read -r line; do
        [[ $line == '@c: '* ]] && echo "hits ${line#@c: }"
    done <bt.out
    return 0
}

# run_bpftrace_out SCRIPT: bpftrace printing one line per hit into a file of the guest's tmpfs (as
# run_stap_out); its @n counts the hits. Prints "lines N" (the script's lines), "produced N" (@n),
# "lost N" (bpftrace's "Lost N events" lines) and "hits N" (@n: its lost events do not add up to what
# it dropped, so lines + lost is no count of them).
run_bpftrace_out() {
    local line lines=0 lost=0 produced=- out=/tmp/bench-bt-out.txt ready=
    rm -f "$out"
    bpftrace_start "$1" "$out"
    until [[ -n $ready ]]; do
        kill -0 "$BPFTRACE" 2>/dev/null || { note "bpftrace ended early: $(tr '\n' ' ' <bt.err)"; return 1; }
        [[ -f $out ]] && while IFS= read -r line; do [[ $line == Attaching* ]] && ready=1; done <"$out"
        nap 0.1
    done
    echo "bpftrace attached"
    bpftrace_hits
    while IFS= read -r line; do
        case $line in
        *' op: read execname: '*) lines=$((lines + 1)) ;;
        '@n: '*) produced=${line#@n: } ;;
        'Lost '*' events') line=${line#Lost }; lost=$((lost + ${line%% *})) ;;
        esac
    done <"$out"
    rm -f "$out"
    echo "lines $lines"
    echo "produced $produced"
    echo "lost $lost"
    echo "hits $produced"
}

main() {
    case ${1:-} in
    baseline) sym_check; hitloop ;;
    kmod)     shift; run_kmod "$@" ;;
    stap)     shift; run_stap "$@" ;;
    stap-tp|stap-u) run_stap "$2" -tp ;;     # both: armed once stapio logs "started"
    stap-many) run_stap_many "$2" ;;
    stap-out) shift; run_stap_out "$@" ;;
    bpftrace) run_bpftrace "$2" ;;
    bpftrace-out) run_bpftrace_out "$2" ;;
    *)        echo "usage: guest-hits.sh baseline | kmod KO [ARGS] | stap KO [SYM] | stap-tp KO | stap-u KO | bpftrace SCRIPT" >&2; exit 2 ;;
    esac
}

main "$@"
