# stapio's output files on the host (stapio/outfile.c via tests/unit/outfile-driver.c): -o strftime names, -S
# rotation and limits, requested switches, bulk per-CPU files merged back by stap-merge. Used by tests/run.

# drive ARGS... <COMMANDS: runs the driver; its stderr in drive.err.
drive() { ./driver "$@" 2>drive.err; }

# lines FILE...: the seq numbers of the records in FILEs, in order; fails on a torn record.
lines() {
    cat "$@" | perl -ne 'die "torn record: $_" unless /^seq (\d+) cpu \d+ \.*\n\z/; print "$1\n"'
}

# refused WHAT MESSAGE ARGS...: the driver exits 1 with MESSAGE (fixed string) on stderr.
refused() {
    local what=$1 msg=$2 rc=0
    shift 2
    ./driver "$@" </dev/null >/dev/null 2>refused.err || rc=$?
    if (( rc != 1 )) || ! grep -qF -- "$msg" refused.err; then
        echo "$what: expected status 1 and \"$msg\", got $rc:"
        cat refused.err
        return 1
    fi
}

# output_links: an output name that is already taken: a symbolic link (to a file, dangling), a hard
# link, another user's file, or any existing name in a sticky directory everybody may write to, is
# refused with the victim unchanged (-o, FILE.N of -S, bulk FILE_cpuN); the caller's own file with
# one link is emptied and written; /dev/null is written.
output_links() {
    mkdir -p links sticky
    echo precious >links/victim
    local sum
    sum=$(sha256sum links/victim)
    ln -s victim links/sym
    ln -s nothing-there links/dangling
    ln links/victim links/hard
    refused "symlink" "not writing links/sym: it is a symbolic link" -o links/sym
    refused "dangling symlink" "not writing links/dangling: it is a symbolic link" -o links/dangling
    [[ ! -e links/nothing-there ]]
    refused "hard link" "not writing links/hard: it exists with 2 hard links: not emptying a file that has other names" -o links/hard
    ln -s victim links/r.0
    refused "-S symlink" "not writing links/r.0: it is a symbolic link" -o links/r -S 1
    ln -s victim links/b_cpu1
    refused "bulk symlink" "not writing links/b_cpu1: it is a symbolic link" -b -o links/b 0 1
    [[ $(sha256sum links/victim) == "$sum" && $(stat -c %h links/victim) == 2 ]]
    echo mine >links/own
    printf 'w 0 20\n' | drive -o links/own
    [[ $(lines links/own) == 1 ]]
    printf 'w 0 20\n' | drive -o /dev/null
    if (( EUID == 0 )) && command -v setpriv >/dev/null; then
        # root: another user's file (not emptied), and that user's links in a sticky shared directory
        chmod 1777 sticky
        echo theirs >links/theirs
        chown 65534 links/theirs
        refused "foreign file" "not writing links/theirs: it exists and belongs to uid 65534: not emptying another user's file" -o links/theirs
        [[ $(cat links/theirs) == theirs ]]
        setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$PWD/links/victim" sticky/out
        refused "sticky symlink" "not writing sticky/out: it exists, in a directory everybody may write to (sticky): only new files are written there" -o sticky/out
        setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'echo theirs >sticky/theirs'
        refused "sticky file" "not writing sticky/theirs: it exists, in a directory everybody may write to" -o sticky/theirs
        [[ $(cat sticky/theirs) == theirs && $(sha256sum links/victim) == "$sum" ]]
        # a new name there is fine
        printf 'w 0 20\n' | drive -o sticky/new
        [[ $(lines sticky/new) == 1 ]]
    fi
}

run() {
    local -a san=()
    [[ $STAP == */asan/* ]] && san=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g "${san[@]}" -iquote "$TOP/stapio" \
        -I "$TOP/runtime/transport" "$TOP/tests/unit/outfile-driver.c" "$TOP/stapio/outfile.c" "$TOP/stapio/jsonstr.c" "$TOP/common/outopen.c" \
        "$TOP/stapio/output.c" "$TOP/common/log.c" -o driver
    local merge f n
    merge=$(dirname "$STAP")/stap-merge

    # stdout, and -o FILE: payloads only, in the order given; a record larger than the buffer
    printf 'w 0 20 3\nw 1 65536\nw 0 30\n' | drive >stdout.out
    [[ $(lines stdout.out | tr '\n' ' ') == "1 2 3 4 5 " ]]
    printf 'w 0 20 3\nf\nw 1 65536\n' | drive -o plain.out >plain.stdout
    test ! -s plain.stdout
    [[ $(lines plain.out | wc -l) == 4 ]]
    [[ $(stat -c %s plain.out) == $((60 + 65536)) ]]
    # a switch on stdout is a no-op
    printf 'w 0 20\ns\nw 0 20\n' | drive >sw-stdout.out
    [[ $(lines sw-stdout.out | wc -l) == 2 ]]

    # strftime: the name is expanded when the file is opened
    local before after
    before=$(date +%Y%m%d)
    printf 'w 0 20\n' | drive -o 'day-%Y%m%d-%%.out'
    after=$(date +%Y%m%d)
    test -s "day-$before-%.out" || test -s "day-$after-%.out"

    # -S 1,3 with ~5 MB: FILE.0 .. FILE.K, each at most 1 MiB, only the newest 3 remain, no record
    # split, the last one ends with the last record
    mkdir rot
    printf 'w 0 1000 5000\n' | drive -o rot/t.out -S 1,3
    ls rot >rot.ls
    [[ $(cat rot.ls | tr '\n' ' ') == "t.out.2 t.out.3 t.out.4 " ]]
    for f in rot/*; do (( $(stat -c %s "$f") <= 1048576 )); done
    [[ $(stat -c %s rot/t.out.3) == 1048000 ]]     # 1048 whole records of 1000 bytes
    [[ $(lines rot/t.out.2 rot/t.out.3 rot/t.out.4 | tail -n 1) == 5000 ]]
    diff <(lines rot/t.out.2 rot/t.out.3 rot/t.out.4) <(seq $((5000 - $(cat rot/* | wc -l) + 1)) 5000)
    # -S 1 without N keeps every file; their concatenation is the whole output
    mkdir all
    printf 'w 0 1000 2500\n' | drive -o all/t.out -S 1
    [[ $(ls all | tr '\n' ' ') == "t.out.0 t.out.1 t.out.2 " ]]
    diff <(lines all/t.out.0 all/t.out.1 all/t.out.2) <(seq 2500)
    # records are never split: 16 records of 64 KiB fill 1 MiB exactly, the 17th opens the next file
    mkdir big
    printf 'w 0 65536 17\n' | drive -o big/b -S 1
    [[ $(stat -c %s big/b.0) == 1048576 && $(stat -c %s big/b.1) == 65536 ]]
    # self-describing files (-H text, -J JSON) keep room for their trailer as long as the trailer
    # they will get: under a long directory a full file falls short of 1 MiB by less than a record
    # and the trailer's unused digits, never by the path's length several times over
    local long=d/$(printf 'x%.0s' {1..120})/$(printf 'y%.0s' {1..120}) form f size
    for form in H J; do
        mkdir -p "$long$form"
        printf 'w 0 100 25000\n' | drive -$form -o "$long$form/t.out" -S 1
        for f in "$long$form"/t.out.0 "$long$form"/t.out.1; do
            size=$(stat -c %s "$f")
            (( size <= 1048576 && size > 1048576 - 100 - 60 )) || { echo "$f: $size bytes"; false; }
        done
        tail -n 1 "$long$form/t.out.0" | grep -q '"type":"end"\|^# end: file: '
    done

    # requested switches (SIGUSR2): without -S, FILE then FILE.1, FILE.2; with -S, the next number
    mkdir sw
    printf 'w 0 20 2\ns\nw 0 20\nf\ns\nf\nw 0 20\n' | drive -o sw/out
    [[ $(ls sw | tr '\n' ' ') == "out out.1 out.2 " ]]
    [[ $(lines sw/out | tr '\n' ' ') == "1 2 " && $(lines sw/out.1) == 3 && $(lines sw/out.2) == 4 ]]
    mkdir sws
    printf 'w 0 20\ns\nw 0 20\n' | drive -o sws/out -S 5,1
    [[ $(ls sws | tr '\n' ' ') == "out.1 " && $(lines sws/out.1) == 2 ]]

    # bulk mode: a file per trace file at once (stpd_cpuN without -o, even for a CPU that writes
    # nothing), a CPU not announced gets its file on its first record; records keep their headers
    # and stap-merge restores the merged output byte for byte (stderr records are not in them)
    mkdir bulk
    (cd bulk && printf 'w 0 30\nw 1 40\ne 0 10\nw 2 50 3\nw 1 65536\nw 0 20\n' | ../driver -b 0 1 3)
    [[ $(cd bulk && ls | tr '\n' ' ') == "stpd_cpu0 stpd_cpu1 stpd_cpu2 stpd_cpu3 " ]]
    test ! -s bulk/stpd_cpu3
    [[ $(stat -c %s bulk/stpd_cpu1) == $((16 + 40 + 16 + 65536)) ]]
    (cd bulk && "$merge") >bulk.merged
    [[ $(lines bulk.merged | tr '\n' ' ') == "1 2 4 5 6 7 8 " ]]
    # with -o and -S: FILE_cpuN.K, each CPU rotating on its own
    mkdir bulkrot
    printf 'w 0 1000 1500\nw 1 1000 10\nw 0 1000 10\ns\nw 1 1000\n' |
        drive -b -o bulkrot/trace-%Y -S 1 0 1
    n=$(date +%Y)
    ls bulkrot >bulkrot.ls
    [[ $(tr '\n' ' ' <bulkrot.ls) == "trace-${n}_cpu0.0 trace-${n}_cpu0.1 trace-${n}_cpu0.2 trace-${n}_cpu1.0 trace-${n}_cpu1.1 " ]]
    "$merge" bulkrot/* >bulkrot.merged
    diff <(lines bulkrot.merged) <(seq 1521)
    "$merge" bulkrot/*_cpu0.* | lines | tail -n 1 | grep -qx 1520

    # errors: bad -S values, -S without -o, names that expand to nothing or too much, a file that
    # cannot be opened or written
    refused "-S 0" "-S 0: SIZE_MB must be a whole number of megabytes, at least 1" -o x -S 0
    refused "-S abc" "-S abc: SIZE_MB must be" -o x -S abc
    refused "-S 1,0" "-S 1,0: N (files to keep) must be a whole number from 1 to" -o x -S 1,0
    refused "-S 1,x" "-S 1,x: N (files to keep)" -o x -S 1,x
    refused "-S 1,2," "-S 1,2,: N (files to keep)" -o x -S 1,2,
    refused "-S without -o" "-S needs -o FILE" -S 1
    refused "empty name" "-o : the pattern expands to an empty or too long file name" -o ''
    refused "long name" "the pattern expands to an empty or too long file name" -o "$(printf '%%Y%.0s' $(seq 2100))"
    refused "no directory" "cannot open no/such/dir: No such file or directory" -o no/such/dir
    refused "bulk no directory" "cannot open no/such_cpu0: No such file or directory" -b -o no/such 0
    output_links

    runs

    local rc=0
    printf 'w 0 20 5000\n' | drive -o /dev/full || rc=$?
    (( rc == 1 ))
    grep -qx 'stapio: writing /dev/full: No space left on device' drive.err

    full_disk
}

# runs: records given as runs (outfile_write_run, what stapio does with a burst read from one trace
# file) make the same files as the same records one by one: to stdout, into one file, rotated by -S
# (a record that does not fit, a file to open with its header), with a switch between runs
runs() {
    local cmds args form
    for args in "" "-o f" "-H -o f" "-J -o f" "-o f -S 1,3" "-H -o f -S 1" "-J -o f -S 1,2"; do
        for form in w W; do
            mkdir -p "runs-$form" && rm -rf "runs-$form"/*
            cmds="$form 0 20 3\n$form 0 1000 3000\n$form 0 65536 2\ns\n$form 0 100 20000\nf\n$form 0 30 1\n"
            # shellcheck disable=SC2086
            (cd "runs-$form" && printf "$cmds" | ../driver $args >stdout.out 2>err)
        done
        # the headers name the file, the same in both
        diff -r runs-w runs-W || { echo "runs differ from records one by one with '$args'"; return 1; }
    done
    [[ $(ls runs-W | wc -l) -gt 3 ]]
}

# full_disk: a full file system (a tmpfs of 64 KiB, mounted in a user namespace of our own)
full_disk() {
    unshare -rm true 2>/dev/null || { echo "no user namespaces: full-disk cases skipped"; return 0; }
    mkdir -p full
    # merged output: 32 KiB left, 1000 records of 100 bytes, then 32 KiB freed and 100 more
    printf 'w 0 100 1000\nf\nr full/filler\nw 0 100 100\n' >full.cmds
    unshare -rm sh -c 'mount -t tmpfs -o size=64k t full &&
        head -c 32768 /dev/zero >full/filler && ./driver -o full/t.out <full.cmds 2>full.err; echo $? >full.rc
        cp full/t.out full.out'
    [[ $(cat full.rc) == 0 ]] || { cat full.err; return 1; }
    # whole records, then where writing resumed the line saying how many were not
    local written dropped
    written=$(grep -v '^# lost: ' full.out | lines | wc -l)
    dropped=$(sed -n 's/^# lost: \([0-9]*\) records ([0-9]* bytes) not written: No space left on device$/\1/p' full.out |
        paste -sd+ | bc)
    (( written > 100 && dropped > 0 && written + dropped == 1100 )) ||
        { echo "written $written + dropped $dropped != 1100"; return 1; }
    # the last 100 all written, after the line
    [[ $(tail -n 100 full.out | lines | tr '\n' ' ') == "$(seq -s ' ' 1001 1100) " ]]
    grep -q "^stapio: WARNING: writing full/t.out: No space left on device: records are dropped" full.err
    [[ $(sed -n 's/^stapio: writing full\/t.out again: \([0-9]*\) records .*/\1/p' full.err | paste -sd+ | bc) == "$dropped" ]]
    grep -qx "stapio: WARNING: $dropped records ($((dropped * 100)) bytes) not written: the file system was full" full.err
    # the same records as runs: the same whole records written, the same dropped
    printf 'W 0 100 1000\nf\nr full/filler\nW 0 100 100\n' >full-runs.cmds
    unshare -rm sh -c 'mount -t tmpfs -o size=64k t full &&
        head -c 32768 /dev/zero >full/filler && ./driver -o full/t.out <full-runs.cmds 2>full-runs.err
        cp full/t.out full-runs.out'
    cmp full.out full-runs.out

    # -S 1,5: room made by removing the oldest file kept (4 files of 20 KiB in 64 KiB)
    printf 'w 0 100 200\ns\nw 0 100 200\ns\nw 0 100 200\ns\nw 0 100 200\n' >rot.cmds
    unshare -rm sh -c 'mount -t tmpfs -o size=64k t full && ./driver -o full/r -S 1,5 <rot.cmds 2>rot.err
        echo $? >rot.rc; ls full >rot.ls; cat full/r.* >rot.out'
    [[ $(cat rot.rc) == 0 ]] || { cat rot.err; return 1; }
    [[ $(tr '\n' ' ' <rot.ls) == "r.1 r.2 r.3 " ]]
    grep -qx 'stapio: the file system is full: removed full/r.0, the oldest file kept' rot.err
    [[ $(lines rot.out | tr '\n' ' ') == "$(seq -s ' ' 201 800) " ]]
    not grep -q 'not written' rot.err
}
