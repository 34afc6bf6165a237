# vm.* tapset aliases and proc_mem_* functions: a program's known page faults, mmaps, munmap, brk; a sysrq sync's kmalloc/kfree; an io-wq worker's node allocations
# Used by tests/run (issue 15): tapset/linux/memory.stp, plus three published-kind scripts (tests/guest/scripts/vm: pfaults, vmtrack, kmtop).

timeout_s=180
btf_rerun=1

# vmprog: maps region a (64 pages) and region b (16 pages) at fixed addresses, writes a byte in each page of a, reads
# each page of b then writes it (the zero page, then a copy), grows the heap by 64 KiB with brk, reads its
# /proc/self/statm, unmaps a; prints all it did afterwards (stdio allocates only then). It runs on CPU 0 only, so
# the lines its probes print keep their order.
write_vmprog() {
    cat >vmprog.c <<'CEOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#define NA 64
#define NB 16
#define HINT_A 0x100000000000UL
#define HINT_B 0x100010000000UL
int main(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	char statm[256];
	volatile char *a, *b;
	unsigned long cur, got;
	long i, sum = 0;
	int fd, n;
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	memset(statm, 0, sizeof(statm));
	a = mmap((void *)HINT_A, NA * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	b = mmap((void *)HINT_B, NB * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (a == MAP_FAILED || b == MAP_FAILED)
		return 1;
	for (i = 0; i < NA; i++)
		a[i * ps] = 1;
	for (i = 0; i < NB; i++)
		sum += b[i * ps];
	for (i = 0; i < NB; i++)
		b[i * ps] = 2;
	cur = (unsigned long)syscall(SYS_brk, 0);
	got = (unsigned long)syscall(SYS_brk, cur + 65536);
	fd = open("/proc/self/statm", O_RDONLY);
	n = read(fd, statm, sizeof(statm) - 1);
	close(fd);
	munmap((void *)a, NA * ps);
	if (n <= 0)
		return 1;
	printf("vmprog pid %d ps %ld a %#lx b %#lx brk %#lx %#lx sum %ld\n", (int)getpid(), ps, (unsigned long)a,
	       (unsigned long)b, cur, got, sum);
	printf("statm %s", statm);
	return 0;
}
CEOF
    gcc -O2 -o vmprog vmprog.c
}

# uringprog: an io_uring NOP forced to the async workers (raw system calls): the ring's first io-wq worker is then
# made on the ring's NUMA node, 0 (kzalloc_node in create_io_worker, its task_struct by kmem_cache_alloc_node)
write_uringprog() {
    cat >uringprog.c <<'CEOF'
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes;
	unsigned *sq_tail, *sq_array, *cq_head, *cq_tail;
	struct io_uring_cqe *cqes;
	char *sq, *cq;
	int fd, n;

	memset(&p, 0, sizeof(p));
	fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0)
		return 1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		    fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return 1;
	sq_tail = (unsigned *)(sq + p.sq_off.tail);
	sq_array = (unsigned *)(sq + p.sq_off.array);
	cq_head = (unsigned *)(cq + p.cq_off.head);
	cq_tail = (unsigned *)(cq + p.cq_off.tail);
	cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	/* a NOP forced to the async workers: the ring's first io-wq worker is created for it */
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_NOP;
	sqes[0].flags = IOSQE_ASYNC;
	sqes[0].user_data = 42;
	sq_array[0] = 0;
	__atomic_store_n(sq_tail, 1, __ATOMIC_RELEASE);
	n = (int)syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	if (n != 1 || __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head)
		return 1;
	printf("uringprog pid %d nop done %llu res %d\n", (int)getpid(), (unsigned long long)cqes[*cq_head & (p.cq_entries - 1)].user_data,
	       cqes[*cq_head & (p.cq_entries - 1)].res);
	return 0;
}
CEOF
    gcc -O2 -o uringprog uringprog.c
}

write_scripts() {
    # the aliases' variables for vmprog's two regions (a at 0x100000000000, b at 0x100010000000, 4 KiB pages)
    cat >node.stp <<'SEOF'
probe vm.kmalloc_node {
	if (execname() == "uringprog")
		printf("kmalloc_node name=%s caller=%s node=%d sizes_ok=%d ptr_node=%d gfp=%s\n", name, caller_function, node,
		       bytes_req > 0 && bytes_alloc >= bytes_req, addr_to_node(ptr), gfp_flag_name)
}
probe vm.kmem_cache_alloc_node {
	if (execname() == "uringprog")
		printf("kmem_cache_alloc_node name=%s caller=%s node=%d sizes_ok=%d ptr_node=%d gfp=%s\n", name, caller_function, node,
		       bytes_req > 0 && bytes_alloc >= bytes_req, addr_to_node(ptr), gfp_flag_name)
}
probe vm.kmalloc { if (execname() == "uringprog" && node != -1) printf("kmalloc caller=%s node=%d\n", caller_function, node) }
SEOF
    # hot probes (page faults, slab calls) touch no global but statistics (a read lock): a write lock there
    # would make the other CPU's hits skip; lines are printed instead, for the check to count
    cat >vm.stp <<'SEOF'
global nodes
function region:long(addr:long) {
	if (addr >= 0x100000000000 && addr < 0x100000000000 + 64 * 4096) return 1
	if (addr >= 0x100010000000 && addr < 0x100010000000 + 16 * 4096) return 2
	return 0
}
probe vm.pagefault {
	if (execname() == "vmprog" && region(address))
		printf("E %s %d %d %#x\n", name, region(address), write_access, address)
}
probe vm.pagefault.return {
	if (execname() == "vmprog")
		printf("R %s %s %d %d %d %d\n", name, vm_fault_type_str(fault_type), vm_fault_contains(fault_type, VM_FAULT_MINOR),
		       vm_fault_contains(fault_type, VM_FAULT_MAJOR), vm_fault_contains(fault_type, VM_FAULT_ERROR),
		       vm_fault_contains(fault_type, VM_FAULT_OOM) + vm_fault_contains(fault_type, VM_FAULT_SIGBUS))
}
probe vm.write_shared { if (execname() == "vmprog" && region(address)) printf("WS %s %d %#x\n", name, region(address), address) }
probe vm.write_shared_copy { if (execname() == "vmprog" && region(address)) printf("WSC %s %d %#x %d\n", name, region(address), address, zero) }
probe vm.mmap { if (execname() == "vmprog" && (address == 0x100000000000 || address == 0x100010000000)) printf("mmap name=%s address=%#x length=%d\n", name, address, length) }
probe vm.munmap {
	if (execname() == "vmprog" && address == 0x100000000000) {
		printf("munmap name=%s address=%#x length=%d\n", name, address, length)
		printf("mem %d %d %d %d %d\n", proc_mem_size(), proc_mem_rss(), proc_mem_shr(), proc_mem_txt(), proc_mem_data())
		p = pid()
		printf("mem_pid %d %d %d %d %d\n", proc_mem_size_pid(p), proc_mem_rss_pid(p), proc_mem_shr_pid(p), proc_mem_txt_pid(p), proc_mem_data_pid(p))
		printf("mem_string %s\n", proc_mem_string())
		printf("mem_string_pid_same %d\n", proc_mem_string_pid(p) == proc_mem_string())
		printf("mem_nopid %d %d %s\n", proc_mem_size_pid(-5), proc_mem_rss_pid(-5), proc_mem_string_pid(-5))
	}
}
probe vm.brk { if (execname() == "vmprog" && length == 65536) printf("brk name=%s address=%#x length=%d\n", name, address, length) }
probe vm.kmalloc {
	if (caller_function == "emergency_sync")
		printf("kmalloc name=%s caller_function=%s call_site_ok=%d ptr=%#x bytes_req=%d bytes_alloc_ok=%d gfp_flags_ok=%d gfp_flag_name=%s node=%d node_ok=%d\n",
		       name, caller_function, symname(call_site) == caller_function, ptr, bytes_req, bytes_alloc >= bytes_req,
		       gfp_flag_name(gfp_flags) == gfp_flag_name, gfp_flag_name, node, addr_to_node(ptr) == 0)
}
probe vm.kfree { if (caller_function == "do_sync_work") printf("kfree name=%s caller_function=%s ptr=%#x\n", name, caller_function, ptr) }
probe workqueue.insert { if (symname(work_func) == "do_sync_work") printf("insert work=%#x work_func=%s wq_name=%s wq_thread=%d\n", work, symname(work_func), wq_name, wq_thread) }
probe workqueue.execute { if (symname(work_func) == "do_sync_work") printf("execute work=%#x work_func=%s kworker=%d\n", work, symname(work_func), substr(task_execname(wq_thread), 0, 8) == "kworker/") }
probe vm.kmem_cache_alloc {
	if (execname() == "vmprog" && caller_function == "vm_area_alloc")
		printf("KCA %s %#x %d %d %d %s\n", name, ptr, bytes_req > 0 && bytes_alloc >= bytes_req, node, isinstr(gfp_flag_name, "GFP_KERNEL"), caller_function)
}
probe vm.kmem_cache_free { if (execname() == "vmprog") printf("KCF %s %#x %s\n", name, ptr, caller_function) }
probe vm.kmalloc_node, vm.kmem_cache_alloc_node {
	nodes[name] <<< 1
	if (node == -1) printf("node -1 in %s\n", name)
}
probe begin {
	printf("consts %d %d %d %d %d %d %d\n", VM_FAULT_OOM, VM_FAULT_SIGBUS, VM_FAULT_MINOR, VM_FAULT_MAJOR, VM_FAULT_NOPAGE, VM_FAULT_LOCKED, VM_FAULT_ERROR)
	printf("str [%s] [%s] [%s] [%s] [%s] [%s] [%s]\n", bytes_to_string(512), bytes_to_string(1536), bytes_to_string(300 * 1024),
	       bytes_to_string(5 * 1024 * 1024 + 512 * 1024), bytes_to_string(2048 * 1024 * 1024), bytes_to_string(-3), pages_to_string(25))
	printf("page_size %d\n", mem_page_size())
	printf("gfp %s %s %s\n", gfp_flag_name(0), gfp_flag_name(0xcc0), gfp_flag_name(0xcc0 | 0x100))
	printf("ftype %s %s %s %s\n", vm_fault_type_str(0), vm_fault_type_str(4), vm_fault_type_str(1), vm_fault_type_str(0x400 | 4))
	printf("contains %d %d %d %d %d\n", vm_fault_contains(4, VM_FAULT_MAJOR), vm_fault_contains(4, VM_FAULT_MINOR), vm_fault_contains(0, VM_FAULT_MINOR),
	       vm_fault_contains(2, VM_FAULT_SIGBUS), vm_fault_contains(2, VM_FAULT_ERROR))
	printf("addr_to_node %d\n", addr_to_node(0))
}
probe end { foreach (n in nodes) printf("%s hits %d\n", n, @count(nodes[n])) }
SEOF
}

# syncs.sh N: N emergency syncs (sysrq s), then waits (60 s at most) until the kernel logged the end of each
write_syncs() {
    cat >syncs.sh <<'SHEOF'
#!/bin/sh
done_count() { dmesg | grep -c 'Emergency Sync complete'; }
n0=$(done_count)
i=0
while [ $i -lt "$1" ]; do echo s >/proc/sysrq-trigger; i=$((i + 1)); done
w=0
while [ "$(done_count)" -lt $((n0 + $1)) ] && [ $w -lt 240 ]; do sleep 0.25; w=$((w + 1)); done
sleep 0.5
SHEOF
    chmod +x syncs.sh
}

build() {
    need_kernel_dwarf
    write_syncs
    write_vmprog
    write_uringprog
    write_scripts
    $STAP -L 'vm.*' >L.out
    $STAP -L 'vm.*.return' >>L.out
    # typed from BTF: 6.12 inlines wp_page_copy everywhere, so BTF lacks it and vm.write_shared_copy is
    # refused naming the -dbg package (-L leaves it out); the rest runs without it
    if [[ -n ${FROM_BTF:-} ]] && ! $STAP -p2 -e 'probe vm.write_shared_copy { }' >/dev/null 2>wsc.err; then
        grep -q "no function 'wp_page_copy' in the kernel's BTF.*(linux-image-$KVER-dbg)" wsc.err
        sed -i '/^probe vm.write_shared_copy /d' vm.stp
        touch no-wsc
    fi
    $STAP -p4 -m t_vm -DMAXSKIPPED=1000000 vm.stp >/dev/null
    $STAP -p4 -m t_node -DMAXSKIPPED=1000000 node.stp >/dev/null
    local d=$TOP/tests/guest/scripts/vm
    $STAP -p4 -m t_pfaults -DMAXSKIPPED=1000000 "$d/pfaults.stp" >/dev/null
    $STAP -p4 -m t_vmtrack "$d/vmtrack.stp" >/dev/null
    $STAP -p4 -m t_kmtop -DMAXSKIPPED=1000000 "$d/kmtop.stp" 100000 >/dev/null
}

guest() {
    # the sync of sysrq 's' kmallocs a work_struct (32 bytes) in emergency_sync; do_sync_work, run by a kworker, frees it
    staprun -c "sh -c './vmprog; ./syncs.sh 1'" t_vm.ko >vm.out
    staprun -c ./uringprog t_node.ko >node.out
    staprun -c ./vmprog t_pfaults.ko >pfaults.out
    # the target is vmprog itself: the redirection makes any stapio hand the line to sh -c, whose exec keeps the pid
    staprun -c 'exec ./vmprog </dev/null' t_vmtrack.ko >vmtrack.out
    staprun -c './syncs.sh 5' t_kmtop.ko >kmtop.out
}

# has FILE LINE: FILE holds LINE exactly
has() { grep -qxF -- "$2" "$1" || { echo "$1 lacks: $2"; grep -F "${2%% *}" "$1" | head -n 5; false; }; }

# vmprog's line: pid, page size, regions, brk before and after
vmprog_line() { sed -n 's/^vmprog pid \([0-9]*\) ps \([0-9]*\) a \(0x[0-9a-f]*\) b \(0x[0-9a-f]*\) brk \(0x[0-9a-f]*\) \(0x[0-9a-f]*\) sum 0$/\1 \2 \3 \4 \5 \6/p' "$1"; }

check() {
    [[ $(cat rc) == 0 ]]
    has L.out "vm.pagefault name:string address:long write_access:long"
    has L.out "vm.pagefault.return name:string fault_type:long"
    has L.out "vm.kmalloc name:string call_site:long caller_function:string ptr:long bytes_req:long bytes_alloc:long gfp_flags:long gfp_flag_name:string node:long"
    has L.out "vm.kfree name:string call_site:long caller_function:string ptr:long"
    has L.out "vm.mmap name:string address:long length:long"
    [[ -e no-wsc ]] || has L.out "vm.write_shared_copy name:string address:long zero:long"
    has L.out "vm.oom_kill name:string task:long"
    [[ $(grep -c '^vm\.' L.out) == $([[ -e no-wsc ]] && echo 13 || echo 14) ]]

    local p ps a b cur got
    read -r p ps a b cur got < <(vmprog_line vm.out)
    [[ -n $got && $ps == 4096 && $a == 0x100000000000 && $b == 0x100010000000 ]]
    has vm.out "consts 0 1 2 3 4 5 6"
    has vm.out "str [  512] [ 1.5K] [ 300K] [ 5.5M] [ 2.0G] [-3] [ 100K]"
    has vm.out "page_size 4096"
    has vm.out "gfp 0 GFP_KERNEL GFP_KERNEL|__GFP_ZERO"
    has vm.out "ftype MINOR MAJOR OOM MAJOR|RETRY"
    has vm.out "contains 1 0 1 1 1"
    has vm.out "addr_to_node -1"
    # 64 write faults in a; 16 read faults then 16 write faults in b; the next return of each is minor (the lines
    # between are the probes run inside the fault, and interrupts on its CPU)
    [[ $(grep -c '^E pagefault 1 1 ' vm.out) == 64 && $(grep -c '^E pagefault 1 0 ' vm.out) == 0 ]]
    [[ $(grep -c '^E pagefault 2 0 ' vm.out) == 16 && $(grep -c '^E pagefault 2 1 ' vm.out) == 16 ]]
    has vm.out "E pagefault 1 1 0x100000000000"
    has vm.out "E pagefault 2 0 0x10001000f000"
    [[ $(awk '/^E / { e = 1; next } !/^R / { next } e && $0 == "R pagefault MINOR 1 0 0 0" { n++ } { e = 0 } END { print n }' vm.out) == 96 ]]
    [[ $(grep -Ec '^R pagefault [A-Z|]+ [01] [01] [01] [0-9]+$' vm.out) == $(grep -c '^R ' vm.out) ]]
    # the 16 writes to b's zero pages: a write_shared and a cleared copy (zero=1) each, one per page
    [[ $(grep -c '^WS write_shared 2 ' vm.out) == 16 ]]
    if [[ ! -e no-wsc ]]; then
        [[ $(grep -c '^WSC write_shared_copy 2 .* 1$' vm.out) == 16 ]]
        [[ $(grep '^WSC ' vm.out | awk '{print $4}' | sort -u | wc -l) == 16 ]]
        has vm.out "WSC write_shared_copy 2 0x100010000000 1"
    fi
    not grep -Eq '^WSC? write_shared(_copy)? 1 ' vm.out
    has vm.out "mmap name=mmap address=0x100000000000 length=262144"
    has vm.out "mmap name=mmap address=0x100010000000 length=65536"
    has vm.out "munmap name=munmap address=0x100000000000 length=262144"
    # brk: from the old break rounded up to a page, 64 KiB
    local brkstart
    brkstart=$(printf '%#x' $(( (cur + 4095) & ~4095 )))
    has vm.out "brk name=brk address=$brkstart length=65536"
    (( got == cur + 65536 ))
    # proc_mem_* at the munmap: statm as vmprog read it just before
    local size rss shr txt lib data
    read -r size rss shr txt lib data _ < <(sed -n 's/^statm //p' vm.out)
    [[ -n $data ]]
    has vm.out "mem $size $rss $shr $txt $data"
    has vm.out "mem_pid $size $rss $shr $txt $data"
    grep -Eqx 'mem_string size: [ 0-9.]{4}[0-9KMG], rss: [ 0-9.]{4}[0-9KMG], shr: [ 0-9.]{4}[0-9KMG], txt: [ 0-9.]{4}[0-9KMG], data: [ 0-9.]{4}[0-9KMG]' vm.out
    has vm.out "mem_string_pid_same 1"
    # the sysrq sync's work_struct: kmalloc'ed by emergency_sync, queued on "events", run and kfree'd by do_sync_work
    local w
    w=$(sed -n 's/^kmalloc .* ptr=\(0x[0-9a-f]*\) .*/\1/p' vm.out)
    [[ -n $w && $(wc -l <<<"$w") == 1 ]]
    has vm.out "kmalloc name=kmalloc caller_function=emergency_sync call_site_ok=1 ptr=$w bytes_req=32 bytes_alloc_ok=1 gfp_flags_ok=1 gfp_flag_name=GFP_ATOMIC node=-1 node_ok=1"
    has vm.out "insert work=$w work_func=do_sync_work wq_name=events wq_thread=0"
    has vm.out "execute work=$w work_func=do_sync_work kworker=1"
    has vm.out "kfree name=kfree caller_function=do_sync_work ptr=$w"
    # vmprog's vm_area_structs: its mmaps allocate them from their cache; the munmap of a (or the exit) frees them
    (( $(grep -c '^KCA kmem_cache_alloc 0x[0-9a-f]* 1 -1 1 vm_area_alloc$' vm.out) >= 2 ))
    [[ $(grep -c '^KCA ' vm.out) == $(grep -c '^KCA kmem_cache_alloc 0x[0-9a-f]* 1 -1 1 vm_area_alloc$' vm.out) ]]
    local freed
    freed=$(join <(awk '/^KCA /{print $3}' vm.out | sort -u) <(awk '/^KCF kmem_cache_free /{print $3}' vm.out | sort -u) | wc -l)
    (( freed >= 1 ))
    not grep -q '^node -1 in' vm.out
    has vm.out "mem_nopid 0 0 size:     0, rss:     0, shr:     0, txt:     0, data:     0"

    # explicit NUMA nodes: the io-wq worker of uringprog's ring (its kzalloc_node, its task_struct), also seen by
    # vm.kmalloc with their node
    has node.out "uringprog pid $(sed -n 's/^uringprog pid \([0-9]*\) .*/\1/p' node.out) nop done 42 res 0"
    # (up to 6.11: io-wq's create_io_worker allocates with kzalloc_node on the ring's node; 6.12's uses kzalloc, and
    # forks its worker with no node: nothing of uringprog's has one there)
    if [[ $(printf '%s\n' 6.12 "${KVER%%[-+]*}" | sort -V | head -n 1) != 6.12 ]]; then
        has node.out "kmalloc_node name=kmalloc_node caller=create_io_worker node=0 sizes_ok=1 ptr_node=0 gfp=GFP_KERNEL|__GFP_ZERO"
        has node.out "kmalloc caller=create_io_worker node=0"
        grep -Eqx 'kmem_cache_alloc_node name=kmem_cache_alloc_node caller=(dup_task_struct|copy_process) node=0 sizes_ok=1 ptr_node=0 gfp=GFP_KERNEL' node.out
    fi
    not grep -q 'node=-1' node.out

    # pfaults: the header, rows by decreasing total; vmprog with at least its 96 minor faults
    read -r p _ < <(vmprog_line pfaults.out)
    grep -Eqx 'EXECNAME +PID +MINOR +MAJOR' pfaults.out
    awk -v p="$p" '$1 == "vmprog" && $2 == p && $3 >= 96 { ok = 1 } END { exit !ok }' pfaults.out
    sed -n '/^EXECNAME/,$p' pfaults.out | awk 'NR > 1 { t = $3 + $4; if (NR > 2 && t > last) exit 1; last = t }'

    # vmtrack: vmprog's two mmaps, munmap and brk with their lengths, the totals
    read -r p _ < <(vmprog_line vmtrack.out)
    [[ -n $p ]]
    grep -Eqx 'PID +OP +ADDRESS +LENGTH +VSIZE' vmtrack.out
    grep -Eqx "$p +mmap +0x100000000000 +262144 +[ 0-9.]+[KMG]" vmtrack.out
    grep -Eqx "$p +mmap +0x100010000000 +65536 +[ 0-9.]+[KMG]" vmtrack.out
    grep -Eqx "$p +munmap +0x100000000000 +262144 +[ 0-9.]+[KMG]" vmtrack.out
    grep -Eqx "$p +brk +0x[0-9a-f]+ +65536 +[ 0-9.]+[KMG]" vmtrack.out
    grep -Eqx 'total munmap: [1-9][0-9]* calls, [0-9]+ bytes' vmtrack.out
    # nothing but vmprog's lines (its own output aside)
    [[ -z $(grep -Ev "^($p |PID |total (mmap|munmap|brk): |vmprog pid |statm )" vmtrack.out) ]]

    # kmtop: the header; emergency_sync 5 times, 32 bytes each; rows by decreasing calls
    grep -Eqx ' +CALLS +REQUESTED +ALLOCATED +CALLER' kmtop.out
    grep -Eqx ' +5 +160 +[0-9]+  emergency_sync' kmtop.out
    sed 1d kmtop.out | awk '{ if (NR > 1 && $1 > last) exit 1; last = $1 }'
}
