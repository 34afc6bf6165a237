# remote-ssh: stap --remote and the app-trace Ansible playbook against two QEMU guests running OpenSSH's sshd (real ssh, upload, staprun, ^C, install/start/stop/fetch, a host lost mid-run)
# Used by tests/run (guest/remote-ssh). Host-only case: build() boots two guests of its own (tests/lib/guest.sh,
# GUEST_QEMU_EXTRA adds a user-mode NIC forwarding 127.0.0.1:PORT to the guest's port 22), each naming itself
# (hostname remote-a / remote-b) and running sshd with keys made in its tmpfs; stap and ansible-playbook run here
# (the playbook's part: tests/lib/app-trace-fleet.sh), both guests booted once for all.

# build()'s limit (tests/run: a host-only case's timeout_s): two TCG guests, four stap runs, the playbook
timeout_s=1200


# The guest side: network up (virtio_net from the host root's modules, QEMU's user network),
# sshd with its host key and root's authorized key in /tmp (the root is read-only), then
# "ready" in the results directory; sshd runs until the host writes "stop".
write_guest_run() {
    local dir=$1 name=$2
    mkdir -p "$dir"
    cat >"$dir/guest-run" <<EOF
#!/bin/bash
set -e
hostname $name
# remote-b's pids start at 5001, so that a pid tells which guest it came from
[ $name = remote-a ] || echo 5000 >/proc/sys/kernel/ns_last_pid
ip link set lo up
modprobe virtio_net
for i in \$(seq 50); do ip link show eth0 >/dev/null 2>&1 && break; sleep 0.2; done
ip addr add 10.0.2.15/24 dev eth0
ip link set eth0 up
w=/tmp/sshd
mkdir -p \$w /run/sshd
# bash runs root's ~/.bashrc for each command sshd starts: the host's (shared root) may set up
# tools that take seconds under TCG per command (pyenv init), so the guests get an empty one
if [ -f /root/.bashrc ]; then : >\$w/bashrc; mount --bind \$w/bashrc /root/.bashrc; fi
chmod 0755 /run/sshd
ssh-keygen -q -t ed25519 -N '' -f \$w/hostkey
cp "$PWD/client.pub" \$w/authorized_keys
cat >\$w/config <<'CFG'
Port 22
ListenAddress 0.0.0.0
HostKey /tmp/sshd/hostkey
AuthorizedKeysFile /tmp/sshd/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
PrintLastLog no
PidFile /tmp/sshd/pid
LogLevel VERBOSE
Subsystem sftp /usr/lib/openssh/sftp-server
CFG
/usr/sbin/sshd -f \$w/config -E \$w/log
echo up >ready
# waits for "stop" starting no program (a read timing out on a FIFO): under TCG each /bin/sleep costs the
# host about 50 ms of CPU, a quarter of a core at five a second, in each guest for the whole case
mkfifo /tmp/nap && exec 9<>/tmp/nap
for i in \$(seq 5700); do [[ -e stop ]] && break; read -r -t 0.2 -u 9 _ || true; done
kill \$(cat \$w/pid) || true
cat \$w/log
lsmod | grep -c '^stap_' >modules-left || true
EOF
    chmod +x "$dir/guest-run"
    echo 1260 >"$dir/guest-timeout"
}

build() {
    source "$TOP/tests/lib/guest.sh"
    command -v /usr/sbin/sshd >/dev/null || { echo "no sshd (install openssh-server: make deps)"; return 77; }
    command -v ansible-playbook >/dev/null || { echo "no ansible-playbook (Debian package ansible: make deps)"; return 77; }
    ssh-keygen -q -t ed25519 -N '' -f client
    # the client: the real OpenSSH ssh with this case's key, no known_hosts (fresh guest keys)
    mkdir -p bin
    cat >bin/ssh <<EOF
#!/bin/sh
exec /usr/bin/ssh -4 -F none -i "$PWD/client" -o IdentitiesOnly=yes -o StrictHostKeyChecking=no \\
    -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=30 "\$@"
EOF
    chmod +x bin/ssh
    local pa pb
    pa=$(( 20000 + RANDOM % 20000 )); pb=$((pa + 1))
    mkdir -p ga gb
    write_guest_run ga/case remote-a
    write_guest_run gb/case remote-b
    # one vCPU and 256 MB each: sshd, staprun and Ansible's Python need no more, and under TCG a second
    # vCPU only adds work (its boot, interprocessor interrupts, timer ticks) to what the host pays for
    export GUEST_SMP=1 GUEST_MEM=256
    GUEST_QEMU_EXTRA="-netdev user,id=n0,hostfwd=tcp:127.0.0.1:$pa-:22 -device virtio-net-pci,netdev=n0" \
        guest_batch ga ga/case >ga.log 2>&1 &
    local ga=$!
    # remote-b's QEMU writes its pid: the last run kills it mid-run
    GUEST_QEMU_EXTRA="-netdev user,id=n0,hostfwd=tcp:127.0.0.1:$pb-:22 -device virtio-net-pci,netdev=n0 -pidfile $PWD/gb.qemu.pid" \
        guest_batch gb gb/case >gb.log 2>&1 &
    local gb=$! i rc=0
    for ((i = 0; i < 1500; i++)); do
        [[ -e ga/case/ready && -e gb/case/ready ]] && break
        [[ -e ga/case/rc || -e gb/case/rc ]] && break
        sleep 0.2
    done
    if [[ -e ga/case/ready && -e gb/case/ready ]]; then
        # in a bash of its own: errexit holds inside (it would not in a function called with ||)
        STAP=$TOP/build/bin/stap bash -e -o pipefail -c "source $TOP/tests/lib/app-trace-fleet.sh; $(declare -f remote_runs remote_lost)
            remote_runs $pa $pb" \
            >runs.log 2>&1 || rc=$?
    else
        echo "the guests' sshd did not come up"; rc=1
    fi
    touch ga/case/stop gb/case/stop
    wait "$ga" || true
    wait "$gb" || true
    cat runs.log
    for g in ga gb; do
        if [[ $g == gb && -e gb.killed ]]; then
            # killed on purpose by the last run: no status, no lsmod, no dmesg; its console up to then
            ! guest_crash_lines gb/case/console || { echo "gb: kernel trouble"; rc=1; }
            continue
        fi
        [[ $(cat $g/case/rc 2>/dev/null) == 0 ]] || { echo "$g: guest-run failed:"; cat $g/case/err $g/case/out $g.log; rc=1; }
        [[ $(cat $g/case/modules-left 2>/dev/null) == 0 ]] || { echo "$g: stap modules left loaded"; rc=1; }
        ! guest_crash_lines $g/case/dmesg $g/case/console || { echo "$g: kernel trouble"; rc=1; }
    done
    return $rc
}

# remote_runs PORT_A PORT_B: the runs against both guests, from this machine, then the playbook
# (app_trace_fleet); the run that loses remote-b comes last (remote-b is gone afterwards).
remote_runs() {
    export PATH=$PWD/bin:$PATH STAP_REMOTE_STAPRUN=$TOP/build/bin/staprun
    local a="ssh://root@127.0.0.1:$1" b="root@localhost:$2" rc=0 t0=$SECONDS
    # -c on each host, -o giving one file per host: remote-a's command cats its name and waits;
    # remote-b's waits for "go" (made here once remote-a's name came back), cats its name and
    # ends, which ends remote-a's run too (with its end probe); the probe sees each cat's openat
    # and prints its pid, which the guest side keeps in its results directory, G/case/cat.pid
    # (each guest can write only its own: ga for remote-a, gb for remote-b)
    local script='probe begin { println("begin") }
probe syscall.openat { if (execname() == "cat" && filename =~ "kernel/hostname") printf("open %s pid %d\n", filename, pid()) }
probe end { println("end") }'
    local cat="cat /proc/sys/kernel/hostname & echo \$! >$PWD/@G@/case/cat.pid; wait \$!"
    local cmd="if [ \"\$(uname -n)\" = remote-a ]; then ${cat/@G@/ga}; while :; do sleep 1; done;"
    cmd+=" else while [ ! -e $PWD/go ]; do sleep 0.2; done; ${cat/@G@/gb}; fi"
    local i pa pb
    rc=0
    $STAP --remote "$a" --remote "$b" -o out -c "$cmd" -e "$script" >stdout 2>stderr &
    local pid=$!
    for ((i = 0; i < 1500; i++)); do
        grep -qx remote-a out.127.0.0.1 2>/dev/null && grep -qx begin out.localhost 2>/dev/null && break
        sleep 0.2
    done
    touch go
    wait "$pid" || rc=$?
    rm -f go
    [[ $rc == 0 ]] || { echo "-c run: exit $rc"; cat stderr; return 1; }
    # each file has its host's name and the pid of that host's cat (remote-b's pids start above 5000)
    pa=$(cat ga/case/cat.pid) pb=$(cat gb/case/cat.pid)
    [[ $pa =~ ^[0-9]+$ && $pb =~ ^[0-9]+$ ]] && (( pa < 5000 && pb > 5000 )) ||
        { echo "the cats' pids: remote-a '$pa', remote-b '$pb'"; return 1; }
    printf '%s\n' begin end "open \"/proc/sys/kernel/hostname\" pid $pa" remote-a | diff - <(sort out.127.0.0.1)
    printf '%s\n' begin end "open \"/proc/sys/kernel/hostname\" pid $pb" remote-b | diff - <(sort out.localhost)
    echo "-c run: remote-a's cat $pa, remote-b's cat $pb ($((SECONDS - t0))s)"
    # ^C: both runs end with their end probe; the prefix names each line's host, the probes the
    # host name as the kernel running them has it and remote_id()/remote_uri() the host's place
    # in the --remote list and its target as given (the last run runs this script again)
    local bg='global n
function uts_name:string() {
    return kernel_string(@cast(task_current(), "task_struct", "kernel")->nsproxy->uts_ns->name->nodename)
}
probe begin { printf("begin %s\n", uts_name()); printf("id %d %s\n", remote_id(), remote_uri()) }
probe timer.ms(100) { n++ }
probe end { printf("end %s %d\n", uts_name(), n > 0) }'
    rc=0 t0=$SECONDS
    $STAP --remote "$a" --remote "$b" --remote-prefix -e "$bg" >stdout 2>stderr &
    pid=$!
    for ((i = 0; i < 1500; i++)); do
        [[ $(grep -c '^[01]: begin ' stdout) == 2 ]] && break
        sleep 0.2
    done
    sleep 2
    kill -INT "$pid"
    wait "$pid" || rc=$?
    [[ $rc == 0 ]] || { echo "^C run: exit $rc"; cat stderr; return 1; }
    printf '%s\n' "0: begin remote-a" "0: end remote-a 1" "0: id 0 $a" "1: begin remote-b" "1: end remote-b 1" "1: id 1 $b" |
        diff - <(sort stdout)
    echo "^C run ($((SECONDS - t0))s)"
    # one host down (nothing listens on port 1): named, the other's run complete, status 1
    rc=0 t0=$SECONDS
    rm -f gb/case/cat.pid
    touch go
    $STAP --remote root@127.0.0.1:1 --remote "$b" -c "$cmd" -e "$script" >stdout 2>stderr || rc=$?
    rm -f go
    [[ $rc == 1 ]] || { echo "down host: exit $rc"; cat stderr; return 1; }
    grep -qx "stap: host root@127.0.0.1:1: cannot reach it (ssh exited with status 255)" stderr
    pb=$(cat gb/case/cat.pid)
    printf '%s\n' begin end "open \"/proc/sys/kernel/hostname\" pid $pb" remote-b | diff - <(sort stdout)
    echo "down host run ($((SECONDS - t0))s)"
    app_trace_fleet "$1" "$2"
    remote_lost "$1" "$2" "$bg"
}

# remote_lost PORT_A PORT_B SCRIPT: remote-b's QEMU killed while both run SCRIPT (the ^C run's,
# compiled already): remote-b is named as lost, remote-a's run goes on until ^C, its file whole
# (begin, end), status 1.
remote_lost() {
    local a="ssh://root@127.0.0.1:$1" b="root@localhost:$2" script=$3 rc=0 i pid t0=$SECONDS
    $STAP --remote "$a" --remote "$b" -o lost -e "$script" >stdout 2>stderr &
    pid=$!
    for ((i = 0; i < 1500; i++)); do
        grep -qx 'begin remote-a' lost.127.0.0.1 2>/dev/null && grep -qx 'begin remote-b' lost.localhost 2>/dev/null && break
        sleep 0.2
    done
    (( i < 1500 )) || { echo "lost run: no begin from both"; cat stderr; return 1; }
    touch gb.killed
    kill -KILL "$(cat gb.qemu.pid)"
    # ssh sees the forwarded connection closed
    for ((i = 0; i < 600; i++)); do
        grep -q 'connection lost' stderr && break
        sleep 0.2
    done
    sleep 1
    kill -0 "$pid" || { echo "lost run: stap ended with remote-b"; cat stderr; return 1; }
    kill -INT "$pid"
    wait "$pid" || rc=$?
    echo "lost run: exit $rc, stderr:"
    cat stderr
    [[ $rc == 1 ]]
    grep -Eqx "stap: host (ssh://)?root@localhost:$2: connection lost during the run \(ssh exited with status 255\)" stderr
    printf '%s\n' 'begin remote-a' "id 0 $a" 'end remote-a 1' | diff - lost.127.0.0.1
    printf '%s\n' 'begin remote-b' "id 1 $b" | diff - lost.localhost
    echo "lost run ($((SECONDS - t0))s)"
}
