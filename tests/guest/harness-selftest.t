# harness self-test: build a tiny module on the host, load and unload it in the guest, check dmesg
# Used by tests/run (as guest/harness-selftest); an example of the guest case format.

build() {
    cp "$TOP"/tests/guest/selftest/{hello.c,Kbuild} .
    make -s -C "/lib/modules/$KVER/build" M="$CASE_DIR" modules
    test -f hello.ko
}

guest() {
    insmod hello.ko
    grep -q '^hello ' /proc/modules
    rmmod hello
    not grep -q '^hello ' /proc/modules
    dmesg | grep stap-harness-selftest
}

check() {
    grep -q 'stap-harness-selftest: hello from the guest kernel' out
    grep -q 'stap-harness-selftest: goodbye' out
}
