# seed corpus, DWARF scripts with the kernel's DWARF hidden: the kernel.function scripts of guest/seed-dwarf typed from the kernel's BTF print the same (017's $$vars without locals, which BTF has not); 041 (link_path_walk, not in BTF) is refused naming the -dbg package
# Used by tests/run (issue 21): guest/seed-dwarf.t's build, guest and check with SEED_FROM_BTF=1 (STAP_DEBUGINFO_PATH an
# empty directory), so one file says what the scripts must print either way.

SEED_FROM_BTF=1
# shellcheck source=seed-dwarf.t
source "$TOP/tests/guest/seed-dwarf.t"
