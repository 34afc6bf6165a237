# guest_crash_lines (tests/lib/guest.sh): oopses, warnings and stray stack dumps are trouble, an OOM-killer
# report's stack dump is not (but an oops inside one is). Used by tests/run.

# no ASan rerun: it tests a shell library and runs no program of ours
asan_rerun=0

run() {
    source "$TOP/tests/lib/guest.sh"
    # a memory cgroup's OOM kill, as 6.1 logs it
    cat >oom.txt <<'K'
[   12.301] oomhog invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0
[   12.302] CPU: 1 PID: 171 Comm: oomhog Tainted: G           OE      6.1.0-56-amd64 #1  Debian 6.1.192-1
[   12.303] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[   12.304] Call Trace:
[   12.305]  <TASK>
[   12.306]  dump_stack_lvl+0x44/0x5c
[   12.307]  dump_header+0x4a/0x211
[   12.308]  oom_kill_process.cold+0xb/0x10
[   12.309]  </TASK>
[   12.310] memory: usage 16384kB, limit 16384kB, failcnt 40
[   12.311] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/stapoom,task_memcg=/stapoom,task=oomhog,pid=171,uid=0
[   12.312] Memory cgroup out of memory: Killed process 171 (oomhog) total-vm:20000kB, anon-rss:16000kB, file-rss:1000kB, shmem-rss:0kB, UID:0 pgtables:80kB oom_score_adj:0
K
    not guest_crash_lines oom.txt
    [[ -z $(guest_crash_lines oom.txt) ]]
    # an oops inside the report still shows
    sed '6a [   12.306] BUG: kernel NULL pointer dereference, address: 0000000000000008' oom.txt >oops-in-oom.txt
    [[ $(guest_crash_lines oops-in-oom.txt) == '[   12.306] BUG: kernel NULL pointer dereference, address: 0000000000000008' ]]
    # a stack dump after the report (the report ended with "Killed process") is trouble again
    printf '%s\n' '[   13.000] WARNING: CPU: 0 PID: 9 at mm/x.c:1 f+0x1/0x2' '[   13.001] Call Trace:' >warn.txt
    cat oom.txt warn.txt >oom-then-warn.txt
    [[ $(guest_crash_lines oom-then-warn.txt | wc -l) == 2 ]]
    # a bare stack dump, an oops, a panic: trouble; each file is read on its own (a report cut off at
    # the end of one does not excuse the next file's dump)
    printf '%s\n' '[    5.0] Call Trace:' >trace.txt
    [[ $(guest_crash_lines trace.txt) == '[    5.0] Call Trace:' ]]
    head -n 3 oom.txt >cut.txt
    [[ $(guest_crash_lines cut.txt trace.txt) == '[    5.0] Call Trace:' ]]
    printf '%s\n' 'Kernel panic - not syncing: x' >panic.txt
    guest_crash_lines panic.txt >/dev/null
    printf '%s\n' 'all fine' >fine.txt
    not guest_crash_lines fine.txt
}
