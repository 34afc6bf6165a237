# case-helpers.sh - helpers available to every test case function (run, build, guest, check).
# Sourced by tests/lib/cases.sh (host side) and by each generated guest-run script (guest side).

# not CMD [ARG...]: succeeds when CMD fails, fails when CMD succeeds. Use it instead of `! CMD`:
# case functions run under `set -e`, and bash never stops on a `! CMD` line (unless it is the
# function's last command), so `! CMD` asserts nothing.
not() { ! "$@"; }

# loaded NAME: kernel module NAME is loaded (in the guest).
loaded() { grep -q "^$1 " /proc/modules; }

# stapio_of PID: prints the pid of the stapio child of staprun PID once it has opened the
# module's control file (10 s at most; fails otherwise).
stapio_of() {
    local i pid
    for i in $(seq 100); do
        pid=$(pgrep -P "$1" -x stapio || true)
        [[ -n $pid ]] && ls -l /proc/"$pid"/fd 2>/dev/null | grep -q '\.cmd$' && { echo "$pid"; return 0; }
        sleep 0.1
    done
    return 1
}

# only_skip_warnings FILE: FILE (a run's stderr) is empty or says only that some hits were skipped
# (a timer firing inside a kprobe handler on the same CPU, a global's lock held on the other one):
# counted and reported, and under emulation a matter of timing.
only_skip_warnings() {
    not grep -Evx 'WARNING: Skipped probes: [0-9]+ \(reentrancy [0-9]+, lock contention [0-9]+\)|WARNING: Number of errors: 0, skipped probes: [0-9]+' "$1"
}
