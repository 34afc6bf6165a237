# module signing for Secure Boot: --make-signing-key (key 0600, DER certificate, the mokutil step), --sign-module
# (signer, key and hash read back with modinfo; a kernel configured for another hash), the cache (a hit keeps the signature, another key re-signs). Used by tests/run.
cost_s=20

# cert_cn DIR: the CN of DIR's certificate (its serial: cert_serial, tests/lib/case-helpers.sh)
cert_cn() { openssl x509 -inform DER -in "$1/signing_key.x509" -noout -subject -nameopt multiline | sed -n 's/^ *commonName *= //p'; }

run() {
    source "$TOP/tests/lib/assert.sh"
    export TMPDIR=$PWD/tmp SYSTEMTAP_DIR=$PWD/sd
    mkdir -p "$TMPDIR"
    seed_stapdir "$SYSTEMTAP_DIR"
    local script='probe begin { println("signed hello"); exit() }' hash cert_sum entry

    # the key: made once under $SYSTEMTAP_DIR, the private key 0600, the certificate DER; the enrollment step
    expect_ok --make-signing-key
    [[ $(stat -c %a "$SYSTEMTAP_DIR/signing_key.priv") == 600 ]]
    openssl x509 -inform DER -in "$SYSTEMTAP_DIR/signing_key.x509" -noout
    grep -qxF "  mokutil --import $SYSTEMTAP_DIR/signing_key.x509" stdout || { cat stdout; return 1; }
    [[ $(cert_cn "$SYSTEMTAP_DIR") == "SystemTap module signing key ($(hostname))" ]]
    cert_sum=$(sha256sum <"$SYSTEMTAP_DIR/signing_key.x509")
    expect_ok --make-signing-key        # kept, not made again
    [[ $(sha256sum <"$SYSTEMTAP_DIR/signing_key.x509") == "$cert_sum" ]]
    grep -q "mokutil --import $SYSTEMTAP_DIR/signing_key.x509" stdout
    expect_ok --make-signing-key="$PWD/other"
    [[ $(stat -c %a other/signing_key.priv) == 600 ]]
    [[ $(cert_serial other) != "$(cert_serial "$SYSTEMTAP_DIR")" ]]

    # --sign-module: signed with the key, in the target kernel's configured hash (SHA-256 when it names none)
    hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "/lib/modules/$KVER/build/.config")
    hash=${hash:-sha256}
    expect_ok -v -p4 -r "$KVER" -m signed --sign-module -e "$script"
    grep -qF "Pass 4: signed the module with $SYSTEMTAP_DIR/signing_key.priv ($hash)" stderr || { cat stderr; return 1; }
    [[ $(modinfo -F signer signed.ko) == "$(cert_cn "$SYSTEMTAP_DIR")" ]]
    [[ $(modinfo -F sig_key signed.ko) == "$(cert_serial "$SYSTEMTAP_DIR")" ]]
    [[ $(modinfo -F sig_hashalgo signed.ko) == "$hash" ]]
    entry=$(sed -n 's/^Pass 4: cache miss; stored the module as //p' stderr)
    [[ $(modinfo -F sig_key "$entry") == "$(cert_serial "$SYSTEMTAP_DIR")" ]]   # the cache holds it signed
    mv signed.ko first.ko

    # a cache hit with the same key keeps the signature: the same bytes, sign-file not run
    expect_ok -v -p4 -r "$KVER" -m signed --sign-module -e "$script"
    grep -qF "Pass 4: using cached $entry" stderr
    grep -qF "Pass 4: the module is signed with $SYSTEMTAP_DIR/signing_key.x509 ($hash) already" stderr
    cmp first.ko signed.ko

    # a hit with another key: signed again, with that key only (the old signature stripped), and cached so
    expect_ok -v -p4 -r "$KVER" -m signed --sign-module="$PWD/other" -e "$script"
    grep -qF "Pass 4: using cached $entry" stderr
    grep -qF "Pass 4: signed the module with $PWD/other/signing_key.priv ($hash)" stderr
    [[ $(modinfo -F sig_key signed.ko) == "$(cert_serial other)" ]]
    [[ $(modinfo -F signer signed.ko) == "$(cert_cn other)" ]]
    [[ $(grep -c 'Module signature appended' signed.ko) == 1 ]]
    (( $(stat -c %s signed.ko) == $(stat -c %s first.ko) ))   # same key size: same length, one signature
    [[ $(modinfo -F sig_key "$entry") == "$(cert_serial other)" ]]
    # and back to the first key: the same bytes as its first signing (sign-file's signatures are deterministic)
    expect_ok -p4 -r "$KVER" -m signed --sign-module -e "$script"
    cmp first.ko signed.ko

    # a kernel configured to sign with another hash: a copy of the build tree whose configuration says so
    local tree=$PWD/tree orig other_hash l
    orig=$(readlink -f "/lib/modules/$KVER/build")
    other_hash=sha512; [[ $hash == sha512 ]] && other_hash=sha384
    cp -a "$orig" "$tree"
    for l in $(find "$tree" -maxdepth 1 -type l -printf '%f\n'); do ln -sfn "$(readlink -f "$orig/$l")" "$tree/$l"; done
    sed -i "s/^CONFIG_MODULE_SIG_HASH=.*/CONFIG_MODULE_SIG_HASH=\"$other_hash\"/" "$tree/.config" "$tree/include/config/auto.conf"
    expect_ok -v -p4 -r "$tree" -m hashed --sign-module -e "$script"
    grep -qF "Pass 4: signed the module with $SYSTEMTAP_DIR/signing_key.priv ($other_hash)" stderr || { cat stderr; return 1; }
    [[ $(modinfo -F sig_hashalgo hashed.ko) == "$other_hash" ]]
    [[ $(modinfo -F sig_key hashed.ko) == "$(cert_serial "$SYSTEMTAP_DIR")" ]]

    # another kernel release that checks signatures (CONFIG_MODULE_SIG): signed without being asked when
    # the default key exists; without a key, unsigned and no complaint
    if grep -q '^CONFIG_MODULE_SIG=y' "/lib/modules/$KVER/build/.config"; then
        expect_ok -p4 -r "$KVER" -m auto -e "$script"
        [[ $(modinfo -F sig_key auto.ko) == "$(cert_serial "$SYSTEMTAP_DIR")" ]]
        seed_stapdir "$PWD/nokey"
        SYSTEMTAP_DIR=$PWD/nokey expect_ok -p4 -r "$KVER" -m auto -e "$script"
        [[ -z $(modinfo -F signer auto.ko) && ! -s stderr ]]
    fi

    # --sign-module without a key says how to make one; no module is left
    rm -f signed.ko
    expect_plain_error "--sign-module: no signing key in $PWD/none (signing_key.priv and signing_key.x509): make one with stap --make-signing-key=$PWD/none" \
        -p4 -r "$KVER" -m signed --sign-module="$PWD/none" -e "$script"
    [[ ! -e signed.ko ]]
    [[ -z $(ls -A "$TMPDIR") ]]
}
