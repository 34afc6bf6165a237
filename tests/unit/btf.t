# The BTF reader (translator/btf/) against the kernel's DWARF: vfs_read's prototype as stap -L shows it (from DWARF, and from BTF), struct file's member offsets as pahole reads them from DWARF, the .BTF found in /boot/vmlinuz the same as vmlinux's, its build id vmlinux's, and the C of BTF-typed accesses the same as the DWARF-typed one
# Used by tests/run (issue 21). Driver tests/unit/btf-driver.c.

run() {
    need_kernel_dwarf
    local vmlinux=/usr/lib/debug/boot/vmlinux-$KVER off size
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -iquote "$TOP/translator" \
        "$TOP/tests/unit/btf-driver.c" "$TOP/translator/btf/reader.c" "$TOP/translator/util.c" -o driver
    # the .BTF section of the DWARF vmlinux, cut out by its offset and size
    read -r off size < <(readelf -SW "$vmlinux" | awk '{ for (i = 1; i < NF; i++) if ($i == ".BTF") print $(i + 3), $(i + 4) }')
    dd if="$vmlinux" of=vmlinux.btf bs=1M iflag=skip_bytes,count_bytes skip=$((0x$off)) count=$((0x$size)) status=none
    ./driver vmlinux.btf vfs_read file f_pos f_inode f_flags f_path >driver.out
    cat driver.out
    # the prototype: what stap -L reads from DWARF (its $ret is a local, which BTF does not have)
    $STAP -r "$KVER" -L 'kernel.function("vfs_read")' >dwarf-l.out
    local params
    params=$(head -1 driver.out | sed 's/^kernel.function("vfs_read") //; s/ -> .*//')
    grep -qF " $params " dwarf-l.out || { echo "BTF: $params"; cat dwarf-l.out; return 1; }
    # the members: pahole's offsets and sizes from DWARF
    pahole -F dwarf -C file "$vmlinux" >pahole.out
    local m want
    for m in f_pos f_inode f_flags f_path; do
        want=$(awk -v m="$m;" 'NF > 4 && $(NF - 4) == m { print $(NF - 2), $(NF - 1) }' pahole.out)
        [[ -n $want ]] || { echo "pahole has no $m"; cat pahole.out; return 1; }
        grep -qx "$m $want" driver.out || { echo "$m: pahole says $want"; return 1; }
    done
    # with DWARF hidden, stap reads the BTF of /boot/vmlinuz (decompressed, cached): the same bytes
    mkdir -p nodbg sysdir
    local script='probe kernel.function("vfs_read") { printf("%d %d %d %d\n", $count, $file->f_pos, $file->f_path->dentry->d_name->len, $buf[2]) }
probe kernel.function("vfs_read").return { printf("%d %d %d %d %s|%s\n", $return, $count, $file->f_inode->i_ino, @entry($count), $$return, $$parms) }'
    SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg $STAP -r "$KVER" -p3 -e "$script" >btf.c
    local blob
    blob=$(ls sysdir/cache/btf/* | grep -v '\.id$')
    # -L from BTF: the parameters, as the driver read them
    [[ $(SYSTEMTAP_DIR=$PWD/sysdir STAP_DEBUGINFO_PATH=$PWD/nodbg $STAP -r "$KVER" -L 'kernel.function("vfs_read")') == \
       "kernel.function(\"vfs_read\") $params" ]] || { echo "-L from BTF differs"; return 1; }
    cmp vmlinux.btf "$blob" || { echo "the BTF of /boot/vmlinuz-$KVER differs from vmlinux's"; return 1; }
    # and the build id found next to it is vmlinux's
    [[ $(cat "$blob.id") == $(readelf -n "$vmlinux" | awk '/Build ID:/ { print $3; exit }') ]] ||
        { echo "build id $(cat "$blob.id") is not vmlinux's"; return 1; }
    # the C of the accesses typed from BTF is the DWARF-typed one, the kernel's build id included
    # (but for the points' file:line)
    $STAP -r "$KVER" -p3 -e "$script" >dwarf.c
    grep -q stap_kernel_build_id btf.c
    local drop='/^\/\* probe |\.pp = /d'
    diff <(sed -E "$drop" dwarf.c) <(sed -E "$drop" btf.c) || { echo "generated C differs"; return 1; }
    echo "generated C: $(wc -l <btf.c) lines, same from BTF and DWARF"
}
