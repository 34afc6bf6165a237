# tapset vfs.*: read, write, readv, writev, open and their .return with every variable, for a helper's known calls and dd on ext2 on /dev/ram0
# Used by tests/run (issue 15): tapset/linux/vfs.stp, dev.stp (bdevname, MKDEV), dentry.stp (fullpath_struct_file, task_dentry_path), @entry values.

timeout_s=90
btf_rerun=1

build() {
    need_kernel_dwarf
    need_kmod drivers/block/brd
    command -v mkfs.ext2 >/dev/null || { echo "no mkfs.ext2 (e2fsprogs)"; exit 77; }
    gcc -O1 -Wall -o vfsio "$TOP/tests/guest/scripts/io/vfsio.c"
    $STAP -p4 -m t_vfs "$TOP/tests/guest/scripts/io/vfs-vars.stp" >/dev/null
}

guest() {
    modprobe brd rd_nr=1 rd_size=4096
    mkfs.ext2 -q -F /dev/ram0
    mkdir -p /tmp/vfsmnt
    modprobe ext4
    mount -t ext2 /dev/ram0 /tmp/vfsmnt
    dd if=/dev/zero of=/tmp/vfsmnt/data bs=10000 count=1 2>/dev/null
    stat -c '%d %i' /tmp/vfsmnt/data >stat.out
    staprun -c "sh -c '$PWD/vfsio /tmp/vfsmnt/data >$PWD/helper.out; dd if=/tmp/vfsmnt/data of=/dev/null bs=4096 2>/dev/null'" t_vfs.ko >vfs.out
    umount /tmp/vfsmnt
    rmmod brd
}

# The lines vfs-vars.stp must print: helper.out gives vfsio's buffer addresses, stat.out the file's
# st_dev (user encoding: dev = MKDEV(major 1 for brd, minor 0) = 1 << 20) and inode number.
want_vfs() {
    local d ino buf iov wiov dev p
    read -r d ino <stat.out
    read -r _ buf _ iov _ wiov <helper.out
    dev=$(( ((d >> 8) & 0xfff) << 20 | (d & 0xff) | ((d >> 12) & 0xfff00) ))
    [[ $dev == 1048576 ]]
    p() { printf '0x%016x' "$1"; }
    for _ in 1 2 3; do
        echo "open vfsio vfs.open data $dev $ino \"data\""
        echo "open.ret vfsio vfs.open data $ino 0 0 0"
    done
    echo "read vfsio vfs.read 6000 0 $buf $dev $ino 6000, 0, $(p "$buf")"
    echo "read.ret vfsio vfs.read 6000 0 $buf $ino 6000 6000 0 \"\" 6000"
    echo "read vfsio vfs.read 6000 6000 $buf $dev $ino 6000, 6000, $(p "$buf")"
    echo "read.ret vfsio vfs.read 6000 6000 $buf $ino 4000 4000 0 \"\" 4000"
    echo "readv vfsio vfs.readv 600 0 $iov 3 $dev $ino 600, 0, $(p "$iov")"
    echo "readv.ret vfsio vfs.readv 600 0 $iov 3 $ino 600 600 0 \"\""
    echo "write vfsio vfs.write 777 600 $buf $dev $ino 777, 600, $(p "$buf")"
    echo "write.ret vfsio vfs.write 777 600 $buf $ino 777 777 0 \"\" 777"
    echo "writev vfsio vfs.writev 60 1377 $wiov 3 $dev $ino 60, 1377, $(p "$wiov")"
    echo "writev.ret vfsio vfs.writev 60 1377 $wiov 3 $ino 60 60 0 \"\""
    echo "read vfsio vfs.read 10 0 $buf $dev $ino 10, 0, $(p "$buf")"
    echo "read.ret vfsio vfs.read 10 0 $buf $ino -9 0 -9 \"EBADF\" -9 (EBADF)"
    echo "write vfsio vfs.write 10 0 $buf $dev $ino 10, 0, $(p "$buf")"
    echo "write.ret vfsio vfs.write 10 0 $buf $ino -9 0 -9 \"EBADF\" -9 (EBADF)"
}

check() {
    [[ $(cat rc) == 0 ]]
    want_vfs >want.out
    grep "^[a-z.]* vfsio " vfs.out >got.out
    diff want.out got.out
    # dd's 4096-byte reads of the 10000-byte file: 4096, 4096, 1808, then 0 at the end
    local ino
    read -r _ ino <stat.out
    grep -q "^open dd vfs.open data 1048576 $ino \"data\"$" vfs.out
    [[ $(grep '^read.ret dd ' vfs.out | awk '{print $4, $5, $8, $9, $10}' | tr '\n' ' ') == \
        "4096 0 4096 4096 0 4096 4096 4096 4096 0 4096 8192 1808 1808 0 4096 10000 0 0 0 " ]]
    [[ $(grep -c "^read.ret dd vfs.read 4096 [0-9]* [0-9]* $ino " vfs.out) == 4 ]]
    # 4 opens, 3 reads by vfsio (with the inode's name): all /tmp/vfsmnt/data, across the ram0 mount
    [[ $(grep '^path ' vfs.out | sort) == "path /tmp/vfsmnt/data 4"$'\n'"path /tmp/vfsmnt/data data 3" ]]
    [[ $(grep '^d_path ' vfs.out) == "d_path /tmp/vfsmnt/data 3" ]]
}
