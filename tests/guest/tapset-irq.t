# irq_handler.*, softirq.*, workqueue.* tapset aliases against /proc/interrupts and /proc/softirqs, a worker pool made and released
# Used by tests/run (issue 15): tapset/linux/irq.stp, plus two published-kind scripts (tests/guest/scripts/irq: irqbydev, softirqtime).

timeout_s=180
btf_rerun=1

write_scripts() {
    # (struct softirq_action is one pointer: 8 bytes)
    # each module probes one context only (hard irq, or softirq): a hit can then never be skipped for nesting
    # in another of its handlers, and statistics (<<<) take no write lock, so none is skipped for a lock: the
    # counts are exact, at least what /proc counted meanwhile
    cat >hardirq.stp <<'SEOF'
global hits, rets
probe irq_handler.entry {
	hits[irq, kernel_string(dev_name), symname(handler), flags_str] <<< (action != 0 && dev_id != 0 && flags_str == irqflags_str(flags) &&
		thread_fn == 0 && thread == 0 && thread_flags == 0 && next_irqaction == 0 && dir != 0)
}
probe irq_handler.exit {
	rets[irq, ret, kernel_string(dev_name), symname(handler) == symname(@cast(action, "struct irqaction")->handler)] <<< 1
}
probe end {
	foreach ([i, d, h, f] in hits)
		printf("entry irq=%d dev=%s handler=%s flags=%s count=%d ok=%d\n", i, d, h, f, @count(hits[i, d, h, f]), @min(hits[i, d, h, f]))
	foreach ([i, r, d, ok] in rets)
		printf("exit irq=%d ret=%d dev=%s handler_ok=%d count=%d\n", i, r, d, ok, @count(rets[i, r, d, ok]))
}
SEOF
    cat >softirq.stp <<'SEOF'
global ent, ex
probe softirq.entry {
	ent[vec_nr, softirq_vec_str(vec_nr), symname(action)] <<< (vec ? h == vec + vec_nr * 8 : !h && !action)
}
probe softirq.exit {
	ex[softirq_vec_str(vec_nr), symname(action)] <<< 1
}
probe end {
	foreach ([v, n, a] in ent)
		printf("entry vec_nr=%d name=%s action=%s count=%d h_ok=%d\n", v, n, a, @count(ent[v, n, a]), @min(ent[v, n, a]))
	foreach ([n, a] in ex)
		printf("exit name=%s action=%s count=%d\n", n, a, @count(ex[n, a]))
}
SEOF
    cat >wq.stp <<'SEOF'
probe workqueue.create { printf("create pid=%d cpu=%d nice=%d kworker_u=%d\n", task_pid(wq_thread), cpu, task_nice(wq_thread), substr(task_execname(wq_thread), 0, 9) == "kworker/u") }
probe workqueue.destroy { printf("destroy pid=%d nice=%d\n", task_pid(wq_thread), task_nice(wq_thread)) }
probe workqueue.insert { if (symname(work_func) == "pwq_unbound_release_workfn") printf("insert work_func=%s wq_name=%s wq_thread=%d\n", symname(work_func), wq_name, wq_thread) }
probe workqueue.execute { if (symname(work_func) == "pwq_unbound_release_workfn") printf("execute work_func=%s kworker=%d\n", symname(work_func), substr(task_execname(wq_thread), 0, 8) == "kworker/") }
probe begin { printf("flags %s %s %s\n", irqflags_str(0), irqflags_str(0x80 | 0x2000), irqflags_str(0x200 | 0x100000000)) 
	printf("names %s %s %s %s\n", softirq_vec_str(0), softirq_vec_str(1), softirq_vec_str(3), softirq_vec_str(9)) }
SEOF
}

# wqnice.sh FILE NICE: the workqueue of sysfs attribute FILE at nice NICE for a second, then back at its old nice;
# then waits (60 s at most) until no unbound kworker at NICE is left (its pool is released by queued work)
write_wqnice() {
    cat >wqnice.sh <<'SHEOF'
#!/bin/sh
old=$(cat "$1")
echo "$2" >"$1"
sleep 1
echo "$old" >"$1"
w=0
while [ $w -lt 240 ] && cat /proc/[0-9]*/stat 2>/dev/null | awk -v n="$2" '$2 ~ /^\(kworker\/u/ && $19 == n { f = 1 } END { exit !f }'; do
	sleep 0.25
	w=$((w + 1))
done
sleep 0.5
SHEOF
    chmod +x wqnice.sh
}

build() {
    need_kernel_dwarf
    # the old pwqs are released by a work item on the system workqueue where the kernel has
    # pwq_unbound_release_workfn (6.1); 6.12 releases them on a kthread_worker of its own, no workqueue's
    if $STAP -l 'kernel.function("pwq_unbound_release_workfn")' | grep -q .; then touch pwq-release-work; fi
    write_wqnice
    write_scripts
    local a
    for a in 'irq_handler.*' 'softirq.*' 'workqueue.*'; do $STAP -L "$a"; done >L.out
    $STAP -p4 -m t_hardirq hardirq.stp >/dev/null
    $STAP -p4 -m t_softirq softirq.stp >/dev/null
    $STAP -p4 -m t_wq wq.stp >/dev/null
    local d=$TOP/tests/guest/scripts/irq
    $STAP -p4 -m t_irqbydev "$d/irqbydev.stp" >/dev/null
    $STAP -p4 -m t_softirqtime -DMAXSKIPPED=1000000 "$d/softirqtime.stp" >/dev/null
}

guest() {
    nproc >ncpu
    # interrupts: reads over 9p (virtio) between two readings of /proc/interrupts
    staprun -c "sh -c 'cat /proc/interrupts >int.0; dd if=/usr/bin/bash of=/dev/null bs=4k status=none; cat /proc/interrupts >int.1'" \
        t_hardirq.ko >hardirq.out
    staprun -c "sh -c 'cat /proc/interrupts >dev.0; dd if=/usr/bin/bash of=/dev/null bs=4k status=none; cat /proc/interrupts >dev.1'" \
        t_irqbydev.ko >irqbydev.out
    # softirqs: 5 UDP datagrams to a closed port on the loopback (NET_RX), a second of timers
    ip link set lo up
    staprun -c "bash -c 'cat /proc/softirqs >sirq.0; for i in 1 2 3 4 5; do echo x >/dev/udp/127.0.0.1/9; sleep 0.2; done; cat /proc/softirqs >sirq.1'" \
        t_softirq.ko >softirq.out
    staprun -c "bash -c 'for i in 1 2 3 4 5; do echo x >/dev/udp/127.0.0.1/9; sleep 0.2; done'" t_softirqtime.ko >softirqtime.out
    # worker pools: the writeback workqueue at nice 3 gets a new unbound pool and its first kworker; back at its
    # old nice, the pool is released with its worker
    local f=/sys/devices/virtual/workqueue/writeback/nice
    staprun -c "./wqnice.sh $f 3" t_wq.ko >wq.out
}

# has FILE LINE: FILE holds LINE exactly
has() { grep -qxF -- "$2" "$1" || { echo "$1 lacks: $2"; grep -F "${2%% *}" "$1" | head -n 5; false; }; }

# irq_deltas BEFORE AFTER NCPU: "IRQ DELTA NAMES" for each numbered irq of /proc/interrupts that fired in between
irq_deltas() {
    join <(awk -v n="$3" '$1 ~ /^[0-9]+:$/ { s = 0; for (i = 2; i <= n + 1; i++) s += $i; sub(":", "", $1); print $1, s }' "$1" | sort) \
         <(awk -v n="$3" '$1 ~ /^[0-9]+:$/ { s = 0; for (i = 2; i <= n + 1; i++) s += $i; sub(":", "", $1); $2 = s; for (i = 3; i <= n + 3; i++) $i = ""; print }' "$2" | sort) |
        awk '$3 > $2 { d = $3 - $2; irq = $1; $1 = $2 = $3 = ""; sub(/^ +/, ""); print irq, d, $0 }'
}

# softirq_deltas BEFORE AFTER: "NAME DELTA" for each line of /proc/softirqs
softirq_deltas() {
    join <(awk 'NR > 1 { s = 0; for (i = 2; i <= NF; i++) s += $i; sub(":", "", $1); print $1, s }' "$1" | sort) \
         <(awk 'NR > 1 { s = 0; for (i = 2; i <= NF; i++) s += $i; sub(":", "", $1); print $1, s }' "$2" | sort) |
        awk '{ print $1, $3 - $2 }'
}

check() {
    [[ $(cat rc) == 0 ]]
    has L.out "irq_handler.entry irq:long action:long handler:long flags:long flags_str:string dev_name:long dev_id:long next_irqaction:long dir:long thread_fn:long thread:long thread_flags:long"
    has L.out "irq_handler.exit irq:long action:long ret:long handler:long flags:long flags_str:string dev_name:long dev_id:long next_irqaction:long dir:long thread_fn:long thread:long thread_flags:long"
    has L.out "softirq.entry vec_nr:long vec:long h:long action:long"
    has L.out "softirq.exit vec_nr:long vec:long h:long action:long"
    has L.out "workqueue.create wq_thread:long cpu:long"
    has L.out "workqueue.insert wq_thread:long work:long work_func:long cpu:long wq_name:string"
    has L.out "workqueue.execute wq_thread:long work:long work_func:long"
    has L.out "workqueue.destroy wq_thread:long"
    local ncpu irq d names n virtio=0
    ncpu=$(cat ncpu)

    # every irq /proc/interrupts counted meanwhile: its handler ran at least as often, under the name /proc shows;
    # the 9p reads made the virtio device's interrupts
    while read -r irq d names; do
        n=$(grep "^entry irq=$irq " hardirq.out | sed 's/.* count=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
        (( n >= d )) || { echo "irq $irq ($names): $n handler runs, /proc/interrupts +$d"; false; }
        grep "^entry irq=$irq " hardirq.out | sed 's/.* dev=\([^ ]*\) .*/\1/' | while read -r dev; do
            [[ " ${names//,/ } " == *" $dev "* ]] || { echo "irq $irq: dev $dev not in '$names'"; exit 1; }
        done
        [[ $names == *virtio* ]] && virtio=$((virtio + d))
    done < <(irq_deltas int.0 int.1 "$ncpu")
    (( virtio >= 10 ))
    # the virtio request irq: vring_interrupt's runs, each with a sane action (no thread, not shared) and flags, all returned
    # (flags 0 on 6.1; 6.12's virtio-pci asks for IRQF_COND_ONESHOT, 0x200000, which is neither IRQF_SHARED nor IRQF_ONESHOT)
    # PREEMPT_RT threads every handler: the hard irq runs irq_default_primary_handler, which wakes the thread
    # (ok=0: the action has one; IRQ_WAKE_THREAD, 2) that runs vring_interrupt
    local h=vring_interrupt ok=1 ret=1
    if kernel_is_rt; then h=irq_default_primary_handler ok=0 ret=2; fi
    grep -Eq "^entry irq=[0-9]+ dev=virtio[0-9]+-requests handler=$h flags=(0|0x200000) count=[0-9]+ ok=$ok\$" hardirq.out
    local e x
    e=$(grep -E '^entry irq=[0-9]+ dev=virtio' hardirq.out | sed 's/.* count=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
    x=$(grep -E '^exit irq=[0-9]+ ret=[012] dev=virtio[^ ]* handler_ok=1 ' hardirq.out | sed 's/.* count=//' | awk '{ s += $1 } END { print s + 0 }')
    (( e > 0 && x >= e - 2 && x <= e + 2 ))
    grep -Eq "^exit irq=[0-9]+ ret=$ret dev=virtio[0-9]+-requests handler_ok=1 count=[1-9]" hardirq.out

    # irqbydev: the header, rows by decreasing count, the virtio requests device at least as often as /proc counted
    grep -Eqx 'DEVICE +IRQ +COUNT' irqbydev.out
    sed 1d irqbydev.out | awk '{ if (NR > 1 && $3 > last) exit 1; last = $3 }'
    virtio=0
    while read -r irq d names; do
        n=$(awk -v i="$irq" '$2 == i { print $3 }' irqbydev.out)
        [[ $names != *virtio* ]] || { (( ${n:-0} >= d )) && grep -Eq "^${names%%,*} +$irq +$n$" irqbydev.out; virtio=$((virtio + d)); }
    done < <(irq_deltas dev.0 dev.1 "$ncpu")
    (( virtio >= 10 ))

    # softirqs: each vector at least as often as /proc/softirqs counted, by its name and handler; the datagrams' NET_RX
    local name
    while read -r name d; do
        n=$(sed -n "s/^entry vec_nr=[0-9]* name=$name .* count=\([0-9]*\) .*/\1/p" softirq.out)
        (( ${n:-0} >= d )) || { echo "softirq $name: $n runs, /proc/softirqs +$d"; false; }
    done < <(softirq_deltas sirq.0 sirq.1)
    (( $(softirq_deltas sirq.0 sirq.1 | awk '$1 == "NET_RX" { print $2 }') >= 5 ))
    # typed from BTF: softirq_vec has no address (only DWARF gives it), so vec, h and action are 0
    local nrx=net_rx_action tmr=run_timer_softirq
    if [[ -n ${FROM_BTF:-} ]]; then nrx=0x0000000000000000 tmr=$nrx; fi
    grep -Eqx "entry vec_nr=3 name=NET_RX action=$nrx count=[0-9]+ h_ok=1" softirq.out
    grep -Eqx "entry vec_nr=1 name=TIMER action=$tmr count=[0-9]+ h_ok=1" softirq.out
    grep -Eqx "exit name=NET_RX action=$nrx count=[0-9]+" softirq.out
    not grep -E '^entry .* h_ok=0$' softirq.out
    local en ex
    en=$(sed -n 's/^entry vec_nr=3 name=NET_RX .* count=\([0-9]*\) .*/\1/p' softirq.out)
    ex=$(sed -n 's/^exit name=NET_RX .* count=\([0-9]*\)$/\1/p' softirq.out)
    (( en >= 5 && ex >= en - 2 && ex <= en + 2 ))

    # softirqtime: the header, rows by decreasing total time, NET_RX run by net_rx_action at least once per datagram
    grep -Eqx 'SOFTIRQ +RUNS +TOTAL_US +AVG_US +HANDLER' softirqtime.out
    grep -Eqx "NET_RX +[0-9]+ +[0-9]+ +[0-9]+  $nrx" softirqtime.out
    (( $(awk '$1 == "NET_RX" { print $2 }' softirqtime.out) >= 1 ))
    grep -Eqx "TIMER +[1-9][0-9]* +[0-9]+ +[0-9]+  $tmr" softirqtime.out
    sed -n '/^SOFTIRQ/,$p' softirqtime.out | awk 'NR > 1 { if (NR > 2 && $3 > last) exit 1; last = $3; if ($4 > $3) exit 1 }'

    # worker pools: an unbound kworker made at nice 3 (the new pool's first; a busy pool may add more), each
    # destroyed with its pool; the old pwqs released by a kworker
    has wq.out "flags 0 IRQF_SHARED|IRQF_ONESHOT IRQF_TIMER|0x100000000"
    has wq.out "names HI TIMER NET_RX RCU"
    local k
    k=$(sed -n 's/^create pid=\([0-9]*\) cpu=-1 nice=3 kworker_u=1$/\1/p' wq.out)
    [[ -n $k ]]
    for k in $k; do
        has wq.out "destroy pid=$k nice=3"
    done
    if [[ -e pwq-release-work ]]; then
        has wq.out "insert work_func=pwq_unbound_release_workfn wq_name=events wq_thread=0"
        has wq.out "execute work_func=pwq_unbound_release_workfn kworker=1"
    fi
}
