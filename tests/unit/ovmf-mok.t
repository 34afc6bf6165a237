# tests/lib/ovmf-add-mok.py, the offline MOK enrollment of the Secure Boot guest: MokList appended to a copy of
# OVMF's VARS store (read back here: attributes, signature list, certificate), refusals. Used by tests/run.
asan_rerun=0

run() {
    local vars=/usr/share/OVMF/OVMF_VARS_4M.ms.fd tool=$TOP/tests/lib/ovmf-add-mok.py
    if [[ ! -r $vars ]]; then echo "no $vars (package ovmf)"; return 77; fi
    openssl req -new -x509 -nodes -newkey rsa:2048 -subj /CN=mok-test -days 1 -outform DER -out cert.der \
        -keyout key.pem 2>/dev/null
    python3 "$tool" "$vars" out.fd cert.der
    [[ $(stat -c %s out.fd) == $(stat -c %s "$vars") ]]
    # read back: exactly one live MokList, boot-service + non-volatile only, one X.509 list holding the certificate
    python3 - out.fd cert.der <<'PY'
import struct, sys, uuid
d = open(sys.argv[1], "rb").read(); cert = open(sys.argv[2], "rb").read()
store = struct.unpack_from("<H", d, 48)[0]; off = store + 28; found = []
while struct.unpack_from("<H", d, off)[0] == 0x55AA:
    _, state, _, attr = struct.unpack_from("<HBBI", d, off)
    nsize, dsize = struct.unpack_from("<II", d, off + 36)
    guid = uuid.UUID(bytes_le=d[off + 44:off + 60])
    name = d[off + 60:off + 60 + nsize].decode("utf-16-le").rstrip("\0")
    if name == "MokList" and state == 0x3F:
        found.append((attr, guid, d[off + 60 + nsize:off + 60 + nsize + dsize]))
    off = (off + 60 + nsize + dsize + 3) & ~3
assert len(found) == 1, found
attr, guid, data = found[0]
assert attr == 3 and guid == uuid.UUID("605dab50-e046-4300-abb6-3dd810dd8b23"), (attr, guid)
assert uuid.UUID(bytes_le=data[:16]) == uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072")
lsize, hsize, ssize = struct.unpack_from("<III", data, 16)
assert lsize == len(data) == 28 + ssize and hsize == 0 and data[44:] == cert
assert all(b == 0xFF for b in d[off:off + 64])
PY
    # the rest of the file is the template's
    cmp -n 48 "$vars" out.fd
    # a store that has a MokList, and a file that is no VARS store, are refused
    not python3 "$tool" out.fd again.fd cert.der 2>err
    grep -q 'the template has a MokList already' err
    not python3 "$tool" cert.der again.fd cert.der 2>err
    grep -q 'is not an OVMF VARS firmware volume' err
    [[ ! -e again.fd ]]
}
