# netfilter probes: packets on lo counted with the tapset's variables (ping, a refused TCP connect), $verdict drops ICMP under -g
# Used by tests/run: translator/providers/netfilter.c, runtime/probes/netfilter.c, tapset/linux/netfilter.stp.

build() {
    # every IPv4 packet received, by the raw probe and by the alias; ICMP ones with their addresses;
    # TCP ones with ports and flags; the local_out probe checks $hooknum and the device names
    $STAP -p4 -m t_nfcount -e '
global raw, hooks, icmp, addrs, lens, tcp, udp, out, bad, str
probe netfilter.hook("NF_INET_LOCAL_IN").pf("NFPROTO_IPV4") {
    raw++
    if ($hooknum != 1 || $skb == 0 || $in == 0 || $out != 0 || $verdict != 1) bad++
}
probe netfilter.pf("NFPROTO_IPV4").hook("NF_IP_LOCAL_IN").priority("NF_IP_PRI_FIRST") { hooks["first"]++ }
probe netfilter.hook("NF_INET_LOCAL_IN").pf("NFPROTO_IPV4").priority("-5") { hooks["-5"]++ }
probe netfilter.ipv4.local_in {
    if (protocol == 1) {
        icmp++
        addrs[pf, family, indev_name, saddr, daddr]++
        lens[length]++
        if (substr(data_hex, 0, 2) != "45") bad++
        if (length == 84 && str == "") str = substr(data_str, 0, 11)
    }
    if (protocol == ipproto_tcp)
        tcp[sport == 9 ? "from9" : dport == 9 ? "to9" : "other", syn, ack, rst, fin]++
    if (protocol == ipproto_udp)
        udp[dport == 5353 ? "to5353" : "other", sport > 1023, syn]++
}
probe netfilter.ip.local_out {
    if ($hooknum != 3 || outdev_name != "lo" || indev != 0) bad++
    out[pf]++
}
probe end {
    printf("raw %d\n", raw)
    printf("icmp %d\n", icmp)
    foreach (h+ in hooks) printf("hook %s %d\n", h, hooks[h])
    foreach ([p, f, d, s, a] in addrs) printf("addr %s %d %s %s %s %d\n", p, f, d, s, a, addrs[p, f, d, s, a])
    foreach (l in lens) printf("len %d %d\n", l, lens[l])
    printf("str %s\n", str)
    foreach ([k, sy, ac, rs, fi] in tcp) printf("tcp %s syn=%d ack=%d rst=%d fin=%d\n", k, sy, ac, rs, fi)
    foreach ([k, eph, sy] in udp) printf("udp %s ephemeral=%d syn=%d\n", k, eph, sy)
    foreach (p in out) printf("out %s %d\n", p, out[p])
    printf("bad %d\n", bad)
}' >/dev/null
    # guru mode: every ICMP packet coming in is dropped while the script runs
    $STAP -g -p4 -m t_nfdrop -e '
global dropped
probe netfilter.ipv4.local_in {
    if (protocol == 1) { $verdict = nf_drop; dropped++ }
}
probe end { printf("dropped %d\n", dropped) }' >/dev/null
    # an invalid verdict is a script error, and the packet goes on
    $STAP -g -DMAXERRORS=100 -p4 -m t_nfbadv -e '
probe netfilter.hook("NF_INET_LOCAL_IN").pf("NFPROTO_IPV4") { $verdict = 2 }' >/dev/null
}

guest() {
    ip link set lo up
    # 5 echo requests and their replies go through LOCAL_IN, a SYN to the closed port 9 and its RST,
    # a UDP datagram to the closed port 5353 (and the ICMP port unreachable that answers it)
    staprun -c 'busybox ping -c 5 -i 0.2 127.0.0.1 >ping.out; echo $? >ping.rc
                busybox nc -w 2 127.0.0.1 9 </dev/null 2>/dev/null
                bash -c "echo hello >/dev/udp/127.0.0.1/5353"; sleep 0.5' \
        t_nfcount.ko >count.out 2>count.err
    # ping works before, fails while t_nfdrop drops ICMP, works again after
    busybox ping -c 1 -W 2 127.0.0.1 >/dev/null
    staprun -c 'busybox ping -c 3 -i 0.2 -W 1 127.0.0.1 >/dev/null; echo $? >drop.rc' t_nfdrop.ko >drop.out 2>drop.err
    busybox ping -c 1 -W 2 127.0.0.1 >/dev/null
    staprun -c 'busybox ping -c 1 -W 2 127.0.0.1 >/dev/null; echo $? >badv.rc' t_nfbadv.ko >badv.out 2>badv.err || true
    not loaded t_nfcount
    not loaded t_nfdrop
    not loaded t_nfbadv
}

check() {
    [[ $(cat rc) == 0 ]]
    cat count.out drop.out badv.err
    [[ $(cat ping.rc) == 0 ]]
    only_skip_warnings count.err
    # each of the 5 pings: its request and its reply came in
    awk '$1 == "icmp" && $2 >= 10 { ok = 1 } END { exit !ok }' count.out
    awk '$1 == "raw" && $2 >= 12 { ok = 1 } END { exit !ok }' count.out
    awk '$1 == "hook" && $2 == "-5" && $3 >= 12 { ok = 1 } END { exit !ok }' count.out
    awk '$1 == "hook" && $2 == "first" && $3 >= 12 { ok = 1 } END { exit !ok }' count.out
    grep -qx 'addr ipv4 2 lo 127.0.0.1 127.0.0.1 [0-9]*' count.out
    [[ $(grep -c '^addr ' count.out) == 1 ]]
    grep -qx 'tcp to9 syn=1 ack=0 rst=0 fin=0' count.out
    grep -qx 'tcp from9 syn=0 ack=1 rst=1 fin=0' count.out
    grep -qx 'udp to5353 ephemeral=1 syn=0' count.out
    # echo requests and replies: 20 + 8 + 56 bytes, starting with version 4, header length 5, TOS 0, length 84
    awk '$1 == "len" && $2 == 84 && $3 >= 10 { ok = 1 } END { exit !ok }' count.out
    grep -qxF 'str "E\000\000T' count.out
    grep -qx 'out ipv4 [0-9]*' count.out
    grep -qx 'bad 0' count.out
    # the drop run: ping got no reply (busybox ping exits 1), every request was dropped
    [[ $(cat drop.rc) == 1 ]]
    awk '$1 == "dropped" && $2 >= 3 { ok = 1 } END { exit !ok }' drop.out
    only_skip_warnings drop.err
    # NF_STOLEN refused: the packet went on (ping answered), the error reported
    [[ $(cat badv.rc) == 0 ]]
    grep -q 'ERROR: netfilter verdict must be NF_DROP (0), NF_ACCEPT (1) or NF_QUEUE' badv.err
}
