# args-and-alternatives: SystemTap scripts unchanged (issue 31) in a loaded module: probe points and numbers
# given on the command line as $1.. (token substitution), '!' on one alternative of a {..} group, and an
# alias with a prologue and an epilogue in one definition.

build() {
    cat >argpp.stp <<'SCRIPT'
global calls, returns, pages
probe $1 { if (execname() == @4) calls++ }
probe $1.return { if (execname() == @4) returns++ }
# the first alternative exists on every kernel we run: the second (missing) one is not needed
probe kernel.{trace("mm_page_alloc")!, trace("mm_page_allocation")} { if (execname() == @4) pages++ }
# an alias with a prologue and an epilogue in one definition, around the script's body
probe report = $2 { order = "prologue" }, { printf(" order=%s\n", order . ",epilogue"); exit() }
probe report {
    order .= ",body"
    printf("%s calls>=%d:%d returns>=%d:%d pages:%d", @1, $3, calls >= $3, $3, returns >= $3, pages > 0)
}
SCRIPT
    $STAP -p4 -m t_argpp argpp.stp 'kprobe.function("ksys_read")' 'timer.ms(700)' '100 * 5' dd >/dev/null
}

guest() {
    # keep dd reading one byte at a time for as long as the probes are armed
    run_reading t_argpp.ko
}

check() {
    [[ $(cat rc) == 0 ]]
    # $3 is "100 * 5": the tokens, so the threshold printed is 500; @1 is the argument's text
    grep -qx 'kprobe.function("ksys_read") calls>=500:1 returns>=500:1 pages:1 order=prologue,body,epilogue' out
}
