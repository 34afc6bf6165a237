# harness streaming: the guest boots at the first queued case, waits for the ones the host queues later, and boots again for those left when one panics the kernel; "@@END" ends it
# Used by tests/run (guest/harness-stream). Host-only case: build() drives tests/lib/guest.sh's guest_stream itself.

timeout_s=400

# queue_case NAME SCRIPT: a case directory whose guest-run is SCRIPT (bash), not yet queued
queue_case() {
    mkdir -p "q/$1"
    printf '#!/bin/bash\n%s\n' "$2" >"q/$1/guest-run"
    chmod +x "q/$1/guest-run"
    echo 30 >"q/$1/guest-timeout"
}

build() {
    source "$TOP/tests/lib/guest.sh"
    mkdir -p q
    queue_case first 'echo first'
    # the batch's own descriptors (the queue, its wait's FIFO) are not the case's: its first open() is 3
    queue_case later 'echo later; ls /proc/$$/fd | grep -vxE "0|1|2|255" || true'
    queue_case panics 'echo 1 >/proc/sys/kernel/sysrq; echo c >/proc/sysrq-trigger; sleep 20'
    queue_case after 'echo after'
    : >q/.queue
    GUEST_MEM=256 GUEST_SMP=1 guest_stream q "$PWD/q/.queue" 300 >stream.log 2>&1 &
    local stream=$! i
    echo "$PWD/q/first" >>q/.queue
    # the guest runs it, then waits: "later" is queued only now
    for ((i = 0; i < 600; i++)); do
        [[ -e q/first/rc ]] && break
        sleep 0.2
    done
    [[ -e q/first/rc ]] || { echo "the first case never ran"; cat stream.log; return 1; }
    sleep 2
    printf '%s\n' "$PWD/q/later" "$PWD/q/panics" "$PWD/q/after" >>q/.queue
    sleep 1
    echo @@END >>q/.queue
    wait "$stream"

    # in order, each once; the panic's case has no status, the case after it ran on a second boot
    [[ $(cat q/first/out) == first && $(cat q/first/rc) == 0 ]]
    [[ $(cat q/later/out) == later && $(cat q/later/rc) == 0 ]]
    [[ -e q/panics/began && ! -e q/panics/rc ]]
    grep -q 'Kernel panic' q/panics/console
    [[ $(cat q/after/out) == after && $(cat q/after/rc) == 0 ]]
    [[ -s q/first/ms && -s q/after/ms ]]
    [[ $(grep -c '^@@HOST boot ' q/console.log) == 2 ]]
    # the first boot waited for the host between the first case and the later ones
    grep -q '@@GUEST waiting' q/console.log
    [[ $(grep -c '@@CASE first begin' q/console.log) == 1 ]]
    [[ $(grep -c '@@CASE after begin' q/console.log) == 1 ]]

    # a queue that is only "@@END" boots nothing
    mkdir -p empty
    echo @@END >empty/.queue
    guest_stream empty "$PWD/empty/.queue" 60
    [[ ! -s empty/console.log ]]
}
