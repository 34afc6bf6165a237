# the memory and irq tapsets in pass 2 and 4: each alias resolves on the kernel with the documented variables and
# types (stap -L), the functions' signatures, a script using them all compiles. Used by tests/run (issue 15).
cost_s=20

# ALIAS then its variables as stap -L prints them, sorted (the documented lists of tapset/linux/{memory,irq}.stp)
alloc='bytes_alloc:long bytes_req:long call_site:long caller_function:string gfp_flag_name:string gfp_flags:long name:string node:long ptr:long'
free='call_site:long caller_function:string name:string ptr:long'
act='action:long dev_id:long dev_name:long dir:long flags:long flags_str:string handler:long irq:long next_irqaction:long thread:long thread_flags:long thread_fn:long'
aliases=(
    "vm.pagefault|address:long name:string write_access:long"
    "vm.pagefault.return|fault_type:long name:string"
    "vm.write_shared|address:long name:string"
    "vm.write_shared_copy|address:long name:string zero:long"
    "vm.mmap|address:long length:long name:string"
    "vm.munmap|address:long length:long name:string"
    "vm.brk|address:long length:long name:string"
    "vm.oom_kill|name:string task:long"
    "vm.kmalloc|$alloc"
    "vm.kmalloc_node|$alloc"
    "vm.kmem_cache_alloc|$alloc"
    "vm.kmem_cache_alloc_node|$alloc"
    "vm.kfree|$free"
    "vm.kmem_cache_free|$free"
    "irq_handler.entry|$act"
    "irq_handler.exit|$act ret:long"
    "softirq.entry|action:long h:long vec:long vec_nr:long"
    "softirq.exit|action:long h:long vec:long vec_nr:long"
    "workqueue.create|cpu:long wq_thread:long"
    "workqueue.insert|cpu:long work:long work_func:long wq_name:string wq_thread:long"
    "workqueue.execute|work:long work_func:long wq_thread:long"
    "workqueue.destroy|wq_thread:long"
)
signatures=(
    'vm_fault_contains:long (value:long, test:long)'
    'vm_fault_type_str:string (fault_type:long)'
    'gfp_flag_name:string (gfp_flags:long)'
    'addr_to_node:long (addr:long)'
    'mem_page_size:long ()'
    'proc_mem_size:long ()'
    'proc_mem_size_pid:long (pid:long)'
    'proc_mem_rss:long ()'
    'proc_mem_rss_pid:long (pid:long)'
    'proc_mem_shr:long ()'
    'proc_mem_shr_pid:long (pid:long)'
    'proc_mem_txt:long ()'
    'proc_mem_txt_pid:long (pid:long)'
    'proc_mem_data:long ()'
    'proc_mem_data_pid:long (pid:long)'
    'proc_mem_string:string ()'
    'proc_mem_string_pid:string (pid:long)'
    'bytes_to_string:string (bytes:long)'
    'pages_to_string:string (pages:long)'
    'irqflags_str:string (flags:long)'
    'softirq_vec_str:string (vec_nr:long)'
)

run() {
    need_kernel_dwarf
    tapset_listing_matches
    # the probe points each alias takes on this kernel (6.1: handle_mm_fault, the kmem, irq and workqueue tracepoints,
    # do_mas_munmap)
    $STAP -r "$KVER" -p2 -e 'probe vm.pagefault, vm.munmap, vm.kmalloc_node, softirq.entry, workqueue.create { next }' >p2.out
    grep -q '^kernel.function("handle_mm_fault@' p2.out
    grep -q '^kernel.trace("irq:softirq_entry")' p2.out
    grep -q '^kernel.trace("kmem:kmalloc")' p2.out
    grep -q 'do_mas_munmap\|do_vmi_munmap' p2.out
    grep -q 'create_worker.*return' p2.out
    # every alias and function in one module, through pass 4 (the VM_FAULT_ERROR global is named like a kernel macro)
    cat >all.stp <<'SEOF'
probe vm.pagefault { println(address, write_access, name) }
probe vm.pagefault.return { println(fault_type, vm_fault_type_str(fault_type), vm_fault_contains(fault_type, VM_FAULT_ERROR)) }
probe vm.write_shared, vm.write_shared_copy, vm.mmap, vm.munmap, vm.brk { println(name, address) }
probe vm.kmalloc, vm.kmalloc_node, vm.kmem_cache_alloc, vm.kmem_cache_alloc_node { println(caller_function, bytes_req, gfp_flag_name, node, addr_to_node(ptr)) }
probe vm.kfree, vm.kmem_cache_free { println(caller_function, ptr) }
probe vm.oom_kill { println(task) }
probe irq_handler.entry, irq_handler.exit { println(irq, flags_str, dev_name, thread) }
probe softirq.entry, softirq.exit { println(softirq_vec_str(vec_nr), action, h, vec) }
probe workqueue.create, workqueue.insert, workqueue.execute, workqueue.destroy { println(wq_thread) }
probe end { println(proc_mem_string(), proc_mem_string_pid(1), bytes_to_string(5), pages_to_string(5), mem_page_size(), irqflags_str(0),
	proc_mem_size(), proc_mem_rss_pid(1), proc_mem_shr(), proc_mem_txt_pid(1), proc_mem_data()) }
SEOF
    $STAP -r "$KVER" -p4 -m t_vmirq all.stp >p4.out 2>p4.err || { cat p4.err; return 1; }
    [[ -s t_vmirq.ko ]]
}
