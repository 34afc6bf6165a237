# many sites: hundreds of tcp_* kprobes sharing one handler (and kprobe.function sites sharing another) arm, report each site's own ppfunc(), count exactly, and unload cleanly; start and stop times beside one probe's
# Used by tests/run (issue 19): shared handlers and trampolines (translator/codegen/bodies.c, providers/kernelfn.c), entry
# sites through one ftrace_ops (runtime/probes/fentry.h), batched unregistration (runtime/probes/dwarf.c); bench/sites.sh runs it with MANY_SITES='tcp_*' (about 1,900 sites).

timeout_s=600

# the probe points: about 450 sites by default (arming costs about 40 ms a site under TCG)
points() {
    local p pts
    read -ra pts <<<"${MANY_SITES:-tcp_s* tcp_rcv* tcp_recvmsg tcp_v4_connect tcp_close}"   # no globbing
    for p in "${pts[@]}"; do
        printf 'kernel.function("%s") ?, ' "$p"
    done | sed 's/, $//'
}

# the workload: python3 connects to itself over loopback and sends 100 messages of 10 bytes
write_work() {
    cat >work.py <<'EOF'
import socket
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
cli = socket.create_connection(srv.getsockname())
conn, _ = srv.accept()
got = 0
for i in range(100):
    cli.send(b"0123456789")
    while got < (i + 1) * 10:
        got += len(conn.recv(4096))
cli.close()
conn.close()
srv.close()
print("received", got)
EOF
}

build() {
    need_kernel_dwarf
    write_work
    $STAP -p2 -w -e "probe $(points) { }" | awk '/^# probes/ { p = 1; next } p && !/^#/ { n++ } END { print n + 0 }' >sites
    (( $(cat sites) >= 300 )) || { echo "only $(cat sites) sites"; return 1; }
    # the function entries among them (the rest are inline instances and statements inside functions)
    $STAP -p3 -w -e "probe $(points) { }" | grep -c '\.fentry = 0x' >entries
    $STAP -p4 -m t_many -w -e '
global n, k
probe '"$(points)"' { if (execname() == "python3") n[ppfunc()] <<< 1 }
probe kprobe.function("__x64_sys_sendto"), kprobe.function("__x64_sys_connect"),
      kprobe.function("__x64_sys_sendto").return, kprobe.function("__x64_sys_connect").return {
	if (execname() == "python3") k[pp()] <<< 1
}
probe end {
	foreach (f in n) printf("%s %d\n", f, @count(n[f]))
	foreach (p in k) printf("%s %d\n", p, @count(k[p]))
}' >/dev/null
    $STAP -p4 -m t_one -e '
global n
probe kernel.function("tcp_sendmsg") { if (execname() == "python3") n <<< 1 }
probe end { printf("tcp_sendmsg %d\n", @count(n)) }' >/dev/null
}

# run MODULE: staprun -c the workload; the command's first act records when every probe was armed
# and how many kprobes the kernel lists, its last when it ended; MODULE.times gets "start_ms stop_ms"
# (staprun start to armed; the command's end to staprun's, which unregistered and printed the end)
run_one() {
    local m=$1 t0 t1 armed done
    t0=$(date +%s%N)
    staprun -c "date +%s%N >armed.$m; grep -c . /sys/kernel/debug/kprobes/list >kprobes.$m; grep -c stp_fentry_hit /sys/kernel/tracing/enabled_functions >fentry.$m; python3 work.py >work.$m; date +%s%N >done.$m" \
        "$m.ko" >"$m.out"
    t1=$(date +%s%N)
    armed=$(cat "armed.$m") done=$(cat "done.$m")
    echo "$(( (armed - t0) / 1000000 )) $(( (t1 - done) / 1000000 ))" >"$m.times"
    if grep -q "^$m " /proc/modules; then echo "$m still loaded"; return 1; fi
}

guest() {
    ip link set lo up
    mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
    grep -c . /sys/kernel/debug/kprobes/list >kprobes.none || echo 0 >kprobes.none
    run_one t_one
    run_one t_many
}

check() {
    [[ $(cat rc) == 0 ]]
    local sites armed one many
    sites=$(cat sites)
    # armed: the kprobes the kernel lists, and the function entries ftrace calls stp_fentry_hit for (fentry.h)
    armed=$(( $(cat kprobes.t_many) - $(cat kprobes.none) + $(cat fentry.t_many) ))
    read -r one_start one_stop <t_one.times
    read -r many_start many_stop <t_many.times
    echo "sites $sites, armed $armed ($(cat fentry.t_many) through ftrace); start (staprun to armed) and stop (workload end to unloaded) in ms: one probe $one_start/$one_stop, $sites sites $many_start/$many_stop" | tee times
    grep -qx 'received 1000' work.t_many
    grep -qx 'received 1000' work.t_one
    # (almost) every site was armed: the optional ones the kernel refuses are few
    (( armed >= sites * 9 / 10 )) || { echo "only $armed of $sites armed"; return 1; }
    (( $(cat kprobes.t_one) - $(cat kprobes.none) + $(cat fentry.t_one) == 1 ))
    # the DWARF function entries go through ftrace (inline sites and the kprobe.function ones stay kprobes)
    (( $(cat entries) >= 50 && $(cat fentry.t_many) >= $(cat entries) * 9 / 10 )) ||
        { echo "$(cat fentry.t_many) of $(cat entries) function entries through ftrace"; return 1; }
    (( $(cat fentry.t_one) == 1 ))
    # one probe and the shared-handler sites count tcp_sendmsg alike, once per send
    grep -qx 'tcp_sendmsg 100' t_one.out
    grep -qx 'tcp_sendmsg 100' t_many.out || { cat t_many.out; return 1; }
    # the kprobe family's shared trampolines: each site's own pp(), entry and return
    local p
    for p in 'kprobe.function("__x64_sys_sendto") 100' 'kprobe.function("__x64_sys_sendto").return 100' \
             'kprobe.function("__x64_sys_connect") 1' 'kprobe.function("__x64_sys_connect").return 1'; do
        grep -qxF "$p" t_many.out || { echo "no line '$p'"; cat t_many.out; return 1; }
    done
    # each site reports its own function: the connect, accept and receive sides are there too
    local f
    for f in tcp_v4_connect tcp_recvmsg tcp_close; do
        grep -q "^$f [1-9]" t_many.out || { echo "no $f line"; cat t_many.out; return 1; }
    done
    (( $(wc -l <t_many.out) >= 10 ))
}
