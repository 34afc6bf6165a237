# systemd-units: the commands of the installed stap@.service and staprun@.service (make install) run as systemd would (%i, %v, options files), stopped by SIGTERM to the main process: end output written, module removed
# Used by tests/run (issue 33); the units are systemd/*.service. The guest has no systemd: the ExecStart lines are run by hand, under a root of the case's own.

timeout_s=300
SCRIPT='probe begin { println("unit begin") }
probe timer.ms(100) { }
probe end { println("unit end") }'

build() {
    make -s -C "$TOP" install PREFIX=/usr DESTDIR="$CASE_DIR/root" >install.log 2>&1 || { cat install.log; return 1; }
    mkdir -p root/etc/systemtap/script.d root/etc/systemtap/staprun.d "root/lib/modules/$KVER/systemtap"
    echo "$SCRIPT" >root/etc/systemtap/script.d/demo.stp
    echo "-o $CASE_DIR/stap-unit.out" >root/etc/systemtap/script.d/demo.options
    # the guest's stap finds the module in the cache this fills (no compiler there): the same
    # script by the same path (its locations are in the module's C)
    $STAP -p4 "$CASE_DIR/root/etc/systemtap/script.d/demo.stp" >/dev/null
    (cd "root/lib/modules/$KVER/systemtap" && $STAP -p4 -m demo_mod -e "$SCRIPT" >/dev/null)
    echo "-o $CASE_DIR/staprun-unit.out" >root/etc/systemtap/staprun.d/demo_mod.options
    # ExecStart as systemd runs it: %i, %v and $$ replaced; the paths under the case's root, the
    # programs the build tree's (the guest has no /usr/bin/stap)
    local u
    for u in stap staprun; do
        sed -n 's/^ExecStart=//p' "root/usr/lib/systemd/system/$u@.service" |
            sed -e "s|%i|$([[ $u == stap ]] && echo demo || echo demo_mod)|g" -e "s|%v|$KVER|g" -e 's|\$\$|$|g' \
                -e "s|/etc/systemtap/|$CASE_DIR/root/etc/systemtap/|g" -e "s|/lib/modules/|$CASE_DIR/root/lib/modules/|g" \
                -e "s|/usr/bin/|$TOP/build/bin/|g" >"$u.cmd"
        grep -q "^/bin/sh -c 'set -f; opts=\$(cat " "$u.cmd"
    done
    grep -q 'KillMode=mixed' 'root/usr/lib/systemd/system/stap@.service'
}

# unit NAME: NAME.cmd in the background until a module is loaded and its stapio runs, then
# SIGTERM to the main process (KillMode=mixed); status in NAME.rc, no module left after
unit() {
    local pid i rc=0
    # exec'd all the way, as systemd starts it: the pid is the main process (stap or staprun)
    bash -c "exec $(cat "$1.cmd")" >"$1.stdout" 2>"$1.stderr" &
    pid=$!
    for i in $(seq 600); do
        file_has /proc/modules '^(stap_|demo_mod )' && running stapio && break
        nap 0.1
    done
    sleep 1
    kill -TERM $pid
    wait $pid || rc=$?
    echo $rc >"$1.rc"
    not grep -Eq '^(stap_|demo_mod )' /proc/modules
}

guest() {
    export TMPDIR=/tmp
    unit stap
    unit staprun
}

check() {
    local u
    for u in stap staprun; do
        [[ $(cat $u.rc) == 0 ]] || { echo "$u: rc $(cat $u.rc)"; cat $u.stderr; return 1; }
        diff $u-unit.out <(printf 'unit begin\nunit end\n')
    done
    # stap's own run from its cache, not compiled in the guest
    grep -q 'unit begin' stap-unit.out
}
