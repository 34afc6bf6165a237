# published-kind networking scripts (nettop, socket-trace, tcp_connections, tcpdumplike, socktop) over netio's loopback traffic (IPv4 and IPv6): their output shape and known values
# Used by tests/run (issue 15): tests/guest/scripts/net/*.stp on tapset/linux/{networking,socket,tcp,inet_sock}.stp.

timeout_s=200
btf_rerun=1

build() {
    need_kernel_dwarf
    need_btf_sock_sendmsg
    gcc -O1 -Wall -o netio "$TOP/tests/guest/scripts/net/netio.c"
    local s
    for s in nettop socket-trace tcp_connections tcpdumplike socktop; do
        $STAP -p4 -m "t_${s//-/_}" "$TOP/tests/guest/scripts/net/$s.stp" >/dev/null
    done
}

guest() {
    ip link set lo up
    local s p=7730
    for s in nettop socket_trace tcp_connections tcpdumplike socktop; do
        staprun -c "exec $PWD/netio $p $((p + 1)) $((p + 2)) $((p + 3))" t_$s.ko >$s.out 2>$s.err
        p=$((p + 10))
    done
    for s in nettop socket_trace tcp_connections tcpdumplike socktop; do not loaded t_$s; done
}

# netio_pid FILE: the pid netio printed in the run whose output is FILE
netio_pid() { awk '$1 == "pid" { print $2 }' "$1"; }

# socktop_sum PID PROT FAMILY: #SEND #RECV SEND_B RECV_B of netio's rows for PROT/FAMILY in socktop.out, summed
# over the 5 s reports (a slow guest may print one before the end)
socktop_sum() {
    awk -v pid="$1" -v prot="$2" -v fam="$3" '$1 == pid && $2 == 0 && $7 == prot && $8 == fam && $9 == "netio" {
        ns += $3; nr += $4; bs += $5; br += $6 } END { print ns + 0, nr + 0, bs + 0, br + 0 }' socktop.out
}

check() {
    [[ $(cat rc) == 0 ]]
    local s pid
    for s in nettop socket_trace tcp_connections tcpdumplike socktop; do only_skip_warnings $s.err; done

    # nettop: the header, netio's row on lo: its 3 datagrams (3702 bytes), its SYNs and data went out
    pid=$(netio_pid nettop.out)
    grep -qE '^  PID   UID DEV     XMIT_PK RECV_PK XMIT_KB RECV_KB COMMAND +$' nettop.out
    # (summed over the 5 s reports: a slow guest may print one before the end)
    awk -v pid="$pid" '$1 == pid && $2 == 0 && $3 == "lo" && $8 == "netio" { pk += $4; kb += $6 }
        END { exit !(pk >= 12 && kb >= 3) }' nettop.out
    not grep -vE '^ *[0-9]+ +[0-9]+ [a-z0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ [^ ]+ *$|^  PID |^$|^(pid|tcp6?_[a-z_]+|udp_[a-z_]+|refused|overflow|snmp) ' nettop.out

    # socket-trace: indented calls of netio (pid in each line), the 1000-byte send and its return nested once
    pid=$(netio_pid socket_trace.out)
    grep -qE "^ +[0-9]+ netio\\($pid\\): -> socket.sendmsg INET TCP size=1000\$" socket_trace.out
    grep -qE "^ +[0-9]+ netio\\($pid\\): <- socket.sendmsg.return 1000\$" socket_trace.out
    grep -qE "^ +[0-9]+ netio\\($pid\\):  -> socket.sendmsg INET TCP size=300\$" socket_trace.out   # inside write_iter
    grep -qE "^ +[0-9]+ netio\\($pid\\): -> socket.create INET DGRAM\$" socket_trace.out
    [[ $(grep -c ' -> socket.recvmsg INET UDP size=65536$' socket_trace.out) == 3 ]]
    [[ $(grep -c ' -> ' socket_trace.out) == $(grep -c ' <- ' socket_trace.out) ]]

    # tcp_connections: the header, netio's accepted connections on 7750: two from 127.0.0.1, one from ::1
    pid=$(netio_pid tcp_connections.out)
    grep -qE '^   UID              CMD    PID   PORT        IP_SOURCE$' tcp_connections.out
    [[ $(grep -cE "^ +0 +netio +$pid +7750 +127\\.0\\.0\\.1\$" tcp_connections.out) == 2 ]]
    [[ $(grep -cE "^ +0 +netio +$pid +7750 +::1\$" tcp_connections.out) == 1 ]]
    [[ $(grep -cE '^ +[0-9]+ +[^ ]+ +[0-9]+ +[0-9]+ +[0-9a-f.:]+$' tcp_connections.out) == 3 ]]

    # tcpdumplike: the header, the SYN to the refused port 7762 and its RST|ACK answer
    grep -qE '^      Source IP         Dest IP SPort DPort  U  A  P  R  S  F$' tcpdumplike.out
    grep -qE '^      127\.0\.0\.1       127\.0\.0\.1 +[0-9]+  7762  0  0  0  0  1  0$' tcpdumplike.out
    grep -qE '^      127\.0\.0\.1       127\.0\.0\.1  7762 +[0-9]+  0  1  0  1  0  0$' tcpdumplike.out
    grep -qE '^            ::1             ::1 +[0-9]+  7760  0  0  0  0  1  0$' tcpdumplike.out
    [[ $(grep -cE '^ +[0-9a-f.:]+ +[0-9a-f.:]+ +[0-9]+ +[0-9]+( +[01]){6}$' tcpdumplike.out) == \
        $(awk '$1 == "snmp" && $2 == "Tcp.InSegs" { print $3 }' tcpdumplike.out) ]]

    # socktop: netio's UDP row: 3 sends and 3 receives of 1111 + 1234 + 1357 = 3702 bytes
    pid=$(netio_pid socktop.out)
    grep -qE '^  PID   UID #SEND #RECV   SEND_B   RECV_B PROT  FAMILY  COMMAND +$' socktop.out
    [[ $(socktop_sum "$pid" UDP INET) == "3 3 3702 3702" ]]
    # TCP: send 1000, 2000, write 300 (socket.send fires for socket.write_iter and socket.sendmsg): 3600 bytes
    [[ $(socktop_sum "$pid" TCP INET) == "4 4 3600 3600" ]]
    [[ $(socktop_sum "$pid" TCP INET6) == "2 2 1000 1000" ]]   # 500 each way on ::1
}
