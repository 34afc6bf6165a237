# lib.sh - shell helpers shared by the bench part scripts (bench/run, pass2.sh, startup.sh, transport.sh).
# Sourced by bench/run and its part scripts, which may set PART (their name in messages) first.

die() { echo "bench${PART:+ $PART}: $*" >&2; exit 1; }
say() { echo "bench${PART:+ $PART}: $*" >&2; }

# median: the median of the numbers on stdin, one per line ("-" when there are none).
median() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        print m }'
}
