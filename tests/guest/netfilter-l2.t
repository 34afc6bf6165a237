# netfilter.arp.* and netfilter.bridge.* aliases: ARP between two namespaces over veth, frames through a bridge
# Used by tests/run: tapset/linux/netfilter.stp (ARP and bridge variables), runtime/probes/netfilter.c (NFPROTO_ARP, NFPROTO_BRIDGE).

build() {
    $STAP -p4 -m t_nfl2 -e '
global arp, br, mac_ok
probe netfilter.arp.in, netfilter.arp.out {
    if (ar_sip == "10.7.0.1" || ar_sip == "10.7.0.2") {
        arp[sprintf("%s %s op=%d %s > %s hrd=%d pro=%#x hln=%d pln=%d %s/%s", $hooknum == 0 ? "in" : "out", pf,
                    ar_op, ar_sip, ar_tip, ar_hrd, ar_pro, ar_hln, ar_pln, indev_name, outdev_name)]++
        if (ar_sha =~ "^[0-9a-f]{2}(:[0-9a-f]{2}){5}$") mac_ok++
    }
}
probe netfilter.bridge.pre_routing, netfilter.bridge.local_in {
    br[$hooknum, pf, indev_name, protocol, llcproto_stp]++
}
probe end {
    foreach (a in arp) printf("arp %s\n", a)
    printf("mac_ok %d\n", mac_ok)
    foreach ([h, p, dev, pr, stp] in br)
        printf("bridge %d %s %s protocol=%d stp=%#x %d\n", h, p, dev, pr, stp, br[h, p, dev, pr, stp])
}' >/dev/null
}

guest() {
    modprobe veth
    modprobe bridge
    ip netns add nfa
    ip netns add nfb
    ip netns add nfc
    # nfa (va, 10.7.0.1) <-> nfb (vb, 10.7.0.2)
    ip link add va netns nfa type veth peer name vb netns nfb
    ip -n nfa addr add 10.7.0.1/24 dev va
    ip -n nfb addr add 10.7.0.2/24 dev vb
    ip -n nfa link set va up
    ip -n nfb link set vb up
    # nfc (vc, 10.8.0.2) <-> vd, a port of br0 (10.8.0.1) here
    ip link add br0 type bridge
    ip link add vd type veth peer name vc netns nfc
    ip link set vd master br0
    ip addr add 10.8.0.1/24 dev br0
    ip link set br0 up
    ip link set vd up
    ip -n nfc addr add 10.8.0.2/24 dev vc
    ip -n nfc link set vc up
    staprun -c 'ip netns exec nfa busybox ping -c 1 -W 3 10.7.0.2 >/dev/null; echo $? >arp.rc
                ip netns exec nfc busybox ping -c 1 -W 3 10.8.0.1 >/dev/null; echo $? >br.rc' \
        t_nfl2.ko >l2.out 2>l2.err
    ip netns del nfa
    ip netns del nfb
    ip netns del nfc
    ip link del br0
    not loaded t_nfl2
    # leave the kernel as found, as far as the namespaces' asynchronous cleanup lets us
    local i
    for i in $(seq 30); do
        rmmod bridge stp llc veth 2>/dev/null && break
        nap 0.1
    done
    true
}

check() {
    [[ $(cat rc) == 0 ]]
    cat l2.out
    [[ $(cat arp.rc) == 0 ]]
    [[ $(cat br.rc) == 0 ]]
    only_skip_warnings l2.err
    # the request goes out of va and comes in on vb, the reply the other way
    grep -qx 'arp out arp op=1 10.7.0.1 > 10.7.0.2 hrd=1 pro=0x800 hln=6 pln=4 /va' l2.out
    grep -qx 'arp in arp op=1 10.7.0.1 > 10.7.0.2 hrd=1 pro=0x800 hln=6 pln=4 vb/' l2.out
    grep -qx 'arp out arp op=2 10.7.0.2 > 10.7.0.1 hrd=1 pro=0x800 hln=6 pln=4 /vb' l2.out
    grep -qx 'arp in arp op=2 10.7.0.2 > 10.7.0.1 hrd=1 pro=0x800 hln=6 pln=4 va/' l2.out
    awk '$1 == "mac_ok" && $2 >= 4 { ok = 1 } END { exit !ok }' l2.out
    # frames from vc reach the bridge (hook 0) and br0's own stack (hook 1) through the port vd
    awk '$1 == "bridge" && $2 == 0 && $3 == "bridge" && $4 == "vd" && $5 == "protocol=0" && $6 == "stp=0x42" { ok = 1 }
         END { exit !ok }' l2.out
    awk '$1 == "bridge" && $2 == 1 && $3 == "bridge" && $4 == "vd" { ok = 1 } END { exit !ok }' l2.out
}
