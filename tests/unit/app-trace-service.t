# app-trace-service: app-trace-ctl is shellcheck-clean and stops only its run's staprun, app-trace.service passes systemd-analyze verify, stap@/staprun@.service keep the instance name out of the shell's program, app-trace.yml installs into a test root on localhost (idempotent) and fetches trace files into the host's directory.
# Used by tests/run (unit/); the guest side (start, rotation, stop) is tests/guest/app-trace.t, the playbook over ssh tests/guest/remote-ssh.t.

timeout_s=600
cost_s=60

# units_attack: stap@.service and staprun@.service's ExecStart run as systemd runs it (split into
# words, then %i, %v and $$ resolved in each) under a root of our own, with programs that print
# their arguments: an instance name with shell syntax stays one inert argument, a plain one runs.
units_attack() {
    mkdir -p units/etc/systemtap/script.d units/etc/systemtap/staprun.d units/bin
    printf '#!/bin/sh\nprintf "%%s|" "$0" "$@" >>"%s/units/ran"\n' "$PWD" >units/bin/stap
    cp units/bin/stap units/bin/staprun
    chmod +x units/bin/stap units/bin/staprun
    echo '-o /x.out' >units/etc/systemtap/script.d/demo.options
    echo '-o /y.out' >units/etc/systemtap/staprun.d/demo.options
    python3 - "$TOP/systemd" "$PWD/units" <<'PY'
import os, shlex, subprocess, sys
src, root = sys.argv[1:]
for unit in ("stap@.service", "staprun@.service"):
    line = [l for l in open(os.path.join(src, unit)) if l.startswith("ExecStart=")][0][len("ExecStart="):]
    words = shlex.split(line.replace("@BINDIR@", root + "/bin"))
    # the shell's program names no specifier: the instance cannot become shell syntax
    assert "%" not in words[2], (unit, words[2])
    for inst in ("demo", "x$(touch pwned)y;touch pwned2"):
        argv = [w.replace("%i", inst).replace("%v", "6.1-test").replace("$$", "$")
                .replace("/etc/systemtap/", root + "/etc/systemtap/").replace("/lib/modules/", root + "/lib/modules/")
                for w in words]
        subprocess.run(argv, cwd=root, check=True)
PY
    not ls units/pwned units/pwned2 2>/dev/null
    echo >>units/ran
    diff - units/ran <<EOF_RAN
$PWD/units/bin/stap|-o|/x.out|$PWD/units/etc/systemtap/script.d/demo.stp|$PWD/units/bin/stap|$PWD/units/etc/systemtap/script.d/x\$(touch pwned)y;touch pwned2.stp|$PWD/units/bin/staprun|-o|/y.out|$PWD/units/lib/modules/6.1-test/systemtap/demo.ko|$PWD/units/bin/staprun|$PWD/units/lib/modules/6.1-test/systemtap/x\$(touch pwned)y;touch pwned2.ko|
EOF_RAN
}

# pidfile_attack: app-trace-ctl stop signals only this run's staprun: a PID file naming an
# unrelated process (a sleep) is refused and the sleep lives on; the run's staprun (a stand-in
# started with start's command line) is stopped. start does not write through a link.
pidfile_attack() {
    local victim run rc
    mkdir -p pid/trace
    cat >pid/app-trace.conf <<EOF_CONF
TRACEDIR=$PWD/pid/trace
HOST=h
STAPRUN=$PWD/pid/staprun
MODULE=$PWD/pid/app_trace.ko
STOP_TIMEOUT=10
EOF_CONF
    printf '#!/bin/sh\ntrap "exit 0" TERM\nwhile :; do sleep 0.1; done\n' >pid/staprun
    chmod +x pid/staprun
    sleep 600 &
    victim=$!
    echo "$victim" >pid/trace/.app-trace.pid
    rc=0
    APP_TRACE_CONF=$PWD/pid/app-trace.conf "$D/app-trace-ctl" stop >pid/stop1.out 2>pid/stop1.err || rc=$?
    kill -0 "$victim" || { echo "app-trace-ctl stop killed the pid file's unrelated process"; return 1; }
    kill "$victim"
    [[ $rc == 1 ]]
    grep -qxF "app-trace-ctl: refused to signal pid $victim named by $PWD/pid/trace/.app-trace.pid: it is not this trace's $PWD/pid/staprun -o $PWD/pid/trace/h-app-trace.out ... $PWD/pid/app_trace.ko; stop the trace by hand and remove $PWD/pid/trace/.app-trace.pid" pid/stop1.err
    # the control: start's command line, its pid in the file
    "$PWD/pid/staprun" -o "$PWD/pid/trace/h-app-trace.out" -S 2,4 -O 5,1 "$PWD/pid/app_trace.ko" &
    run=$!
    echo "$run" >pid/trace/.app-trace.pid
    APP_TRACE_CONF=$PWD/pid/app-trace.conf "$D/app-trace-ctl" stop >pid/stop2.out
    not kill -0 "$run" 2>/dev/null
    grep -q '^app-trace-ctl: stopped' pid/stop2.out
    # start writes its PID file anew, never through a link the directory's user put there (here a
    # staprun that fails at once: start writes the file, then ends)
    echo precious >pid/victim
    rm pid/trace/.app-trace.pid
    ln -s "$PWD/pid/victim" pid/trace/.app-trace.pid
    : >pid/app_trace.ko
    printf '#!/bin/sh\nsleep 0.3; exit 3\n' >pid/staprun
    rc=0
    APP_TRACE_CONF=$PWD/pid/app-trace.conf "$D/app-trace-ctl" start >pid/start.out 2>pid/start.err || rc=$?
    [[ $rc == 1 ]] && grep -qx 'app-trace-ctl: staprun ended before the trace started (status 3)' pid/start.err
    [[ $(cat pid/victim) == precious && ! -e pid/trace/.app-trace.pid ]]
}

run() {
    local D=$TOP/examples/app-trace H rc
    units_attack
    pidfile_attack
    need_kernel_dwarf
    # the control script: POSIX sh, no shellcheck findings; refuses what it does not know
    if command -v shellcheck >/dev/null; then shellcheck -s sh "$D/app-trace-ctl"; fi
    not "$D/app-trace-ctl" frobnicate 2>usage.err
    grep -q 'usage: app-trace-ctl install' usage.err
    APP_TRACE_CONF=$PWD/none.conf "$D/app-trace-ctl" stop >stop.out
    grep -qx 'app-trace-ctl: no trace running' stop.out

    # `app-trace-ctl install` under a root of our own, then the unit as installed (User= from
    # RUN_USER, the control script's path) is what systemd accepts
    cp "$D/app-trace.conf" conf.in
    sed -i 's/^RUN_USER=.*/RUN_USER=daemon/' conf.in
    install -D -m 644 conf.in ctlroot/etc/app-trace.conf
    DESTDIR=$PWD/ctlroot SBINDIR=/sbin-x STAP=${STAP%% *} "$D/app-trace-ctl" install "$KVER" >install.out
    [[ -s ctlroot/lib/modules/$KVER/systemtap/app_trace.ko ]]
    grep -q 'kept the existing' install.out
    cmp conf.in ctlroot/etc/app-trace.conf
    grep -qx 'User=daemon' ctlroot/etc/systemd/system/app-trace.service
    grep -qx 'ExecStart=/sbin-x/app-trace-ctl start' ctlroot/etc/systemd/system/app-trace.service
    grep -qx 'ExecStop=/sbin-x/app-trace-ctl stop' ctlroot/etc/systemd/system/app-trace.service
    if command -v systemd-analyze >/dev/null; then
        # verify wants the commands to exist: point them at this tree's script
        sed "s|/sbin-x/app-trace-ctl|$D/app-trace-ctl|" ctlroot/etc/systemd/system/app-trace.service >app-trace.service
        # and its Documentation= page (man:staprun(8)) to be installed: this tree's, for man to find
        mkdir -p manpath/man8
        cp "$TOP/man/staprun.8" manpath/man8/
        export MANPATH=$PWD/manpath
        systemd-analyze verify "$PWD/app-trace.service" >verify.out 2>&1 || { cat verify.out; return 1; }
        [[ ! -s verify.out ]] || { cat verify.out; return 1; }
        # and it does complain about a broken unit
        sed 's/^TimeoutStopSec=/TimeoutStopSek=/' app-trace.service >broken.service
        systemd-analyze verify "$PWD/broken.service" >broken.out 2>&1 || true
        grep -q "Unknown key 'TimeoutStopSek'" broken.out
    fi

    command -v ansible-playbook >/dev/null || { echo "no ansible-playbook (Debian package ansible; make deps installs it)"; exit 77; }
    export ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$PWD/ansible-tmp ANSIBLE_REMOTE_TEMP=$PWD/ansible-rtmp
    export ANSIBLE_HOME=$PWD/ansible-home ANSIBLE_RETRY_FILES_ENABLED=0
    ansible-playbook -i "$D/inventory.ini" "$D/app-trace.yml" --syntax-check >syntax.out
    cat >inv.ini <<EOF
[app_trace]
localhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3

[app_trace:vars]
app_trace_root=$PWD/root
app_trace_kver=$KVER
app_trace_stap=${STAP%% *}
app_trace_build_dir=$PWD/build
app_trace_fetch_dir=$PWD/fetched
app_trace_service=ctl
app_trace_become=false
app_trace_apps="dd fio"
app_trace_size_mb=2
app_trace_keep=4
EOF
    # without a tag it does nothing but say so
    rc=0
    ansible-playbook -i inv.ini "$D/app-trace.yml" >notag.out 2>&1 || rc=$?
    [[ $rc != 0 ]] && grep -q 'give --tags install, start, stop or fetch' notag.out
    ansible-playbook -i inv.ini "$D/app-trace.yml" --tags install >install1.out
    grep -Eq 'localhost +: ok=[0-9]+ +changed=[1-9][0-9]* +unreachable=0 +failed=0' install1.out
    # installed: the module for the asked release, script, unit, configuration from the variables
    [[ -s root/lib/modules/$KVER/systemtap/app_trace.ko && -s build/$KVER/app_trace.ko ]]
    cmp "$D/app-trace-ctl" root/usr/local/sbin/app-trace-ctl
    [[ -x root/usr/local/sbin/app-trace-ctl ]]
    grep -qx 'APPS="dd fio"' root/etc/app-trace.conf
    grep -qx "TRACEDIR=$PWD/root/var/log/app-trace" root/etc/app-trace.conf
    grep -qx 'SIZE_MB=2' root/etc/app-trace.conf
    grep -qx 'KEEP=4' root/etc/app-trace.conf
    grep -qx "MODULE=$PWD/root/lib/modules/$KVER/systemtap/app_trace.ko" root/etc/app-trace.conf
    grep -qx 'User=root' root/etc/systemd/system/app-trace.service
    grep -qx "ExecStart=$PWD/root/usr/local/sbin/app-trace-ctl start" root/etc/systemd/system/app-trace.service
    grep -qx "Environment=APP_TRACE_CONF=$PWD/root/etc/app-trace.conf" root/etc/systemd/system/app-trace.service
    [[ -d root/var/log/app-trace ]]
    # a second run changes nothing (the module is not compiled again)
    ansible-playbook -i inv.ini "$D/app-trace.yml" --tags install >install2.out
    grep -Eq 'localhost +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0' install2.out || { cat install2.out; return 1; }
    # fetch: the run's files (in number order, an earlier run's aside in previous/ left alone)
    H=$(uname -n)
    mkdir -p root/var/log/app-trace/previous
    for i in 2 3 10; do echo "file $i" >"root/var/log/app-trace/$H-app-trace.out.$i"; done
    echo old >"root/var/log/app-trace/previous/$H-app-trace.out.0"
    echo other >root/var/log/app-trace/notes.txt
    APP_TRACE_CONF=$PWD/root/etc/app-trace.conf root/usr/local/sbin/app-trace-ctl files >files.out
    diff - files.out <<EOF
$PWD/root/var/log/app-trace/$H-app-trace.out.2
$PWD/root/var/log/app-trace/$H-app-trace.out.3
$PWD/root/var/log/app-trace/$H-app-trace.out.10
EOF
    ansible-playbook -i inv.ini "$D/app-trace.yml" --tags fetch >fetch.out
    # into the host's own directory, its inventory name (localhost); the fetch directory marked
    # for app-trace-report
    [[ $(ls -A fetched | tr '\n' ' ') == ".app-trace-fleet localhost " ]] || { ls -lAR fetched; return 1; }
    [[ $(ls fetched/localhost | tr '\n' ' ') == "$H-app-trace.out.10 $H-app-trace.out.2 $H-app-trace.out.3 " ]]
    [[ $(cat "fetched/localhost/$H-app-trace.out.10") == "file 10" ]]
    # a file the host names and heads as another host's (remote-b) is localhost's all the same
    rm "root/var/log/app-trace/$H-app-trace.out."*
    echo "HOST=remote-b" >>root/etc/app-trace.conf
    printf '# host: remote-b\n1 op: read execname: dd pid: 1 fd: 0\n' >root/var/log/app-trace/remote-b-app-trace.out.0
    ansible-playbook -i inv.ini "$D/app-trace.yml" --tags fetch -e app_trace_fetch_dir="$PWD/fetched-other" >other.out
    [[ $(ls fetched-other | tr '\n' ' ') == "localhost " ]]
    "$(dirname "${STAP%% *}")/app-trace-report" fetched-other >fleet.out 2>fleet.err
    grep -qx 'host localhost: 1 calls' fleet.out
    grep -qxF "app-trace-report: notice: fetched-other/localhost/remote-b-app-trace.out.0: its header names host remote-b, but it was fetched from localhost: counted as localhost's" fleet.err
    # file names that are not plain (a dot first, as "..") are refused, nothing fetched
    printf '#!/bin/sh\necho %s/..\n' "$PWD/root/var/log/app-trace" >root/usr/local/sbin/app-trace-ctl
    rc=0
    ansible-playbook -i inv.ini "$D/app-trace.yml" --tags fetch -e app_trace_fetch_dir="$PWD/fetched-dots" >dots.out 2>&1 || rc=$?
    [[ $rc != 0 ]] && grep -q 'not fetched (a name starting with a dot, or none)' dots.out
    [[ ! -e fetched-dots/localhost ]]
}
