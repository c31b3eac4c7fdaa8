#!/bin/sh
# A corpus of real documents in many languages, from what this machine has:
# man pages (English, and /usr/share/man/LANG as installed by manpages-de,
# manpages-fr, manpages-ru, manpages-ja, manpages-zh), Debian documentation
# (/usr/share/doc: README files), Chinese fortunes (fortunes-zh) and Go
# source ($(go env GOROOT)/src), and with LANGS naming "mod" the Go module
# cache's .go and .md files, modules in several versions side by side
# ($(go env GOMODCACHE)). It installs nothing; a source that is not
# there is left out, and said so on standard error with the count of each
# language written.
#
# Writes TSV documents, "id TAB text" (TAB, LF, CR and backslash escaped as
# shingle reads them), on standard output. The id starts with a language
# tag to filter on: en/ de/ fr/ ru/ ja/ zh/ go/, then the source and the
# file, e.g. "zh/fortune/chinese:17", "de/man/ls.1", "go/src/net/http/server.go".
#
#   examples/corpus-multilingual.sh [N] > corpus.tsv     # at most N a language (default 1000)
#   LANGS="zh ja" examples/corpus-multilingual.sh 200 | grep '^zh/'
#
# Which N documents of a language are taken is fixed (ordered by the MD5 of
# their ids), not the first N of a directory. Man pages are rendered by a
# crude troff strip (requests dropped, the text of font and section macros
# kept, escapes removed); pages that only include another (.so) and texts of
# fewer than 20 bytes are left out.
set -eu
N=${1:-1000}
LANGS=${LANGS:-"en de fr ru ja zh go"}
GOROOT_SRC=${GOROOT_SRC:-$(go env GOROOT 2>/dev/null)/src}
GOMODCACHE=${GOMODCACHE:-$(go env GOMODCACHE 2>/dev/null)}
MAN=${MAN:-/usr/share/man}
FORTUNES=${FORTUNES:-/usr/share/games/fortunes}
DOC=${DOC:-/usr/share/doc}

# Lists "lang TAB kind TAB path" of every candidate file.
list() {
	for lang in $LANGS; do
		case $lang in
		en)
			find "$MAN"/man[1-8] -type f 2>/dev/null | sed "s|^|en\tman\t|"
			find "$DOC" -maxdepth 2 -type f -name 'README*' 2>/dev/null | sed "s|^|en\tdoc\t|"
			;;
		zh)
			find "$MAN"/zh_CN -type f 2>/dev/null | sed "s|^|zh\tman\t|"
			for f in chinese tang300 song100; do
				[ -f "$FORTUNES/$f.u8" ] && printf 'zh\tfortune\t%s\n' "$FORTUNES/$f.u8"
			done
			;;
		go)
			[ -d "$GOROOT_SRC" ] && find "$GOROOT_SRC" -type f -name '*.go' | sed "s|^|go\tsrc\t|"
			;;
		mod)
			[ -d "$GOMODCACHE" ] && find "$GOMODCACHE" -path "$GOMODCACHE/cache" -prune -o -type f \( -name '*.go' -o -name '*.md' \) -size -1000k -print | sed "s|^|mod\tmod\t|"
			;;
		*)
			find "$MAN/$lang" -type f 2>/dev/null | sed "s|^|$lang\tman\t|"
			;;
		esac
	done
	return 0
}

list | LANGS=$LANGS N=$N GOROOT_SRC=$GOROOT_SRC GOMODCACHE=$GOMODCACHE perl -e '
use strict; use warnings; use Digest::MD5 qw(md5_hex); use IO::Uncompress::Gunzip qw(gunzip);
my $n = $ENV{N}; my $gosrc = $ENV{GOROOT_SRC}; my $modcache = $ENV{GOMODCACHE};
my (%docs, %seen);
sub slurp { my ($p) = @_; my $fh;
	if ($p =~ /\.gz$/) { my $t; gunzip($p => \$t) or return undef; return $t }
	else { open($fh, "<", $p) or return undef }
	local $/; my $t = <$fh>; close $fh; return $t }
sub troff { my ($t) = @_; my @out;
	for my $l (split /\n/, $t) {
		next if $l =~ /^[.\x27]\s*\\"/;
		if ($l =~ /^[.\x27]\s*([A-Za-z]+)\s*(.*)$/) {
			my ($m, $a) = ($1, $2);
			next unless $m =~ /^(B|I|SM|SB|BR|BI|IB|IR|RB|RI|SH|SS|TP|IP|HP|Nm|Nd|Ar|Fl|Op|Xr|Sh|Pa|Dq|Sq|Em)$/;
			$a =~ s/"//g; $l = $a;
		} elsif ($l =~ /^[.\x27]/) { next }
		$l =~ s/\\f(\[[^\]]*\]|\(..|.)//g; $l =~ s/\\s[-+]?\d//g;
		$l =~ s/\\\*(\[[^\]]*\]|\(..|.)//g; $l =~ s/\\\((..)/ /g; $l =~ s/\\\[[^\]]*\]/ /g;
		$l =~ s/\\[-e]/-/g; $l =~ s/\\[&%|^:c]//g; $l =~ s/\\(.)/$1/g;
		push @out, $l }
	return join("\n", @out) }
sub add { my ($lang, $id, $text) = @_;
	return if length($text) < 20;
	push @{$docs{$lang}}, [$id, $text] }
my %cand;
while (my $line = <STDIN>) {
	chomp $line; my ($lang, $kind, $p) = split /\t/, $line, 3;
	push @{$cand{$lang}}, [$kind, $p] }
for my $lang (keys %cand) {
	# Fortune files first (each holds many documents), then the files in
	# the order of the MD5 of their paths, until 4N documents are read.
	my @c = sort { ($a->[0] ne "fortune") <=> ($b->[0] ne "fortune") or md5_hex($a->[1]) cmp md5_hex($b->[1]) } @{$cand{$lang}};
	for my $c (@c) {
		my ($kind, $p) = @$c;
		last if $kind ne "fortune" && $docs{$lang} && @{$docs{$lang}} >= 4 * $n;
		my $t = slurp($p); next unless defined $t;
		if ($kind eq "fortune") {
			(my $base = $p) =~ s|.*/||; $base =~ s/\.u8$//;
			$t =~ s/\e\[[0-9;]*m//g; my $i = 0;
			for my $f (split /^%\n/m, $t) { $i++; $f =~ s/\s+$//; add($lang, "$lang/fortune/$base:$i", $f) }
			next }
		if ($kind eq "man") {
			next if $t =~ /^\.so\s/m && length($t) < 200;
			(my $base = $p) =~ s|.*/||; $base =~ s/\.gz$//;
			next if $seen{"$lang/$base"}++;
			add($lang, "$lang/man/$base", troff($t)); next }
		if ($kind eq "doc") { (my $rel = $p) =~ s|.*/doc/||; $rel =~ s/\.gz$//; add($lang, "$lang/doc/$rel", $t); next }
		if ($kind eq "mod") { (my $rel = $p) =~ s|^\Q$modcache\E/||; add($lang, "mod/$rel", $t); next }
		(my $rel = $p) =~ s|^\Q$gosrc\E/||; add($lang, "$lang/src/$rel", $t);
	}
}
for my $lang (split " ", $ENV{LANGS}) {
	unless ($docs{$lang}) { print STDERR "corpus-multilingual: $lang: no documents here (its packages are not installed?)\n"; next }
	my @d = sort { md5_hex($a->[0]) cmp md5_hex($b->[0]) } @{$docs{$lang}};
	splice(@d, $n) if @d > $n;
	for my $d (sort { $a->[0] cmp $b->[0] } @d) {
		my ($id, $t) = @$d;
		for ($id, $t) { s/\\/\\\\/g; s/\t/\\t/g; s/\n/\\n/g; s/\r/\\r/g }
		print "$id\t$t\n" }
	printf STDERR "corpus-multilingual: %s: %d documents (of %d read)\n", $lang, scalar(@d), scalar(@{$docs{$lang}});
}
'
