# print_backtrace_fileline: without kernel line tables the lines of print_backtrace (the same frames, " 0xADDR : NAME+0xOFF/0xSIZE [kernel]"), in a kprobe and in begin
# Used by tests/run (issue 31): tapset/linux/context-unwind.stp.

timeout_s=60

build() {
    $STAP -p4 -m t_btfl -e '
probe begin { println("BA"); print_backtrace_fileline(); println("BB"); print_backtrace(); println("BE") }
probe kprobe.function("vfs_read") {
	if (pid() != target())
		next
	println("KA"); print_backtrace_fileline(); println("KB"); print_backtrace(); println("KE")
	exit()
}' >/dev/null
}

guest() {
    staprun -c "cat /proc/version" t_btfl.ko >bt.out 2>bt.err
}

# section NAME1 NAME2: the lines between them
section() { sed -n "/^$1\$/,/^$2\$/p" bt.out | sed '1d;$d'; }

check() {
    [[ ! -s bt.err ]] || { cat bt.err; return 1; }
    section KA KB | grep -qE '^ 0x[0-9a-f]{16} : vfs_read\+0x[0-9a-f]+/0x[0-9a-f]+ \[kernel\]$'
    diff <(section KA KB) <(section KB KE)
    [[ -n $(section BA BB) ]]
    diff <(section BA BB) <(section BB BE)
}
