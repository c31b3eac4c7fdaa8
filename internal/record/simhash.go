package record

import "strconv"

// A SimHash fingerprint is written as one field of hexadecimal digits, the
// first bit of the fingerprint first: 16 digits for 64 bits, 32 for 128 bits
// (the high word, then the low word, without a separator). One field keeps
// the record "id TAB size TAB fingerprint" whatever f is, makes the text
// order of fingerprints their numeric order, and lets f be read from the
// width alone.

// IsFingerprints says whether the sketch header's method= writes
// fingerprints in this form: simhash (of shingles) or hyperplane (of
// vectors, sketch --method hyperplane). band --hamming, index and verify
// --hamming take both.
func IsFingerprints(method string) bool { return method == "simhash" || method == "hyperplane" }

// ParseFingerprint parses a fingerprint of 16 or 32 hexadecimal digits. A
// 64-bit fingerprint is returned in hi, with lo zero.
func ParseFingerprint(b []byte) (hi, lo uint64, f int, ok bool) {
	switch len(b) {
	case 16:
		hi, ok = ParseHex64(b)
		return hi, 0, 64, ok
	case 32:
		var ok2 bool
		hi, ok = ParseHex64(b[:16])
		lo, ok2 = ParseHex64(b[16:])
		return hi, lo, 128, ok && ok2
	}
	return 0, 0, 0, false
}

// AppendFingerprint appends a fingerprint of f bits (64 or 128).
func AppendFingerprint(dst []byte, hi, lo uint64, f int) []byte {
	dst = AppendHex64(dst, hi)
	if f == 128 {
		dst = AppendHex64(dst, lo)
	}
	return dst
}

// SimSketch is a parsed simhash sketch record, "id TAB size TAB fingerprint".
type SimSketch struct {
	ID     []byte
	Size   uint64
	Hi, Lo uint64
	// F is the number of bits, 64 or 128.
	F int
}

// ParseSimSketch parses a simhash sketch record. The id aliases line.
func ParseSimSketch(s *SimSketch, line []byte) error {
	var buf [3][]byte
	fields, n := SplitN(buf[:0], line, 3)
	if n != 3 {
		return Bad("want id TAB size TAB fingerprint, found %d field(s)", n)
	}
	if err := CheckID(fields[0]); err != nil {
		return err
	}
	size, ok := ParseUint(fields[1])
	if !ok {
		return Bad("size %q is not a number", clip(fields[1]))
	}
	hi, lo, f, ok := ParseFingerprint(fields[2])
	if !ok {
		return Bad("fingerprint %q: want 16 or 32 hex digits", clip(fields[2]))
	}
	*s = SimSketch{ID: fields[0], Size: size, Hi: hi, Lo: lo, F: f}
	return nil
}

// A hyperplane fingerprint (sketch --method hyperplane) may be longer than
// 128 bits: any multiple of 64, written the same way, word after word
// (f/4 digits). band keys those of any length in bands of bits (band
// --cosine); band --hamming, index, verify --hamming and cluster take those
// of 64 and 128 bits.

// CheckHammingBits refuses, as stage, the sketch header h (at pos) of
// fingerprints of more than 128 bits, which a Hamming search does not
// take.
func CheckHammingBits(h Header, pos Pos, stage string) error {
	if f := h.Int("f", 64); f > 128 {
		return Errorf(pos, "%s takes fingerprints of 64 or 128 bits, the input's have %d: longer ones are banded (band --cosine)", stage, f)
	}
	return nil
}

// BitSketch is a parsed fingerprint record of any length, "id TAB size
// TAB fingerprint".
type BitSketch struct {
	ID    []byte
	Size  uint64
	Words []uint64
}

// ParseBitSketch parses a fingerprint record of any multiple of 64 bits
// into s, reusing its words. The id aliases line.
func ParseBitSketch(s *BitSketch, line []byte) error {
	id, n, fp, err := cutSized(line, "fingerprint")
	if err != nil {
		return err
	}
	if len(fp) == 0 || len(fp)%16 != 0 {
		return Bad("fingerprint %q: want a multiple of 16 hex digits", clip(fp))
	}
	s.ID, s.Size, s.Words = id, n, s.Words[:0]
	for i := 0; i < len(fp); i += 16 {
		w, ok := ParseHex64(fp[i : i+16])
		if !ok {
			return Bad("fingerprint %q: want hex digits", clip(fp))
		}
		s.Words = append(s.Words, w)
	}
	return nil
}

// AppendBitSketch appends a fingerprint record of len(words)·64 bits: for
// one or two words, the simhash sketch record of AppendSimSketch.
func AppendBitSketch(dst, id []byte, size uint64, words []uint64) []byte {
	dst = append(dst, id...)
	dst = append(dst, '\t')
	dst = strconv.AppendUint(dst, size, 10)
	dst = append(dst, '\t')
	for _, w := range words {
		dst = AppendHex64(dst, w)
	}
	return append(dst, '\n')
}

// AppendSimSketch appends a simhash sketch record.
func AppendSimSketch(dst, id []byte, size uint64, hi, lo uint64, f int) []byte {
	dst = append(dst, id...)
	dst = append(dst, '\t')
	dst = strconv.AppendUint(dst, size, 10)
	dst = append(dst, '\t')
	dst = AppendFingerprint(dst, hi, lo, f)
	return append(dst, '\n')
}

// ParseHammingBand parses a Hamming band record, "key TAB id TAB
// fingerprint".
func ParseHammingBand(line []byte) (key, id, fp []byte, err error) {
	var buf [3][]byte
	fields, n := SplitN(buf[:0], line, 3)
	if n != 3 {
		return nil, nil, nil, Bad("want key TAB id TAB fingerprint, found %d field(s)", n)
	}
	if len(fields[0]) == 0 {
		return nil, nil, nil, Bad("empty key")
	}
	if err := CheckID(fields[1]); err != nil {
		return nil, nil, nil, err
	}
	return fields[0], fields[1], fields[2], nil
}
