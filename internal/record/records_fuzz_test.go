package record_test

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

// roundTrip checks one record kind on a fuzzed line: parsing does not
// panic and fails only with a *record.LineError; a parsed record written
// back is one line that parses to the same values, and writing those gives
// the same line again (the canonical form).
func roundTrip[V any](t *testing.T, line []byte, parse func([]byte) (V, error), write func([]byte, V) []byte, equal func(a, b V) bool) {
	t.Helper()
	v, err := parse(line)
	if err != nil {
		if _, ok := err.(*record.LineError); !ok {
			t.Fatalf("parsing %q: error %T, want *record.LineError", line, err)
		}
		return
	}
	if bytes.ContainsAny(line, "\n") {
		return // a line never holds an LF: the values need not write back
	}
	out := write(nil, v)
	if bytes.IndexByte(out, '\n') != len(out)-1 {
		t.Fatalf("%q parsed and written back gives %q, not one line", line, out)
	}
	v2, err := parse(out[:len(out)-1])
	if err != nil {
		t.Fatalf("%q (written back from %q) does not parse: %v", out, line, err)
	}
	if !equal(v, v2) {
		t.Fatalf("%q parsed and written back as %q gives %+v, want %+v", line, out, v2, v)
	}
	if again := write(nil, v2); !bytes.Equal(again, out) {
		t.Fatalf("%q written back is %q, then %q", line, out, again)
	}
}

// same compares values whose byte slices hold the fields.
func same[V any](a, b V) bool { return reflect.DeepEqual(a, b) }

type shingleRec struct {
	id     []byte
	hashes []uint64
	counts []uint32
}

func FuzzShingleRecord(f *testing.F) {
	for _, s := range []string{
		"doc\t0000000000000001 00000000000000ff",
		"doc\t0000000000000001:3 00000000000000FF:1",
		"d\t",
		"d",
		"a\\tb\t0000000000000002 0000000000000001",
	} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (shingleRec, error) {
		id, field, err := record.SplitShingles(line)
		if err != nil {
			return shingleRec{}, err
		}
		r := shingleRec{id: id}
		r.hashes, r.counts, err = record.ParseShingles(nil, []uint32{}, field)
		return r, err
	}
	// write writes hashes with counts above one by repeating them.
	write := func(dst []byte, r shingleRec) []byte {
		if !slices.ContainsFunc(r.counts, func(c uint32) bool { return c > 1 }) {
			return record.AppendShingles(dst, r.id, r.hashes)
		}
		var hs []uint64
		for i, h := range r.hashes {
			for range r.counts[i] {
				hs = append(hs, h)
			}
		}
		return record.AppendShingleCounts(dst, r.id, hs)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var total uint64
		if _, field, err := record.SplitShingles(line); err == nil {
			if _, counts, err := record.ParseShingles(nil, []uint32{}, field); err == nil {
				for _, c := range counts {
					total += uint64(c)
				}
			}
		}
		if total > 1<<16 {
			return // too many repeats to write out
		}
		roundTrip(t, line, parse, write, same)
	})
}

type band struct{ key, id []byte }

func FuzzBand(f *testing.F) {
	for _, s := range []string{"0000aaaaaaaaaaaaaaaa\tdoc", "k\tid\t", "k", "\tid", "k\ta\tb"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		parse := func(line []byte) (band, error) {
			k, id, err := record.ParseBand(line)
			return band{k, id}, err
		}
		write := func(dst []byte, b band) []byte { return record.AppendBand(dst, b.key, b.id) }
		roundTrip(t, line, parse, write, same)
		// ParseAnyBand takes every band record ParseBand takes, alike.
		if b, err := parse(line); err == nil {
			if k, id, err := record.ParseAnyBand(line); err != nil || !same(band{k, id}, b) {
				t.Fatalf("ParseAnyBand(%q) = %q %q %v, ParseBand %q %q", line, k, id, err, b.key, b.id)
			}
		}
	})
}

type hammingBand struct {
	key, id []byte
	hi, lo  uint64
	f       int
}

func FuzzHammingBand(f *testing.F) {
	for _, s := range []string{
		"0001abcdef0123456789\tdoc\t0123456789abcdef",
		"0001abc\td\t0123456789ABCDEF0000000000000001",
		"k\tdoc", "k\td\tf\tx", "k\td\t\t",
	} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (hammingBand, error) {
		k, id, fp, err := record.ParseHammingBand(line)
		if err != nil {
			return hammingBand{}, err
		}
		hi, lo, bits, ok := record.ParseFingerprint(fp)
		if !ok {
			return hammingBand{}, record.Bad("fingerprint %q", fp)
		}
		return hammingBand{k, id, hi, lo, bits}, nil
	}
	write := func(dst []byte, b hammingBand) []byte {
		return record.AppendHammingBand(dst, b.key, b.id, b.hi, b.lo, b.f)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, parse, write, same)
		// ParseAnyBand reads the key and id of a Hamming band record.
		if b, err := parse(line); err == nil {
			if k, id, err := record.ParseAnyBand(line); err != nil || !same(band{k, id}, band{b.key, b.id}) {
				t.Fatalf("ParseAnyBand(%q) = %q %q %v, want %q %q", line, k, id, err, b.key, b.id)
			}
		}
	})
}

type pair struct{ a, b []byte }

func FuzzPair(f *testing.F) {
	for _, s := range []string{"a\tb", "a\tb\t", "a", "a\tb\tc", "\t\t"} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (pair, error) {
		a, b, err := record.ParsePair(line)
		return pair{a, b}, err
	}
	write := func(dst []byte, p pair) []byte { return record.AppendPair(dst, p.a, p.b) }
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, parse, write, same)
		// ParsePairScore reads the ids of every pair ParsePair takes.
		if p, err := parse(line); err == nil {
			if a, b, _, err := record.ParsePairScore(line); err != nil || !same(pair{a, b}, p) {
				t.Fatalf("ParsePairScore(%q) = %q %q %v, ParsePair %q %q", line, a, b, err, p.a, p.b)
			}
		}
	})
}

func FuzzScored(f *testing.F) {
	for _, s := range []string{
		"a\tb\t0.250000",
		"a\tb\t0.25\t0.5\t0.333333",
		"a\tb\t1e-7\t.5\t1",
		"a\tb\t2", "a\tb\tNaN", "a\tb", "a\tb\t1\t1",
	} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (record.Scored, error) {
		var s record.Scored
		err := record.ParseScored(&s, line)
		return s, err
	}
	write := func(dst []byte, s record.Scored) []byte {
		return record.AppendScored(dst, s.A, s.B, s.J, s.AB, s.BA, s.Containment)
	}
	// Scores are written with 6 decimals: equal values write alike.
	equal := func(x, y record.Scored) bool {
		return bytes.Equal(write(nil, x), write(nil, y))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, parse, write, equal)
		// ParsePairScore reads the ids and first score of a scored pair.
		if s, err := parse(line); err == nil {
			a, b, score, err := record.ParsePairScore(line)
			if err != nil || !same(pair{a, b}, pair{s.A, s.B}) {
				t.Fatalf("ParsePairScore(%q) = %q %q %v, ParseScored %q %q", line, a, b, err, s.A, s.B)
			}
			if j, err := record.ParseScore(score); err != nil || j != s.J {
				t.Fatalf("ParseScore(%q) = %v %v, ParseScored %v", score, j, err, s.J)
			}
		}
	})
}

type distance struct {
	a, b []byte
	d    int
}

func FuzzDistance(f *testing.F) {
	for _, s := range []string{"q\ts\t3", "a\tb\t007\t", "a\tb", "a\tb\t-1", "a\tb\t1\t2"} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (distance, error) {
		a, b, d, err := record.ParseDistance(line)
		return distance{a, b, d}, err
	}
	write := func(dst []byte, d distance) []byte { return record.AppendDistance(dst, d.a, d.b, d.d) }
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, parse, write, same)
	})
}

type docFreq struct{ hash, count uint64 }

func FuzzDocFreq(f *testing.F) {
	for _, s := range []string{"0123456789abcdef\t12", "0123456789ABCDEF\t007", "0123456789abcdef\t", "0123456789abcdef", "x\t1"} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (docFreq, error) {
		h, c, err := record.ParseDocFreq(line)
		return docFreq{h, c}, err
	}
	write := func(dst []byte, e docFreq) []byte { return record.AppendDocFreq(dst, e.hash, e.count) }
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, parse, write, same)
	})
}

type member struct{ cluster, id []byte }

func FuzzMember(f *testing.F) {
	for _, s := range []string{"c\td", "c\td\t", "c", "\td", "c\td\te"} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (member, error) {
		c, id, err := record.ParseMember(line)
		return member{c, id}, err
	}
	write := func(dst []byte, m member) []byte { return record.AppendMember(dst, m.cluster, m.id) }
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, parse, write, same)
	})
}

func FuzzClusterReport(f *testing.F) {
	for _, s := range []string{"c\t3\t2\t0.850000", "c\t3\t0\t-", "c\t1\t2\t0.9", "c\t3\t2", "\t1\t1\t1", "c\tx\t0\t-"} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (record.ClusterReport, error) {
		var r record.ClusterReport
		err := record.ParseClusterReport(&r, line)
		return r, err
	}
	// Similarities are written with 6 decimals: equal values write alike.
	equal := func(x, y record.ClusterReport) bool {
		return bytes.Equal(record.AppendClusterReport(nil, x), record.AppendClusterReport(nil, y))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, parse, record.AppendClusterReport, equal)
	})
}

func FuzzDropped(f *testing.F) {
	for _, s := range []string{"b\ta\ta\t0.850000", "c\ta\tb\t-", "c\ta\tb\t1", "c\ta\tb", "\ta\ta\t1", "c\ta\tb\t2", "c\ta\t\t0.9"} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (record.Dropped, error) {
		var r record.Dropped
		err := record.ParseDropped(&r, line)
		return r, err
	}
	// Similarities are written with 6 decimals: equal values write alike.
	equal := func(x, y record.Dropped) bool {
		return bytes.Equal(record.AppendDropped(nil, x), record.AppendDropped(nil, y))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, parse, record.AppendDropped, equal)
	})
}

type attached struct {
	b, a   []byte
	size   uint64
	values []byte
}

func FuzzAttached(f *testing.F) {
	for _, s := range []string{
		"b\ta\t2\t0000000000000001 0000000000000002",
		"b\ta\t007\t\t",
		"a\ta\t1\tv", "b\ta\tx\tv", "b\ta\t1",
	} {
		f.Add([]byte(s))
	}
	parse := func(line []byte) (attached, error) {
		b, a, size, values, err := record.ParseAttached(line)
		return attached{b, a, size, values}, err
	}
	write := func(dst []byte, r attached) []byte { return record.AppendAttached(dst, r.b, r.a, r.size, r.values) }
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, parse, write, same)
	})
}

type bitsRec struct {
	id     []byte
	size   uint64
	values []byte
}

func FuzzBits(f *testing.F) {
	for _, s := range []string{"doc\t730\t0f3a", "d\t1\t00", "d\t1\t0", "d\tx\t00", "d\t1\t0g", "d\t1\t", "a\\tb\t2\tffee\tx"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var s record.Bits
		parse := func(line []byte) (bitsRec, error) {
			err := record.ParseBits(&s, line)
			return bitsRec{s.ID, s.Size, slices.Clone(s.Values)}, err
		}
		write := func(dst []byte, b bitsRec) []byte { return record.AppendBits(dst, b.id, b.size, b.values) }
		roundTrip(t, line, parse, write, same)
	})
}

// ParseDocFreqRun takes the lines ParseDocFreq parses, with the same
// values, up to the first it leaves to the caller, which is one it does not
// take in whole: a line ParseDocFreq refuses, or one not in docfreq's form.
func FuzzDocFreqRun(f *testing.F) {
	f.Add([]byte("00000000000000ff\t3\n0123456789abcdef\t123456789\n"))
	f.Add([]byte("00000000000000FF\t0\n0000000000000001\t1234567890\n"))
	f.Add([]byte("#neardup stage=docfreq docs=1\n0000000000000001\t1\n"))
	f.Add([]byte("0000000000000001\t1\r\n0000000000000002\t2\n"))
	f.Add([]byte("0000000000000001\t1\n000000000000002\t2\n"))
	f.Add([]byte("0000000000000001\t\n0000000000000001\t1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		hashes, counts, n := record.ParseDocFreqRun(nil, nil, data)
		if n < 0 || n > len(data) || (n > 0 && data[n-1] != '\n') {
			t.Fatalf("took %d bytes of %q", n, data)
		}
		lines := bytes.SplitAfter(data[:n], []byte{'\n'})
		lines = lines[:len(lines)-1] // the empty rest after the last LF
		if len(lines) != len(hashes) || len(counts) != len(hashes) {
			t.Fatalf("%q: %d lines taken, %d hashes, %d counts", data, len(lines), len(hashes), len(counts))
		}
		for i, l := range lines {
			h, c, err := record.ParseDocFreq(l[:len(l)-1])
			if err != nil || h != hashes[i] || c != uint64(counts[i]) {
				t.Fatalf("line %q: run gives %x %d, ParseDocFreq %x %d %v", l, hashes[i], counts[i], h, c, err)
			}
		}
		// What is left starts with a line the run does not take whole:
		// ParseDocFreq refuses it, or it is not docfreq's own form.
		rest := data[n:]
		if len(rest) == 0 {
			return
		}
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			return // no line end
		}
		line := rest[:end]
		h, c, err := record.ParseDocFreq(line)
		if err == nil && len(line) > 17 && len(line) <= 26 && line[16] == '\t' && c < 1e9 && !bytes.ContainsAny(line, "\r") {
			if _, _, m := record.ParseDocFreqRun(nil, nil, rest); m == 0 {
				t.Fatalf("line %q (%x %d) parses but the run leaves it", line, h, c)
			}
		}
	})
}
