# module-edit.sh - bash helpers that edit a built module file in place of a new build: its vermagic, any string.
# Sourced by tests/unit/staprun-checks.t and tests/guest/staprun-safety.t (staprun's refusals).

# set_vermagic IN OUT RELEASE: IN with the first word of its vermagic replaced by RELEASE
# (the string keeps its length: the rest is cut or padded with spaces).
set_vermagic() {
    perl -e '
        my ($in, $out, $rel) = @ARGV;
        open(my $f, "<:raw", $in) or die "$in: $!"; local $/; my $d = <$f>;
        $d =~ /vermagic=([^\0]*)\0/ or die "no vermagic in $in";
        my ($at, $old) = ($-[1], $1);
        length($rel) < length($old) or die "release too long";
        my $new = substr($rel . " " . (split(/ /, $old, 2))[1] . (" " x length($old)), 0, length($old));
        substr($d, $at, length($old)) = $new;
        open(my $o, ">:raw", $out) or die "$out: $!"; print $o $d;' "$@"
}

# replace_string IN OUT FROM TO: IN with its first FROM replaced by TO (of the same length).
replace_string() {
    perl -e '
        my ($in, $out, $from, $to) = @ARGV;
        length($from) == length($to) or die "not the same length";
        open(my $f, "<:raw", $in) or die "$in: $!"; local $/; my $d = <$f>;
        my $at = index($d, $from); $at >= 0 or die "no $from in $in";
        substr($d, $at, length($from)) = $to;
        open(my $o, ">:raw", $out) or die "$out: $!"; print $o $d;' "$@"
}
