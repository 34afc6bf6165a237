# app-trace-ansible: app-trace.yml on one host (the guest, ansible_connection=local, no systemd): install on the host side, --tags start, dd, --tags stop fetches the trace with dd's exact totals
# Used by tests/run (guest/app-trace-ansible); the playbook is examples/app-trace/app-trace.yml, the unit test tests/unit/app-trace-service.t.

timeout_s=900
N=3000

# ap ARGS...: ansible-playbook with everything it writes kept in CASE_DIR (the guest's root is read-only)
ap() {
    ANSIBLE_NOCOLOR=1 ANSIBLE_LOCAL_TEMP=$CASE_DIR/ansible-tmp ANSIBLE_REMOTE_TEMP=$CASE_DIR/ansible-rtmp \
        ANSIBLE_HOME=$CASE_DIR/ansible-home ANSIBLE_RETRY_FILES_ENABLED=0 \
        ansible-playbook -i "$CASE_DIR/inv.ini" "$TOP/examples/app-trace/app-trace.yml" "$@"
}

build() {
    # Ansible itself under TCG takes about 5 minutes: outside make check's time budget unless asked
    [[ ${TESTS_SLOW:-0} == 1 ]] || { echo "slow (Ansible in the TCG guest, ~5 min): TESTS_SLOW=1 runs it"; exit 77; }
    need_kernel_dwarf
    command -v ansible-playbook >/dev/null || { echo "no ansible-playbook (Debian package ansible; make deps installs it)"; exit 77; }
    # the guest's kernel release is given: the host's facts say the host's
    cat >inv.ini <<EOF
[app_trace]
localhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3

[app_trace:vars]
app_trace_root=$CASE_DIR/root
app_trace_kver=$KVER
app_trace_stap=$TOP/build/bin/stap
app_trace_stap_opts=-DSTP_NO_OVERLOAD
app_trace_build_dir=$CASE_DIR/build
app_trace_fetch_dir=$CASE_DIR/fetched
app_trace_service=ctl
app_trace_become=false
app_trace_apps="dd"
app_trace_size_mb=1
app_trace_keep=5
EOF
    ap --tags install >install.out
    [[ -s root/lib/modules/$KVER/systemtap/app_trace.ko ]]
}

guest() {
    uname -n >host
    ap --tags start >start.out 2>&1 || { cat start.out; exit 1; }
    APP_TRACE_CONF=$CASE_DIR/root/etc/app-trace.conf root/usr/local/sbin/app-trace-ctl apps >apps
    dd if=/dev/zero of=/tmp/app-trace-ansible.dd bs=512 count=$N status=none
    rm -f /tmp/app-trace-ansible.dd
    ap --tags stop >stop.out 2>&1 || { cat stop.out; exit 1; }
    not loaded app_trace
    ls root/var/log/app-trace >traces.ls
}

check() {
    local host f
    host=$(cat host)
    [[ $(cat apps) == dd ]]
    grep -Eq 'localhost +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0' start.out
    grep -Eq 'localhost +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0' stop.out
    # the run's one file (dd's few thousand lines stay under 1 MB), fetched as it is on the host
    grep -x "$host-app-trace.out.0" traces.ls
    not grep -x "$host-app-trace.out.1" traces.ls
    [[ $(ls fetched) == "$host-app-trace.out.0" ]]
    f=fetched/$host-app-trace.out.0
    cmp "$f" "root/var/log/app-trace/$host-app-trace.out.0"
    grep -qx "# totals: op: write calls: $N" "$f"
    grep -Eqx "# totals: bytes_read: [0-9]+ bytes_written: $((512 * N)) lines: [0-9]+" "$f"
    # every write line there unless the transport reported losses
    grep -q '^# lost: ' "$f" || [[ $(grep -c ' op: write execname: dd .* count: 512 .* ret: 512$' "$f") == "$N" ]]
    not grep -Ev '^[0-9]+ op: \w+ execname: dd |^# totals: |^# lost: ' "$f"
}
