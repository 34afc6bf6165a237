# case-helpers.sh - helpers available to every test case function (run, build, guest, check).
# Sourced by tests/lib/cases.sh (host side) and by each generated guest-run script (guest side).

# not CMD [ARG...]: succeeds when CMD fails, fails when CMD succeeds. Use it instead of `! CMD`:
# case functions run under `set -e`, and bash never stops on a `! CMD` line (unless it is the
# function's last command), so `! CMD` asserts nothing.
not() { ! "$@"; }

# nap SECONDS: a pause of a polling loop that, in the guest (TESTS_IN_GUEST, set by the runner tests/run
# writes), starts no program: a read that times out on a FIFO nobody writes (guest-batch.sh's nap). Under
# TCG each program started costs the host 80-150 ms of CPU (measured), so a loop polling every 0.1 s with
# /bin/sleep kept about a core busy while it waited. (Not a sleep function: `sleep 60 &` must stay a process.)
nap() {
    if [[ -z ${TESTS_IN_GUEST:-} ]]; then
        sleep "$1"
        return
    fi
    if [[ -z ${CASE_NAP_FD:-} ]]; then
        [[ -p /tmp/.case-nap ]] || mkfifo /tmp/.case-nap 2>/dev/null || [[ -p /tmp/.case-nap ]] || { sleep "$1"; return; }
        exec {CASE_NAP_FD}<>/tmp/.case-nap || { sleep "$1"; return; }
    fi
    read -r -t "$1" -u "$CASE_NAP_FD" _ || true
}

# file_has FILE ERE: a line of FILE matches the extended regular expression ERE (grep -Eq), in bash
# alone: polling loops in the guest call it many times, and each grep started there costs the host
# about 0.15 s of CPU under TCG. False when FILE cannot be read.
file_has() {
    local line
    while IFS= read -r line || [[ -n $line ]]; do
        if [[ $line =~ $2 ]]; then return 0; fi
    done 2>/dev/null <"$1" || return 1
    return 1
}

# running NAME: a process whose command name is NAME runs (pgrep -x, in bash alone).
running() {
    local p comm
    for p in /proc/[0-9]*; do
        read -r comm 2>/dev/null <"$p/comm" || continue
        [[ $comm == "$1" ]] && return 0
    done
    return 1
}

# loaded NAME: kernel module NAME is loaded (in the guest).
loaded() { file_has /proc/modules "^$1 "; }

# waitfor FILE TEXT: until FILE has a line TEXT (100 polls 0.1 s apart; fails otherwise).
waitfor() {
    local i line
    for ((i = 0; i < 100; i++)); do
        while IFS= read -r line || [[ -n $line ]]; do
            if [[ $line == "$2" ]]; then return 0; fi
        done 2>/dev/null <"$1" || true
        nap 0.1
    done
    return 1
}

# stapio_of PID: prints the pid of the stapio child of staprun PID once it has opened the
# module's control file (100 polls 0.1 s apart; fails otherwise). Bash builtins only (nap in the guest):
# with hot probes armed, every program started in the guest costs it seconds under TCG.
stapio_of() {
    local i p comm stat fd ctl
    local -a f
    for ((i = 0; i < 100; i++)); do
        for p in /proc/[0-9]*; do
            read -r comm <"$p/comm" 2>/dev/null || continue
            [[ $comm == stapio ]] || continue
            read -r stat <"$p/stat" 2>/dev/null || continue
            read -ra f <<<"${stat##*) }"
            [[ ${f[1]} == "$1" ]] || continue
            for fd in "$p"/fd/*; do
                for ctl in /proc/systemtap/*/.cmd; do
                    [[ $fd -ef $ctl ]] && { echo "${p#/proc/}"; return 0; }
                done
            done
        done
        nap 0.1
    done
    return 1
}

# only_skip_warnings FILE: FILE (a run's stderr) is empty or says only that some hits were skipped
# (a timer firing inside a kprobe handler on the same CPU, a global's lock held on the other one) or
# missed (a kprobe hit inside another's handler, which the kernel does not run): counted and reported,
# and under emulation a matter of timing.
only_skip_warnings() {
    not grep -Evx 'WARNING: Skipped probes: [0-9]+ \(reentrancy [0-9]+, lock contention [0-9]+\)|WARNING: Number of errors: 0, skipped probes: [0-9]+|WARNING: Missed kprobe hits: [0-9]+ \(hit while another kprobe ran\)' "$1"
}

# spawn CMD...: CMD in the background (parallel module builds), its pid kept for wait_jobs.
SPAWNED=()
spawn() {
    "$@" &
    SPAWNED+=($!)
}

# wait_jobs: waits for each command spawn started; fails when one of them failed. By pid: a job that ended
# before the wait is gone from `jobs -p` (its failure was lost that way), but `wait PID` still gives its status.
wait_jobs() {
    local p rc=0
    for p in "${SPAWNED[@]}"; do
        wait "$p" || rc=1
    done
    SPAWNED=()
    return $rc
}

# ---- tests/guest/scripts/general (tapset-general-scripts.t, tapset-general-calls.t) ----

# pubprog_build (build()): ./pubprog, the workload of these scripts.
pubprog_build() { cc -O2 -Wall -Wextra -Werror -o pubprog "$TOP/tests/guest/scripts/general/pubprog.c"; }

# general_module M SCRIPT [ARG...] (build()): t_M.ko from tests/guest/scripts/general/SCRIPT.stp. Every hit of
# these probes, any process's, takes the script's global locks with a bounded trylock (MAXTRYLOCK attempts, 10 ns
# apart). Under single-threaded TCG a vCPU is descheduled for up to 100 ms while it holds a lock, so the other
# one's hits were skipped (counted, reported) often enough to lose the one call a check looks for; SystemTap's
# -DMAXTRYLOCK lets them wait that out.
general_module() {
    $STAP -DMAXTRYLOCK=100000000 -p4 -m "t_$1" "$TOP/tests/guest/scripts/general/$2.stp" "${@:3}" >/dev/null
}

# pubprog_runs M... (guest): staprun -c ./pubprog t_M.ko for each M, stdout to M.out, stderr to M.err and,
# each line prefixed "M: ", to stderr (in bash: no sed started in the guest).
pubprog_runs() {
    local m line
    for m in "$@"; do
        staprun -c ./pubprog "t_$m.ko" >"$m.out" 2>"$m.err"
        while IFS= read -r line || [[ -n $line ]]; do echo "$m: $line"; done <"$m.err" >&2
    done
}

# skips M: the hits module M's summary (in M.err) reports as skipped (0 without a summary)
skips() {
    sed -n 's/^WARNING: Skipped probes: \([0-9]*\) .*/\1/p' "$1.err" | awk '{n += $1} END {print n + 0}'
}

# ---- the shared seed corpus (tests/guest/seed-*.t) ----

# seed_dir: the corpus beside the repository (SEED_CORPUS, default TOP/../shared/seed-scripts).
seed_dir() { echo "${SEED_CORPUS:-$TOP/../shared/seed-scripts}"; }

# seed_need N...: skips the case (exit 77) without the corpus or the kernel's DWARF; fails when one
# of the scripts NNN_*.stp is missing from the corpus.
seed_need() {
    local dir n
    dir=$(seed_dir)
    [[ -f $dir/INDEX.md ]] || { echo "no seed corpus at $dir"; exit 77; }
    [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]] || { echo "no /usr/lib/debug/boot/vmlinux-$KVER"; exit 77; }
    for n in "$@"; do
        [[ -f $(echo "$dir/${n}"_*.stp) ]] || { echo "no ${n}_*.stp in $dir"; return 1; }
    done
}

# seed_file N: the path of the corpus's script NNN_*.stp.
seed_file() { echo "$(seed_dir)/$1"_*.stp; }

# seed_run N WORKLOAD (guest): staprun -c WORKLOAD seed_N.ko, stdout to N.out, stderr to N.err, status to N.rc.
seed_run() {
    local rc=0
    staprun -c "$2" "seed_$1.ko" >"$1.out" 2>"$1.err" || rc=$?
    echo "$rc" >"$1.rc"
}

# tapset_listing_matches (unit tests of a tapset): each entry "ALIAS|VAR:TYPE VAR:TYPE..." of the array
# `aliases` lists exactly the variables `stap -L ALIAS` shows (in any order; on every line when the alias
# expands to several probe points), and each entry of the array
# `signatures` ("NAME:TYPE (ARG:TYPE, ...)") is a line of `stap --dump-functions`. Says what differs.
tapset_listing_matches() {
    local a name want got sig line
    _sorted_words() { tr ' ' '\n' | grep . | sort | tr '\n' ' '; }
    for a in "${aliases[@]}"; do
        name=${a%%|*}
        want=$(_sorted_words <<<"${a#*|}")
        $STAP -r "$KVER" -L "$name" >list.out 2>list.err || { echo "stap -L $name failed:"; cat list.err; return 1; }
        grep -q "^$name " list.out || { echo "$name: not listed"; return 1; }
        while read -r line; do
            got=$(cut -d' ' -f2- <<<"$line" | _sorted_words)
            [[ $got == "$want" ]] || { echo "$name: got '$got', want '$want'"; return 1; }
        done < <(grep "^$name " list.out)
    done
    $STAP --dump-functions >functions.out
    for sig in "${signatures[@]}"; do
        grep -qxF "$sig" functions.out || { echo "missing function $sig"; return 1; }
    done
}

# kernel_is_rt: the guest kernel is a PREEMPT_RT one (its /boot/config-KVER says so).
kernel_is_rt() { grep -qx 'CONFIG_PREEMPT_RT=y' "/boot/config-$KVER" 2>/dev/null; }

# need_kmod PATH: skip the case (exit 77, saying why) when the guest kernel ships no module PATH (relative to
# /lib/modules/KVER/kernel, without its extension: 6.1's modules are .ko, 6.12's .ko.xz; modprobe takes either).
need_kmod() {
    local f
    for f in "/lib/modules/$KVER/kernel/$1".ko{,.xz,.zst,.gz}; do
        [[ -e $f ]] && return 0
    done
    echo "no ${1##*/} module for $KVER"
    exit 77
}

# need_btf_sock_sendmsg: in a rerun typed from BTF (FROM_BTF), skip the case (exit 77, saying why) on a kernel
# from 6.6 on (where the send system calls call __sock_sendmsg, not sock_sendmsg) whose BTF does not describe
# __sock_sendmsg: 6.12 inlines it into each caller, and BTF has no inlined copies, so socket.sendmsg and
# socket.send need the DWARF there.
need_btf_sock_sendmsg() {
    [[ -n ${FROM_BTF:-} ]] || return 0
    [[ $(printf '%s\n' 6.6 "${KVER%%[-+]*}" | sort -V | head -n 1) == 6.6 ]] || return 0
    $STAP -l 'kernel.function("__sock_sendmsg")' | grep -q . && return 0
    echo "__sock_sendmsg of $KVER is only inlined, which BTF does not describe: socket.sendmsg needs the DWARF"
    exit 77
}

# need_kernel_dwarf: skip the case (exit 77, saying why) without the guest kernel's DWARF; a case's
# rerun typed from BTF (FROM_BTF, tests/run's btf_cases) needs none.
need_kernel_dwarf() {
    [[ -z ${FROM_BTF:-} ]] || return 0
    [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]] || { echo "no /usr/lib/debug/boot/vmlinux-$KVER (make deps)"; exit 77; }
}

# run_reading KO: staprun KO (its output to stdout) while dd reads /dev/zero a byte at a time, for as long as the
# run lasts (the module's probes see reads all along); the run's status.
run_reading() {
    staprun "$1" &
    local run=$!
    while kill -0 $run 2>/dev/null; do
        dd if=/dev/zero of=/dev/null bs=1 count=1000 2>/dev/null
    done
    wait $run
}

# cert_serial DIR: the serial of DIR's signing_key.x509, as modinfo spells a module's sig_key (sign, sign-attacks)
cert_serial() { openssl x509 -inform DER -in "$1/signing_key.x509" -noout -serial | sed 's/^serial=//; s/../&:/g; s/:$//'; }

# seed_stapdir DIR: DIR, a new SYSTEMTAP_DIR, starts with what the suite's own (SUITE_SYSTEMTAP_DIR,
# tests/run) has learned about the kernel build trees: kbuild's recorded steps (with struct module's layout
# for NAME.mod.c, compile/modc.c) and the kernel feature tests. Its first -p4 then runs the recorded steps (about 2 s of CPU) instead of kbuild in full and the
# feature tests (about 7 s). Not for a case about those two (kbuild-steps, kfeatures).
seed_stapdir() {
    local from=${SUITE_SYSTEMTAP_DIR:-}/cache f
    mkdir -p "$1/cache/kbuild"
    [[ -n ${SUITE_SYSTEMTAP_DIR:-} && $from != "$1/cache" ]] || return 0
    for f in "$from"/kbuild/*.steps "$from"/kbuild/*.modc "$from"/kfeatures-*; do
        [[ -f $f && $f != *.tmp ]] || continue
        if [[ $f == */kbuild/* ]]; then cp -p "$f" "$1/cache/kbuild/"; else cp -p "$f" "$1/cache/"; fi
    done
}
