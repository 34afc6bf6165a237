# attacks on the module signing key (translator/compile/signkey.c): a key directory others can change, planted
# symbolic links, FIFOs, hard links, keys of another owner or open modes are refused, nothing is written through
# them; and staprun's refusal of a module the kernel does not trust (staprun/secureboot.c, through
# tests/unit/secureboot-driver.c) names the key from the module alone, opening nothing the caller's
# environment names.  Used by tests/run.
cost_s=15

# refused_make DIR MESSAGE: stap --make-signing-key=DIR fails with that one-line error and prints no mokutil step
refused_make() {
    expect_plain_error "$2" --make-signing-key="$1" || return 1
    if [[ -s stdout ]]; then echo "stdout after a refusal:"; cat stdout; return 1; fi
}


run() {
    source "$TOP/tests/lib/assert.sh"
    export TMPDIR=$PWD/tmp SYSTEMTAP_DIR=$PWD/sd
    mkdir -p "$TMPDIR"
    seed_stapdir "$SYSTEMTAP_DIR"
    local script='probe begin { println("signed hello"); exit() }' verdict secret_sum d
    verdict="not using it for the signing key (keep the key in a directory only you and root can change)"

    # control: a fresh directory of ours gets the key (0600, nothing else left there), and signs with it
    expect_ok --make-signing-key="$PWD/good"
    [[ $(stat -c %a good/signing_key.priv) == 600 && $(ls -A good | paste -sd' ') == "signing_key.priv signing_key.x509" ]]
    expect_ok -p4 -r "$KVER" -m signed --sign-module="$PWD/good" -e "$script"
    [[ $(modinfo -F sig_key signed.ko) == "$(cert_serial good)" ]]
    mv signed.ko good.ko

    # 1. SYSTEMTAP_DIR inside a directory another user owns: root makes nothing there
    mkdir theirs
    chown 65534 theirs
    SYSTEMTAP_DIR=$PWD/theirs/sd refused_make "" \
        "signing key directory $PWD/theirs/sd is inside $PWD/theirs, which is owned by uid 65534: $verdict"
    [[ -z $(ls -A theirs) ]] || { echo "made inside a directory of uid 65534:"; ls -lR theirs; return 1; }

    # 2. a key directory of another user's, holding their key pair: root neither signs with it nor tells the
    # admin to enroll their certificate; nor a directory writable by group, nor a sticky one everybody writes
    cp -a good user
    chown -R 65534 user
    refused_make "$PWD/user" "signing key directory $PWD/user is owned by uid 65534, not by uid 0: $verdict"
    expect_plain_error "signing key directory $PWD/user is owned by uid 65534, not by uid 0: $verdict" \
        -p4 -r "$KVER" -m signed --sign-module="$PWD/user" -e "$script"
    [[ ! -e signed.ko ]]
    if grep -q '^CONFIG_MODULE_SIG=y' "/lib/modules/$KVER/build/.config"; then
        # unasked (the default key, for a kernel that checks signatures): a warning, the module unsigned
        SYSTEMTAP_DIR=$PWD/user expect_ok -p4 -r "$KVER" -m auto -e "$script"
        grep -qxF "stap: warning: signing key directory $PWD/user is owned by uid 65534, not by uid 0: $verdict" stderr ||
            { cat stderr; return 1; }
        [[ -z $(modinfo -F signer auto.ko) ]]
    fi
    cp -a good shared
    chmod 775 shared
    refused_make "$PWD/shared" "signing key directory $PWD/shared is writable by group or others (mode 0775): $verdict"
    chmod 1777 shared
    expect_plain_error "signing key directory $PWD/shared is writable by group or others (mode 1777): $verdict" \
        -p4 -r "$KVER" -m signed --sign-module="$PWD/shared" -e "$script"

    # 3. a planted symbolic link in a directory of ours to a root-only file: refused, the file unchanged
    # (openssl would write the new private key through it)
    printf 'root only\n' >secret
    chmod 600 secret
    secret_sum=$(sha256sum <secret)
    mkdir linked certlinked
    ln -s "$PWD/secret" linked/signing_key.priv
    refused_make "$PWD/linked" "signing key file $PWD/linked/signing_key.priv is a symbolic link: not using it"
    ln -s "$PWD/secret" certlinked/signing_key.x509
    refused_make "$PWD/certlinked" "signing key directory $PWD/certlinked has signing_key.x509 but no signing_key.priv"
    cp good/signing_key.priv certlinked/
    refused_make "$PWD/certlinked" "signing key file $PWD/certlinked/signing_key.x509 is a symbolic link: not using it"
    [[ $(sha256sum <secret) == "$secret_sum" && $(stat -c %a secret) == 600 ]] || { echo "secret changed"; return 1; }

    # 4. a key of another owner, open to others, with a second name, a FIFO, a certificate of another
    # owner: each refused, for making and for signing (a FIFO is not opened: no wait)
    for d in owner mode links fifo certowner; do cp -a good "$d"; done
    chown 65534 owner/signing_key.priv
    chmod 644 mode/signing_key.priv
    ln links/signing_key.priv links-second-name
    rm fifo/signing_key.priv && mkfifo -m 600 fifo/signing_key.priv
    chown 65534 certowner/signing_key.x509
    refused_make "$PWD/owner" "signing key file $PWD/owner/signing_key.priv is owned by uid 65534, not by uid 0: not using it"
    refused_make "$PWD/mode" "signing key file $PWD/mode/signing_key.priv is open to group or others (mode 0644): not using it (chmod 600 it"
    refused_make "$PWD/links" "signing key file $PWD/links/signing_key.priv has 2 hard links (another name could change it): not using it"
    timeout 20 "$STAP" --make-signing-key="$PWD/fifo" >stdout 2>stderr && return 1
    grep -qxF "stap: error: signing key file $PWD/fifo/signing_key.priv is not a regular file: not using it (move it away and make a new key with stap --make-signing-key)" stderr ||
        { cat stderr; return 1; }
    refused_make "$PWD/certowner" "signing key file $PWD/certowner/signing_key.x509 is owned by uid 65534, not by uid 0: not using it"
    for d in owner mode links fifo certowner; do
        timeout 60 "$STAP" -p4 -r "$KVER" -m signed --sign-module="$PWD/$d" -e "$script" >stdout 2>stderr && return 1
        grep -q "^stap: error: signing key file $PWD/$d/signing_key.[a-z0-9]* " stderr || { cat stderr; return 1; }
        [[ ! -e signed.ko ]]
    done
    cmp good/signing_key.x509 owner/signing_key.x509     # nothing was made again in their place

    # 5. staprun's refusal of a module the kernel does not trust names its signer and key from the module;
    # SYSTEMTAP_DIR and HOME pointing at a directory whose signing_key.x509 is a FIFO are not looked at
    local -a san=()
    [[ $STAP == */asan/* ]] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g "${san[@]}" -I"$TOP/staprun" -I"$TOP/runtime" \
        "$TOP/tests/unit/secureboot-driver.c" "$TOP/staprun/secureboot.c" "$TOP/common/log.c" -o driver || return 1
    mkdir -p env/.systemtap
    mkfifo env/signing_key.x509 env/.systemtap/signing_key.x509
    local rc=0 signer
    signer=$(openssl x509 -inform DER -in good/signing_key.x509 -noout -subject -nameopt multiline | sed -n 's/^ *commonName *= //p')
    SYSTEMTAP_DIR=$PWD/env HOME=$PWD/env timeout 20 ./driver good.ko signed EKEYREJECTED >stdout 2>stderr || rc=$?
    [[ $rc == 0 ]] || { echo "driver exit $rc (124: it waited on the FIFO)"; cat stderr; return 1; }
    [[ $(cat stderr) == "staprun: cannot load module signed: the kernel ("*") does not trust the key that signed good.ko (signer \"$signer\", key $(cert_serial good)): enroll that key's certificate once as a MOK (mokutil --import KEYDIR/signing_key.x509, KEYDIR the stap --sign-module directory of that key; then reboot and confirm in MokManager), or sign it with an enrolled key (stap --sign-module=KEYDIR)" ]] ||
        { echo "message:"; cat stderr; return 1; }
}
