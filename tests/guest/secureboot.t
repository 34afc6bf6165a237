# secureboot: the Secure Boot guests of tests/secureboot/run (an unsigned module refused, a signed one run, BPF and app-trace on BPF under lockdown=integrity, BPF refused under lockdown=confidentiality), in the suite's pool
# Used by tests/run (guest/secureboot). Host-only case: build() runs tests/secureboot/run (OVMF, its own two boots) beside
# the other cases, where CI ran it alone before make check; make check-secureboot still runs it by itself.

# build()'s limit (tests/run: a host-only case's timeout_s): two boots through OVMF, shim and GRUB under TCG
timeout_s=900

build() {
    TESTS_OUT=$CASE_DIR "$TOP/tests/secureboot/run" >secureboot.log 2>&1 || { cat secureboot.log; return 1; }
    grep -E '^(FAIL|SKIP) ' secureboot.log || true
    tail -n 1 secureboot.log
}
