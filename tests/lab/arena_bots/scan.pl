#!/usr/bin/perl
# A Perl bot for the arena's tests: fires in reading order (the honest yardstick of test_arena_attacks.py).
use strict;
use warnings;
$| = 1;
my ($cols, $shots) = (10, 0);
while (my $line = <STDIN>) {
    my @words = split ' ', $line;
    next unless @words;
    if ($words[0] eq 'board') {
        $cols = $words[2];
    } elsif ($words[0] eq 'isready') {
        print "name perl\nreadyok\n";
    } elsif ($words[0] eq 'newgame') {
        $shots = 0;
    } elsif ($words[0] eq 'shoot') {
        print chr(ord('A') + int($shots / $cols)), $shots % $cols + 1, "\n";
        $shots++;
    } elsif ($words[0] eq 'quit') {
        last;
    }
}
