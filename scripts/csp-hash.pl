#!/usr/bin/env perl
# Trunk post-build hook: allows the page's inline scripts (trunk's wasm
# loader) by their SHA-256 hash instead of 'unsafe-inline', and closes
# object-src and base-uri. Edits $TRUNK_STAGING_DIR/index.html in place.
# Perl and its core modules only (Digest::SHA, MIME::Base64), so a fresh
# machine needs nothing more. CSP hashes are of the exact text between
# <script> and </script> (CSP Level 3, "script-src" hash-source).
use strict;
use warnings;
use Digest::SHA qw(sha256);
use MIME::Base64 qw(encode_base64);

my $dir = $ENV{TRUNK_STAGING_DIR} // $ARGV[0] // die "no TRUNK_STAGING_DIR\n";
my $file = "$dir/index.html";
open(my $in, '<:raw', $file) or die "cannot read $file: $!\n";
my $html = do { local $/; <$in> };
close $in;

my @hashes;
while ($html =~ m{<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>}gs) {
    push @hashes, "'sha256-" . encode_base64(sha256($1), '') . "'";
}
die "no inline script found in $file\n" unless @hashes;
my $sources = join ' ', @hashes;
$html =~ s{script-src 'self' 'unsafe-inline'}{script-src 'self' $sources}
    or die "the CSP in $file has no script-src 'self' 'unsafe-inline' to replace\n";
$html =~ s{(content="default-src 'self';)}{$1 object-src 'none'; base-uri 'none';};

open(my $out, '>:raw', $file) or die "cannot write $file: $!\n";
print $out $html;
close $out;
