# guest.sh - bash library: builds the guest initramfs, boots QEMU (TCG) and runs batches of cases in it.
# Used (sourced) by tests/run and tests/guest/demo.sh; the guest side is guest-init.sh + guest-batch.sh.
# shellcheck shell=bash
#
# Main entry: guest_batch RESULTS_DIR CASE_DIR...
#   RESULTS_DIR  host directory shared writable with the guest; every CASE_DIR must be inside it.
#   CASE_DIR     holds an executable `guest-run` (run in the guest, cwd = CASE_DIR, as root,
#                in a chroot of the host root so host absolute paths work) and optionally
#                `guest-timeout` (seconds, default 60).
# Streaming: guest_stream RESULTS_DIR QUEUE LIMIT, where another job appends CASE_DIRs to QUEUE (a
# file in RESULTS_DIR, one a line, each written whole) as they become ready and then "@@END": the
# guest boots at the first one and runs each as it comes (tests/run: cases as their modules build).
# Afterwards each CASE_DIR holds: out, err, rc (missing if the guest hung or died during the case),
# dmesg (kernel messages logged during the case) and console (its slice of the serial console).
# The whole serial console of all boots is in RESULTS_DIR/console.log. If the guest dies or
# crashes mid-batch, it is booted again for the cases that did not start.
#
# Environment: GUEST_KVER (see scripts/guest-kver.sh), GUEST_MEM (MiB, default 512),
# GUEST_SMP (default 2, or 1 with GUEST_ICOUNT=1), GUEST_TCG_THREAD (single or multi, see
# guest_accel_args), GUEST_ICOUNT=1 (deterministic single-thread
# TCG with -icount, for per-hit benchmarks; guest time then races ahead of real time, so case
# timeouts are enforced only by the host's watchdog, in real seconds), GUEST_BOOT_MARGIN
# (seconds allowed for booting and between cases, default 120; also added to the sum of the
# case timeouts to bound a whole run), GUEST_QEMU (qemu binary), GUEST_QEMU_EXTRA (more qemu
# arguments, split on spaces: tests/guest/remote-ssh.t adds a user-mode NIC with a port forward),
# GUEST_SECUREBOOT_MOK (a DER certificate: boot through UEFI Secure Boot with it enrolled as a MOK,
# tests/lib/guest-secureboot.sh; tests/secureboot/run), GUEST_APPEND (more kernel parameters:
# lockdown=confidentiality in tests/secureboot/run).

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
source "$TOP/tests/lib/guest-secureboot.sh"

# Signs of kernel trouble in the console or dmesg: oops, BUG (incl. soft lockup), panic, GPF,
# WARN(), any stack dump, RCU stalls, hung tasks, hard lockups, UBSAN reports.
GUEST_CRASH_RE='Oops|BUG:|Kernel panic|general protection fault|WARNING: CPU|Call Trace|detected stall|blocked for more than|hard LOCKUP|UBSAN:'

guest_log() { echo "guest: $*" >&2; }

guest_kver() {
    if [[ -z ${KVER:-} ]]; then
        KVER=$("$TOP/scripts/guest-kver.sh") || return 1
    fi
    echo "$KVER"
}

# The .ko files (in load order) that the initramfs needs to mount the host over virtio 9p.
guest_modules() {
    local kver=$1 m
    for m in virtio_pci 9p 9pnet_virtio; do
        modprobe -S "$kver" --show-depends "$m" || return 1
    done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

guest_copy_module() {  # SRC.ko[.xz|.zst|.gz] DESTDIR -> prints the .ko name
    local src=$1 dst name
    name=$(basename "$src")
    case $src in
        *.ko.xz)  dst=${name%.xz};  xz -dc "$src" >"$2/$dst" ;;
        *.ko.zst) dst=${name%.zst}; zstd -qdc "$src" >"$2/$dst" ;;
        *.ko.gz)  dst=${name%.gz};  gzip -dc "$src" >"$2/$dst" ;;
        *)        dst=$name;        cp "$src" "$2/$dst" ;;
    esac
    echo "$dst"
}

guest_busybox() {
    local b
    for b in /bin/busybox /usr/bin/busybox; do
        if [[ -x $b ]] && file -L "$b" 2>/dev/null | grep -q 'statically linked'; then
            echo "$b"; return
        fi
    done
    # `file` may be absent: fall back to trusting busybox-static's path
    [[ -x /bin/busybox ]] && { echo /bin/busybox; return; }
    guest_log "no static busybox (install busybox-static)"
    return 1
}

# Prints the path of the initramfs for KVER (one per kernel: make check-kernels switches kernels),
# building it only when an input changed (the kernel's modules, busybox, guest-init.sh).
guest_initramfs() {
    local kver=$1 dir=$TOP/build/guest busybox stamp mods cpio
    busybox=$(guest_busybox) || return 1
    mods=$(guest_modules "$kver") || { guest_log "modprobe -S $kver failed"; return 1; }
    stamp=$( { echo "$kver"; sha256sum "$busybox" "$TOP/tests/lib/guest-init.sh" $mods; } |
             sha256sum | cut -d' ' -f1)
    cpio=$dir/initramfs-$kver
    if [[ -f $cpio.cpio && $(cat "$cpio.stamp" 2>/dev/null) == "$stamp" ]]; then
        echo "$cpio.cpio"
        return
    fi
    mkdir -p "$dir"
    local root m
    root=$(mktemp -d "$dir/root.XXXXXX")
    mkdir -p "$root"/{bin,dev,proc,sys,tmp,host,lib/modules}
    cp "$busybox" "$root/bin/busybox"
    install -m 755 "$TOP/tests/lib/guest-init.sh" "$root/init"
    for m in $mods; do
        guest_copy_module "$m" "$root/lib/modules"
    done >"$root/modules.list"
    # built aside and renamed, so that a concurrent run (tests/run and make trace) never
    # boots a half-written file
    (cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$root.cpio"
    echo "$stamp" >"$root.stamp"
    mv "$root.cpio" "$cpio.cpio"
    mv "$root.stamp" "$cpio.stamp"
    rm -rf "$root"
    echo "$cpio.cpio"
}

guest_smp() {
    if [[ ${GUEST_ICOUNT:-0} == 1 ]]; then echo "${GUEST_SMP:-1}"; else echo "${GUEST_SMP:-2}"; fi
}

# One host thread runs all vCPUs in turn (thread=single), also without -icount. With QEMU 7.2's
# multi-threaded TCG, a kernel text patch made on one vCPU (kprobe arm/disarm through ftrace or
# int3) can race with another vCPU translating the same code: seen here as a vCPU looping
# forever on a stale int3 at schedule+0 whose memory already held the nop again (t_hot-style
# load/unload loops: one hang in ~100 runs multi-threaded, none in 250 single-threaded), and most
# likely the jump to address 0 from a kprobed ftrace site seen once in CI.
# GUEST_TCG_THREAD=multi brings the faster mode back.
guest_accel_args() {
    if [[ ${GUEST_ICOUNT:-0} == 1 ]]; then
        echo "-smp $(guest_smp) -accel tcg,thread=single -icount shift=0,sleep=off"
    else
        echo "-smp $(guest_smp) -accel tcg,thread=${GUEST_TCG_THREAD:-single}"
    fi
}

# guest_boot KVER INITRD RESULTS_DIR BATCHFILE CONSOLE TIMEOUT: one qemu run, console to CONSOLE.
# Returns qemu's status, or 124 when the watchdog killed it; GUEST_BOOT_WHY then says why.
guest_boot() {
    local kver=$1 initrd=$2 results=$3 batch=$4 console=$5 t=$6
    # no_timer_check: on a loaded host the kernel's early check of the IO-APIC timer can miss its ticks under TCG
    # and panic ("IO-APIC + timer doesn't work!"): seen with a load of 16 on two cores
    local append="console=ttyS0 panic=-1 quiet no_timer_check stap.results=$results"
    append+=" stap.runner=$TOP/tests/lib/guest-batch.sh stap.batch=$batch${GUEST_APPEND:+ $GUEST_APPEND}"
    # -icount sleep=off skips idle time: guest seconds are no measure of a case's real time
    if [[ ${GUEST_ICOUNT:-0} == 1 ]]; then
        append+=" stap.timeouts=off"
    fi
    : >"$console"
    local -a boot=(-kernel "/boot/vmlinuz-$kver" -initrd "$initrd" -append "$append")
    if [[ -n ${GUEST_SECUREBOOT_MOK:-} ]]; then   # through firmware, shim and GRUB (guest-secureboot.sh)
        mapfile -t boot < <(guest_secureboot_args "$kver" "$initrd" "$append" "$results")
        (( ${#boot[@]} )) || return 1
    fi
    # shellcheck disable=SC2046  # guest_accel_args is meant to split
    "${GUEST_QEMU:-qemu-system-x86_64}" \
        -nodefaults -display none -no-reboot \
        -m "${GUEST_MEM:-512}" $(guest_accel_args) \
        "${boot[@]}" \
        -serial "file:$console" -monitor none \
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
        -virtfs "local,path=$results,mount_tag=results,security_model=none,multidevs=remap" \
        ${GUEST_QEMU_EXTRA:-} \
        </dev/null >"$results/qemu.log" 2>&1 &
    local pid=$! rc=0 st=0
    trap "kill $pid 2>/dev/null; exit 130" INT TERM
    GUEST_BOOT_WHY=
    guest_watch "$pid" "$console" "$batch" "$t" || rc=124
    if (( rc )); then
        kill "$pid" 2>/dev/null; sleep 2; kill -9 "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null || st=$?
    trap - INT TERM
    (( rc )) || rc=$st
    return "$rc"
}

# guest_watch PID CONSOLE BATCHFILE TIMEOUT: waits for qemu PID to end; fails (GUEST_BOOT_WHY
# set) when the guest is stuck: no case begins within GUEST_BOOT_MARGIN s of boot or of the
# previous case's end, a case runs 20 s past its own timeout, the poweroff it announced does not
# happen within 15 s (e.g. a CPU left spinning), or the whole run exceeds TIMEOUT.
# It starts no program while it waits: the console is read as it grows and each pause is a read timing
# out on a FIFO nobody writes (a grep of the console and a /bin/sleep every half second cost 30 ms of the
# host's CPU each time here: 6% of a core for every guest running, ~170 s of CPU in make check).
guest_watch() {
    local pid=$1 console=$2 batch=$3 t=$4 end=$((SECONDS + $4)) margin=${GUEST_BOOT_MARGIN:-120}
    local deadline=$((SECONDS + margin)) doing="booting" last= mark= name line part= cfd nfd= rc=0
    exec {cfd}<"$console"
    if mkfifo "$console.nap" 2>/dev/null; then
        exec {nfd}<>"$console.nap"
        rm -f "$console.nap"
    fi
    while kill -0 "$pid" 2>/dev/null; do
        # the console's new lines (a line not ended yet is kept for the next round)
        while :; do
            if IFS= read -r line <&"$cfd"; then
                line=$part$line part=
            else
                part+=$line
                break
            fi
            [[ $line =~ @@(CASE [^ ]+ (begin|end)|GUEST (poweroff|waiting)) ]] && mark=${BASH_REMATCH[0]}
        done
        if [[ $mark != "$last" ]]; then
            last=$mark
            case $mark in
                *" begin")
                    name=${mark#@@CASE }; name=${name% begin}
                    doing="running case $name"
                    deadline=$((SECONDS + $(guest_timeout_of "$(grep -m1 "/$name\$" "$batch")") + 20)) ;;
                *" end")
                    doing="between cases"; deadline=$((SECONDS + margin)) ;;
                "@@GUEST poweroff")
                    doing="powering off"; deadline=$((SECONDS + 15)) ;;
                "@@GUEST waiting")
                    doing="waiting for the host's next case" ;;
            esac
        fi
        # the host is still preparing cases: no deadline but the whole run's; once the queue is
        # complete the guest reads its end within a second
        if [[ $doing == waiting* ]]; then
            if guest_queue_ended "$batch"; then
                doing="waiting past the queue's end"; deadline=$((SECONDS + margin))
            else
                deadline=$end
            fi
        fi
        if (( SECONDS >= end )); then
            GUEST_BOOT_WHY="qemu killed: the run exceeded its ${t}s timeout ($doing)"
            rc=1
            break
        elif (( SECONDS >= deadline )); then
            GUEST_BOOT_WHY="qemu killed: the guest is stuck ($doing)"
            rc=1
            break
        fi
        if [[ -n $nfd ]]; then read -r -t 0.5 -u "$nfd" _ || true; else sleep 0.5; fi
    done
    exec {cfd}<&-
    [[ -z $nfd ]] || exec {nfd}<&-
    return "$rc"
}

# guest_queue_ended BATCHFILE: it has the line @@END (the host queued every case), read without a program
guest_queue_ended() {
    local line
    while IFS= read -r line; do [[ $line == @@END ]] && return 0; done <"$1"
    return 1
}

# guest_slice LOG NAME: the console lines of case NAME: from its begin marker up to the next
# case's begin marker (or the end of the boot), so that kernel trouble showing up after the
# case ended (a timer left behind by an unloaded module...) is still blamed on it.
guest_slice() {
    awk -v b="@@CASE $2 begin" '
        index($0, b) { on = 1; print; next }
        on && /@@CASE .* begin/ { exit }
        on { print }' "$1"
}

# The guest sees the host root read-only, except its own /proc /sys /dev /tmp /run on top:
# the tree and the results must live elsewhere, in paths the kernel command line can carry.
guest_check_paths() {
    local p
    for p in "$TOP" "$@"; do
        if [[ $p =~ [[:space:],] ]]; then
            guest_log "paths with spaces or commas cannot be shared with the guest: $p"
            return 1
        fi
        # the guest mounts its own /proc /sys /dev /run, and /tmp but for the directory of the tree under it
        # (guest-init.sh's mount_host)
        if [[ $p =~ ^/(proc|sys|dev|run)(/|$) || $p =~ ^/tmp/?$ ]]; then
            guest_log "$p is hidden in the guest (it mounts its own /tmp /proc /sys /dev /run)"
            return 1
        fi
        if [[ $p == /tmp/* && ${p#/tmp/} != "${TOP#/tmp/}" && ${p#/tmp/} != "${TOP#/tmp/}"/* ]]; then
            guest_log "$p is hidden in the guest (its own /tmp shows only $TOP of the host's)"
            return 1
        fi
    done
}

guest_timeout_of() {
    local t
    t=$(cat "$1/guest-timeout" 2>/dev/null || true)
    echo "${t:-60}"
}

# guest_batch RESULTS_DIR CASE_DIR...: the cases known up front, one queue, complete.
guest_batch() {
    local results dir limit=${GUEST_BOOT_MARGIN:-120}
    local -a dirs=()
    results=$(realpath "$1"); shift
    for dir in "$@"; do
        dir=$(realpath "$dir")
        [[ $dir == "$results"/* ]] || { guest_log "$dir is not inside $results"; return 1; }
        rm -f "$dir"/{began,out,err,ms,rc,dmesg,console}
        limit=$((limit + $(guest_timeout_of "$dir") + 10))
        dirs+=("$dir")
    done
    printf '%s\n' "${dirs[@]}" @@END >"$results/.queue"
    guest_stream "$results" "$results/.queue" "$limit"
}

# guest_queued QUEUE: the case directories QUEUE lists so far
guest_queued() { grep -vx '@@END' "$1" || true; }

# guest_stream RESULTS_DIR QUEUE LIMIT: boots once QUEUE has a line (not when it is only "@@END"), runs
# the cases it lists as they come, and boots again for those not begun when a guest dies or
# crashes. LIMIT bounds each boot, in seconds.
guest_stream() {
    local results queue=$2 limit=$3 dir
    results=$(realpath "$1")
    guest_check_paths "$results" || return 1
    local kver initrd
    kver=$(guest_kver) || return 1
    initrd=$(guest_initramfs "$kver") || return 1
    until [[ -s $queue ]]; do sleep 0.5; done
    [[ $(head -n 1 "$queue") == @@END ]] && return 0

    local boot=0 log=$results/.console-boot rc name started
    local -A seen=()
    : >"$results/console.log"
    while :; do
        boot=$((boot + 1))
        rm -f "$log"
        rc=0
        guest_boot "$kver" "$initrd" "$results" "$queue" "$log" "$limit" || rc=$?
        {
            echo "@@HOST boot $boot, timeout ${limit}s"
            tr -d '\r' <"$log" 2>/dev/null || true
            if [[ -n $GUEST_BOOT_WHY ]]; then
                echo "@@HOST $GUEST_BOOT_WHY"
            elif (( rc != 0 )); then
                echo "@@HOST qemu exit status $rc"
                cat "$results/qemu.log"
            fi
        } >"$log.txt"
        cat "$log.txt" >>"$results/console.log"

        started=0
        local -a left=()
        while read -r dir; do
            [[ -n ${seen[$dir]:-} ]] && continue
            name=$(basename "$dir")
            if grep -qF "@@CASE $name begin" "$log.txt"; then
                started=$((started + 1))
                seen[$dir]=1
                guest_slice "$log.txt" "$name" >"$dir/console"
            else
                left+=("$dir")
            fi
        done < <(guest_queued "$queue")
        if (( ${#left[@]} == 0 )) && grep -qx '@@END' "$queue"; then
            break
        fi
        if (( started == 0 )); then
            guest_log "boot $boot ran no case; console tail:"
            tail -n 40 "$log.txt" | sed 's/^/    /' >&2
            for dir in "${left[@]}"; do tail -n 40 "$log.txt" >"$dir/console"; done
            break
        fi
    done
    rm -f "$log" "$log.txt"
}

# guest_crash_lines FILE...: prints lines showing kernel trouble (oops, BUG, panic, warning); status 0
# when there are some. An OOM-killer report is no trouble, but it dumps the stack of the task that
# ran out: from its "... invoked oom-killer:" line to its "Killed process N" line, the "Call Trace:"
# line is left out (and only that: an oops or warning inside the report still shows).
guest_crash_lines() {
    awk -v re="$GUEST_CRASH_RE" '
        FNR == 1 { oom = 0 }
        / invoked oom-killer: / { oom = 1 }
        oom && /Call Trace:/ { next }
        $0 ~ re { print; found = 1 }
        /Killed process [0-9]+ / { oom = 0 }
        END { exit !found }' "$@" 2>/dev/null
}
