# app-trace-fleet.sh - bash library: examples/app-trace/app-trace.yml run from this machine against the two sshd guests of remote-ssh.t.
# Used (sourced) by tests/guest/remote-ssh.t, whose guests (remote-a, remote-b; no systemd, read-only root) it reuses.
# shellcheck shell=bash

# fleet_playbook TAG [ARGS...]: the playbook with one tag against both guests, its output in
# fleet-TAG.out; everything Ansible writes on this side stays in the case directory.
fleet_playbook() {
    local tag=$1
    shift
    ANSIBLE_NOCOLOR=1 ANSIBLE_PIPELINING=1 ANSIBLE_HOST_KEY_CHECKING=0 ANSIBLE_RETRY_FILES_ENABLED=0 \
        ANSIBLE_HOME=$PWD/ansible-home ANSIBLE_LOCAL_TEMP=$PWD/ansible-tmp ANSIBLE_SSH_CONTROL_PATH_DIR=$PWD/acp \
        ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks \
        ansible-playbook -i fleet.ini "$TOP/examples/app-trace/app-trace.yml" --tags "$tag" "$@" >"fleet-$tag.out" 2>&1 ||
        { echo "playbook --tags $tag failed:"; cat "fleet-$tag.out"; return 1; }
    grep -Eq '^remote-a +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0 ' "fleet-$tag.out" &&
        grep -Eq '^remote-b +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0 ' "fleet-$tag.out" ||
        { echo "playbook --tags $tag: not ok on both hosts:"; cat "fleet-$tag.out"; return 1; }
}

# fleet_ssh PORT CMD...: CMD on the guest at PORT over one ssh connection per guest, kept open (in acp/, which
# fleet_ssh_masters_exit closes): each new connection costs the guest an sshd start and a key exchange,
# about a second of the host's CPU under TCG.
fleet_ssh() {
    local port=$1
    shift
    mkdir -p acp
    ssh -p "$port" -o ControlMaster=auto -o ControlPath="$PWD/acp/fleet-$port" -o ControlPersist=600 root@127.0.0.1 "$@"
}

# fleet_check_trace HOST DD_PID N: the one fetched file of HOST (in its inventory name's
# directory) holds only that dd's lines and the totals of its N writes of 512 bytes.
fleet_check_trace() {
    local f=fetched/$1/$1-app-trace.out.0
    grep -qx "# totals: op: write calls: $3" "$f"
    grep -Eqx "# totals: bytes_read: [0-9]+ bytes_written: $((512 * $3)) lines: [0-9]+" "$f"
    # every write line there unless the transport reported losses
    grep -q '^# lost: ' "$f" || [[ $(grep -c ' op: write execname: dd .* count: 512 .* ret: 512$' "$f") == "$3" ]]
    # each line from that host's dd (remote-b's pids start above 5000)
    [[ -z $(grep -v '^#' "$f" | grep -v " execname: dd pid: $2 ") ]] || { echo "$f: lines of other pids than $2"; return 1; }
}

# app_trace_fleet PORT_A PORT_B: install (each host's kernel release asked over ssh, the module
# compiled once here), start, a dd of N blocks on each guest over ssh, stop (fetches), fetch
# again into another directory; one trace file per host, from the right host.
app_trace_fleet() {
    local n=2000 h port t0=$SECONDS t kver
    command -v ansible-playbook >/dev/null
    kver=$("$TOP/scripts/guest-kver.sh")
    cat >fleet.ini <<EOF
[app_trace]
remote-a ansible_host=127.0.0.1 ansible_port=$1
remote-b ansible_host=127.0.0.1 ansible_port=$2

[app_trace:vars]
ansible_user=root
ansible_ssh_private_key_file=$PWD/client
ansible_ssh_common_args='-4 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=30'
ansible_python_interpreter=/usr/bin/python3
ansible_remote_tmp=/tmp/ansible-tmp
app_trace_root=/tmp/app-trace-root
app_trace_stap=$TOP/build/bin/stap
app_trace_stap_opts=-DSTP_NO_OVERLOAD
app_trace_staprun=$TOP/build/bin/staprun
app_trace_build_dir=$PWD/fleet-build
app_trace_fetch_dir=$PWD/fetched
app_trace_service=ctl
app_trace_become=false
app_trace_apps=dd
app_trace_size_mb=1
app_trace_keep=5
EOF
    fleet_playbook install
    # one module for the guests' one release, compiled once, installed on each
    [[ $(echo fleet-build/*/app_trace.ko) == "fleet-build/$kver/app_trace.ko" ]]
    [[ $(grep -c "=> (item=$kver)" fleet-install.out) == 1 ]]
    for port in "$1" "$2"; do
        fleet_ssh "$port" cat "/tmp/app-trace-root/lib/modules/$kver/systemtap/app_trace.ko" |
            cmp - "fleet-build/$kver/app_trace.ko"
    done
    t=$SECONDS
    echo "playbook install: $((t - t0))s"
    # remote-b's clock 30 s behind: only the offsets the playbook measures put the hosts' calls
    # back in order
    fleet_ssh "$2" 'date -s @$(( $(date +%s) - 30 ))' >/dev/null
    fleet_playbook start
    echo "playbook start: $((SECONDS - t))s"
    # the traced work: a dd on each host (sh execs it, so the pid it prints is dd's), remote-b's
    # 8 s after remote-a's ended (more than the offsets' error)
    for h in a b; do
        [[ $h == a ]] && port=$1 || { port=$2; sleep 8; }
        fleet_ssh "$port" "sh -c 'echo \$\$; exec dd if=/dev/zero of=/tmp/fleet.dd bs=512 count=$n status=none'" >"dd-$h.pid"
    done
    t=$SECONDS
    fleet_playbook stop
    echo "playbook stop: $((SECONDS - t))s"
    t=$SECONDS
    fleet_playbook fetch -e app_trace_fetch_dir="$PWD/fetched-again"
    echo "playbook fetch: $((SECONDS - t))s"
    # exactly one file per host, in its inventory name's directory, the same both times
    [[ $(ls -A fetched/* | tr '\n' ' ') == "fetched/remote-a: remote-a-app-trace.out.0  fetched/remote-b: remote-b-app-trace.out.0 " ]] ||
        { echo "fetched: $(ls -AR fetched)"; return 1; }
    [[ -f fetched/.app-trace-fleet ]]
    diff -r fetched fetched-again
    (( $(cat dd-a.pid) < 5000 && $(cat dd-b.pid) > 5000 )) || { echo "dd pids: $(cat dd-a.pid) $(cat dd-b.pid)"; return 1; }
    fleet_check_trace remote-a "$(cat dd-a.pid)" "$n"
    fleet_check_trace remote-b "$(cat dd-b.pid)" "$n"
    fleet_check_timeline
    fleet_ssh "$2" 'date -s @$(( $(date +%s) + 30 ))' >/dev/null
    # the trace ended and its module is gone on both
    for port in "$1" "$2"; do
        [[ $(fleet_ssh "$port" "grep -c '^app_trace ' /proc/modules || true") == 0 ]]
    done
    echo "playbook install, start, dd, stop, fetch on both hosts: $((SECONDS - t0))s"
    fleet_ssh_masters_exit
}

# fleet_check_timeline: each file's header has its host's clock offset (remote-b's about -30 s,
# remote-a's about 0), and app-trace-report --timeline puts all of remote-a's dd calls before
# remote-b's (their order in time), which the hosts' own clocks reverse.
fleet_check_timeline() {
    local oa ea ob eb err
    read -r oa ea < <(sed -n 's/^# clock_offset_us: \(-\?[0-9]*\) clock_offset_err_us: \([0-9]*\)$/\1 \2/p' fetched/remote-a/remote-a-app-trace.out.0)
    read -r ob eb < <(sed -n 's/^# clock_offset_us: \(-\?[0-9]*\) clock_offset_err_us: \([0-9]*\)$/\1 \2/p' fetched/remote-b/remote-b-app-trace.out.0)
    echo "clock offsets: remote-a $oa us (error $ea), remote-b $ob us (error $eb)"
    (( ea >= 0 && eb >= 0 && ea < 5000000 && eb < 5000000 ))
    # the guests' clocks may have drifted from this machine's under emulation; remote-b's was set
    # 30 s back to the second
    (( oa > -ea - 5000000 && oa < ea + 5000000 ))
    (( ob - oa > -30000000 - ea - eb - 2000000 && ob - oa < -30000000 + ea + eb + 2000000 ))
    # the fetch directory read whole: each host's file under its inventory name, whose header
    # names that host (no notice)
    "$TOP/build/bin/app-trace-report" --timeline fetched >fleet-timeline.out 2>fleet-timeline.err
    [[ ! -s fleet-timeline.err ]] || { cat fleet-timeline.err; return 1; }
    grep -qx 'clock offset of remote-b: from the header of fetched/remote-b/remote-b-app-trace.out.0' fleet-timeline.out
    "$TOP/build/bin/app-trace-report" fetched >fleet-report.out
    "$TOP/build/bin/app-trace-report" --plot fleet.png fetched >/dev/null
    err=$(sed -n 's/^timeline .* more than \([0-9]*\) us apart):$/\1/p' fleet-timeline.out)
    [[ $err == $((ea + eb)) ]]
    # the calls of the two dds: all remote-a's, then all remote-b's
    grep -E '^-?[0-9]+ remote-[ab] op: ' fleet-timeline.out | awk '{ print $2 }' | uniq >fleet-order
    [[ $(tr '\n' ' ' <fleet-order) == "remote-a remote-b " ]] || { echo "order: $(tr '\n' ' ' <fleet-order)"; return 1; }
    # by the hosts' own clocks it is the other way round
    (( $(grep -v '^#' fetched/remote-b/remote-b-app-trace.out.0 | tail -n 1 | cut -d' ' -f1) <
       $(grep -v '^#' fetched/remote-a/remote-a-app-trace.out.0 | head -n 1 | cut -d' ' -f1) ))
}

# fleet_ssh_masters_exit: the ssh connections Ansible keeps open (ControlPersist) closed now,
# not left running after the case.
fleet_ssh_masters_exit() {
    local s
    for s in acp/*; do
        [[ -S $s ]] && /usr/bin/ssh -o ControlPath="$s" -O exit fleet-host >/dev/null 2>&1 || true
    done
}
