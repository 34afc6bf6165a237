# Target variables with the kernel's DWARF hidden: guest/dwarf-vars again, its vmlinux probes ($count, .return's $return/@entry/$$parms, $file$ and $$ pretty printing, member chains, @cast, &, @defined, read faults) typed from BTF print the same; stap_testmod and the pieces module keep their own DWARF; @var of a kernel global is refused naming the -dbg package
# Used by tests/run (issue 21): guest/dwarf-vars.t's build, guest and check with DV_FROM_BTF=1, so one file says
# what every probe must print either way.

DV_FROM_BTF=1
# shellcheck source=dwarf-vars.t
source "$TOP/tests/guest/dwarf-vars.t"
