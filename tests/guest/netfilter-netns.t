# netfilter probes: every family's aliases armed, IPv6 headers, a network namespace made during the run, a stop under a ping flood
# Used by tests/run: runtime/probes/netfilter.c (pernet registration, unregistration under load), tapset/linux/netfilter.stp.

build() {
    # all the aliases at once (ARP and bridge hooks armed though lo sees none); ICMPv6 on ::1
    $STAP -p4 -m t_nfall -e '
global all, v6
probe netfilter.ip.*, netfilter.arp.*, netfilter.bridge.* { all++ }
probe netfilter.ipv6.local_in {
    if (protocol == 58) v6[pf, family, saddr, daddr, indev_name]++
}
probe end {
    foreach ([p, f, s, d, i] in v6) printf("v6 %s %d %s %s %s %d\n", p, f, s, d, i, v6[p, f, s, d, i])
    printf("all %d\n", all)
}' >/dev/null
    # ICMP coming in, by destination
    $STAP -p4 -m t_nfns -e '
global icmp
probe netfilter.ipv4.local_in { if (protocol == 1) icmp[daddr]++ }
probe end { foreach (d in icmp) printf("icmp %s %d\n", d, icmp[d]) }' >/dev/null
}

guest() {
    ip link set lo up
    staprun -c 'busybox ping6 -c 2 -i 0.2 ::1 >/dev/null; echo $? >v6.rc' t_nfall.ko >all.out 2>all.err
    # a namespace made while the probes are armed gets them too (10.9.9.9 exists only there)
    staprun -c "unshare -n sh -c 'ip link set lo up && ip addr add 10.9.9.9/32 dev lo && busybox ping -c 3 -i 0.2 10.9.9.9 >/dev/null; echo \$? >ns.rc'" \
        t_nfns.ko >ns.out 2>ns.err
    # the run ends while packets flow: each hook is unregistered under load
    busybox ping -A -w 8 127.0.0.1 >/dev/null &
    local flood=$!
    sleep 1
    staprun -c 'sleep 2' t_nfns.ko >load.out 2>load.err
    wait $flood || true
    not loaded t_nfall
    not loaded t_nfns
}

check() {
    [[ $(cat rc) == 0 ]]
    cat all.out ns.out load.out
    [[ $(cat v6.rc) == 0 ]]
    only_skip_warnings all.err
    # 2 echo requests and 2 replies on ::1 (ICMPv6 is 58), seen by the IPv6 and by the catch-all probes
    awk '$1 == "v6" && $2 == "ipv6" && $3 == 10 && $4 == "::1" && $5 == "::1" && $6 == "lo" && $7 >= 4 { ok = 1 }
         END { exit !ok }' all.out
    awk '$1 == "all" && $2 >= 16 { ok = 1 } END { exit !ok }' all.out
    [[ $(cat ns.rc) == 0 ]]
    only_skip_warnings ns.err
    awk '$1 == "icmp" && $2 == "10.9.9.9" && $3 >= 6 { ok = 1 } END { exit !ok }' ns.out
    only_skip_warnings load.err
    awk '$1 == "icmp" && $2 == "127.0.0.1" && $3 >= 20 { ok = 1 } END { exit !ok }' load.out
}
