#!/usr/bin/env bash
# make-corpus.sh - writes the fuzzer's seed corpus: every script text found in the tests and examples, one file each.
# Used by tests/fuzz/run.sh (make fuzz) and tests/unit/fuzz-smoke.t: tests/fuzz/make-corpus.sh [OUTDIR] (default build/fuzz/corpus).
#
# Sources: whole files examples/*.stp, tests/guest/scripts/*.stp, tests/parse/**/*.stp (if present) and
# tests/fuzz/regressions/*; from tests/unit/*.t and tests/guest/*.t, the bodies of here-documents, the
# '...' argument of each `-e`, printf '...' texts (escapes expanded) and "..." strings that look like
# scripts. The extraction is a heuristic: a seed that is not quite a script is still a fine seed.
# Files are named by the SHA-1 of their content, so duplicates collapse. OUTDIR is emptied first.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$TOP/build/fuzz/corpus}

rm -rf "$OUT"
mkdir -p "$OUT"

# add FILE...: copies whole files into the corpus; not those over 4096 bytes (the fuzzer's -max_len),
# such as the large hang inputs of tests/fuzz/regressions/: they would only slow the first runs.
add() {
    local f
    for f in "$@"; do
        [[ -f $f ]] || continue
        (( $(stat -c %s "$f") <= 4096 )) || continue
        cp "$f" "$OUT/$(sha1sum <"$f" | cut -c1-40)"
    done
}

shopt -s nullglob globstar
add "$TOP"/examples/*.stp "$TOP"/tests/guest/scripts/*.stp "$TOP"/tests/parse/**/*.stp
for f in "$TOP"/tests/fuzz/regressions/*; do
    [[ $(basename "$f") == README* ]] || add "$f"
done

# the script texts inside the test cases
perl -e '
use strict; use warnings; use Digest::SHA qw(sha1_hex);
my $out = shift @ARGV;
my %seen;
sub emit {
    my ($t) = @_;
    return if $t !~ /\S/;
    my $h = sha1_hex($t);
    return if $seen{$h}++;
    open(my $fh, ">", "$out/$h") or die "$out/$h: $!";
    print $fh $t;
    close $fh;
}
sub printf_unescape {   # what printf(1) does to its format: \n \t \\ \NNN, and %% -> %
    my ($s) = @_;
    $s =~ s/\\([0-7]{1,3})|\\(.)|%%/
        defined $1 ? chr(oct $1) :
        defined $2 ? ({ n => "\n", t => "\t", r => "\r", "\\" => "\\", a => "\a", v => "\013", f => "\f" }->{$2} \/\/ "\\$2") : "%"/ge;
    return $s;
}
sub bash_dq_unescape { my ($s) = @_; $s =~ s/\\([\\"\$`])/$1/g; return $s; }
my $script = qr/\b(?:probe|function|global)\b/;
for my $file (@ARGV) {
    open(my $fh, "<", $file) or die "$file: $!";
    my @lines = <$fh>;
    close $fh;
    # here-documents: <<WORD, <<-WORD, <<'"'"'WORD'"'"', <<"WORD" up to the line WORD; the rest is scanned below
    my $text = "";
    for (my $i = 0; $i < @lines; $i++) {
        $text .= $lines[$i];
        next unless $lines[$i] =~ /<<(-?)\s*(["'"'"']?)([A-Za-z_][A-Za-z_0-9]*)\2/;
        my ($strip, $word) = ($1, $3);
        my $body = "";
        for ($i++; $i < @lines; $i++) {
            my $l = $lines[$i];
            $l =~ s/^\t+// if $strip;
            last if $l =~ /^\Q$word\E\s*$/;
            $body .= $l;
        }
        emit($body);
    }
    # bash words: comments skipped, quoted strings in order, so quotes inside quotes do not mislead
    pos($text) = 0;
    while (pos($text) < length $text) {
        if ($text =~ /\G(?:(?<=\s)|^)#[^\n]*/gcm) {
        } elsif ($text =~ /\G\x27([^\x27]*)\x27/gc) {
            # single-quoted: after printf its escapes are expanded, otherwise taken as it is
            my $s = $1;
            my $before = substr($text, 0, $-[0]);
            next unless $s =~ $script;
            emit($before =~ /printf\s+$/ ? printf_unescape($s) : $s);
        } elsif ($text =~ /\G"((?:[^"\\]|\\.)*)"/gcs) {
            # double-quoted: e.g. the "name|script|expected" case tables; keep the script fields
            my $s = bash_dq_unescape($1);
            next unless $s =~ $script;
            my @parts = grep { $_ =~ $script } split /\|/, $s;
            emit($_) for (@parts ? @parts : ($s));
        } elsif ($text =~ /\G\\./gcs) {
        } else {
            $text =~ /\G./gcs;
        }
    }
}
' "$OUT" "$TOP"/tests/unit/*.t "$TOP"/tests/guest/*.t

echo "make-corpus: $(find "$OUT" -type f | wc -l) seed files in $OUT"
