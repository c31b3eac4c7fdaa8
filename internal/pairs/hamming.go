package pairs

import (
	"fmt"

	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/simhash"
	"github.com/neardup/neardup/internal/stream"
)

// Hamming band records, "key TAB id TAB fingerprint", are grouped like any
// band records, but a pair of a bucket is written only when the two
// fingerprints differ in at most k bits and the bucket's table is the first
// table of the scheme in which the two share a key (lsh.Hamming.IsFirst).
// Both tests need only the two fingerprints, so each pair within k bits is
// found once, without a set of the pairs seen, in either mode. The scheme
// comes from the band header (scheme=hamming), or from Options.Hamming when
// the input has no header; the table is the key's first 4 hex digits.
//
// Memory (default mode): about 24 bytes per band record, and per distinct id
// its length plus about 56 bytes (the fingerprint included), and 8 bytes per
// pair written.

// hammingScheme returns the scheme of the input, or nil when it holds
// MinHash band keys.
func hammingScheme(src *stream.Lines, opt Options) (*lsh.Hamming, error) {
	headers, first, err := src.Peek()
	if err != nil {
		return nil, err
	}
	var fromHeader *lsh.Hamming
	for _, h := range headers {
		if h.Header.Stage != "band" {
			continue
		}
		s, err := lsh.HammingFromHeader(h.Header)
		if err != nil {
			return nil, record.Errorf(h.Pos, "%v", err)
		}
		fromHeader = s
	}
	if opt.Hamming == nil {
		return fromHeader, nil
	}
	f := 64
	if fromHeader != nil {
		f = fromHeader.F
	} else if first != nil {
		if _, _, fp, err := record.ParseHammingBand(first); err == nil {
			if _, _, ff, ok := record.ParseFingerprint(fp); ok {
				f = ff
			}
		}
	}
	s, err := opt.Hamming.Scheme(f)
	if err != nil {
		return nil, err
	}
	if fromHeader != nil && (fromHeader.K != s.K || fromHeader.Blocks != s.Blocks) {
		return nil, fmt.Errorf("--hamming %d with %d blocks, but the input's band header says k=%d with %d blocks", s.K, s.Blocks, fromHeader.K, fromHeader.Blocks)
	}
	return s, nil
}

// parseHammingBand splits a Hamming band record and reads its table
// number and fingerprint.
func parseHammingBand(line []byte, scheme *lsh.Hamming) (key, id []byte, table int, fp simhash.Fingerprint, err error) {
	key, id, fpText, err := record.ParseHammingBand(line)
	if err != nil {
		return nil, nil, 0, fp, err
	}
	if len(key) != 4+scheme.F/4 || !isLowerHex(key) {
		return nil, nil, 0, fp, record.Bad("key %q: want %d lower-case hex digits (table, then key bits)", key, 4+scheme.F/4)
	}
	for _, c := range key[:4] {
		table = table<<4 | int(lowerHexValue[c])
	}
	if table >= len(scheme.Tables) {
		return nil, nil, 0, fp, record.Bad("key %s names table %d, the scheme has %d", key, table, len(scheme.Tables))
	}
	hi, lo, f, ok := record.ParseFingerprint(fpText)
	if !ok || f != scheme.F {
		return nil, nil, 0, fp, record.Bad("fingerprint %q: want %d hex digits", fpText, scheme.F/4)
	}
	return key, id, table, simhash.Fingerprint{Hi: hi, Lo: lo}, nil
}
