# the networking tapsets in pass 2: each alias resolves on the kernel with SystemTap's variables (stap -L), the
# functions' signatures, and a script's own tcpmib_filter_key replacing the default. Used by tests/run (issue 15).
cost_s=20

addr='family:long saddr:string daddr:string sport:long dport:long'
sockv='name:string protocol:long family:long state:long flags:long type:long'
skbv='dev_name:string length:long protocol:long truesize:long'
aliases=(
    "tcp.sendmsg|name:string sock:long family:long size:long"
    "tcp.sendmsg.return|name:string size:long"
    "tcp.recvmsg|name:string sock:long size:long $addr"
    "tcp.recvmsg.return|name:string size:long $addr"
    "tcp.disconnect|name:string sock:long flags:long $addr"
    "tcp.disconnect.return|name:string ret:long"
    "tcp.setsockopt|name:string sock:long family:long level:long optname:long optstr:string optlen:long"
    "tcp.setsockopt.return|name:string ret:long"
    "tcp.receive|name:string iphdr:long tcphdr:long protocol:long $addr urg:long ack:long psh:long rst:long syn:long fin:long"
    "udp.sendmsg|name:string sock:long size:long $addr"
    "udp.sendmsg.return|name:string size:long $addr"
    "udp.recvmsg|name:string sock:long size:long $addr"
    "udp.recvmsg.return|name:string size:long $addr"
    "udp.disconnect|name:string sock:long flags:long $addr"
    "udp.disconnect.return|name:string ret:long $addr"
    "socket.send|$sockv size:long success:long"
    "socket.receive|$sockv size:long success:long"
    "socket.sendmsg|$sockv size:long"
    "socket.sendmsg.return|$sockv size:long success:long"
    "socket.recvmsg|$sockv size:long"
    "socket.recvmsg.return|$sockv size:long success:long"
    "socket.write_iter|$sockv size:long"
    "socket.write_iter.return|$sockv size:long success:long"
    "socket.read_iter|$sockv size:long"
    "socket.read_iter.return|$sockv size:long success:long"
    "socket.create|name:string protocol:long family:long type:long requester:long"
    "socket.create.return|name:string protocol:long family:long type:long requester:long err:long success:long"
    "socket.close|$sockv"
    "socket.close.return|name:string"
    "netdev.receive|$skbv"
    "netdev.transmit|$skbv"
    "netdev.hard_transmit|$skbv"
    "netdev.rx|dev_name:string protocol:long netdev:long"
    "netdev.change_mtu|dev_name:string old_mtu:long new_mtu:long"
    "netdev.set_promiscuity|dev_name:string enable:long disable:long inc:long"
    "tcpmib.ActiveOpens|sk:long op:long key:long"
    "tcpmib.InSegs|sk:long op:long key:long"
    "tcpmib.OutSegs|sk:long op:long key:long"
    "ipmib.InReceives|skb:long op:long key:long"
    "ipmib.OutRequests|skb:long op:long key:long"
    "linuxmib.ListenDrops|sk:long op:long key:long"
)
signatures=(
    'inet_get_local_port:long (sock:long)'
    'inet_get_ip_source:string (sock:long)'
    'get_netdev_name:string (addr:long)'
    'tcp_get_info_rto:long (sock:long)'
    'tcp_get_info_snd_cwnd:long (sock:long)'
    'tcp_ts_get_info_state:long (sock:long)'
    'tcp_ts_get_info_snd_ssthresh:long (sock:long)'
    'tcp_ts_get_info_rcv_mss:long (sock:long)'
    'tcp_sockstate_str:string (state:long)'
    'tcp_sockopt_str:string (optname:long)'
    'tcp_ipv6_sockopt_str:string (optname:long)'
    'sock_prot_num2str:string (proto:long)'
    'sock_prot_str2num:long (proto:string)'
    'sock_fam_num2str:string (family:long)'
    'sock_fam_str2num:long (family:string)'
    'sock_state_num2str:string (state:long)'
    'sock_state_str2num:long (state:string)'
    'sock_type_num2str:string (type:long)'
    'sock_type_str2num:long (type:string)'
    'sock_flags_num2str:string (flags:long)'
    'msg_flags_num2str:string (flags:long)'
    'tcpmib_filter_key:long (sk:long, op:long)'
    'ipmib_filter_key:long (skb:long, op:long, SourceIsLocal:long)'
    'linuxmib_filter_key:long (sk:long, op:long)'
    'tcpmib_local_port:long (sk:long)'
    'ipmib_tcp_local_port:long (skb:long, SourceIsLocal:long)'
)

run() {
    need_kernel_dwarf
    tapset_listing_matches
    # a script's tcpmib_filter_key replaces the default: the default file is not loaded
    $STAP -r "$KVER" -p2 -e 'function tcpmib_filter_key(sk, op) { return tcpmib_local_port(sk) == 80 ? op : 0 }
probe tcpmib.PassiveOpens { } probe end { foreach (k in PassiveOpens) println(PassiveOpens[k]) }' >override.out
    not grep -q 'tcpmib-filter-default.stp' override.out
    grep -q '^tcpmib_local_port:long (sk:long) /\* from .*/tcpmib.stp \*/' override.out
    # without one, the default's
    $STAP -r "$KVER" -p2 -e 'probe tcpmib.PassiveOpens { } probe end { foreach (k in PassiveOpens) println(PassiveOpens[k]) }' >default.out
    grep -q '^tcpmib_filter_key:long (sk:long, op:long) /\* from .*/tcpmib-filter-default.stp \*/' default.out
}
