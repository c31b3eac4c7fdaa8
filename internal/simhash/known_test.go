package simhash

import (
	"fmt"
	"testing"
)

// knownFingerprints are known-answer vectors: the fingerprints of a fixed
// document (knownFeature) under seed 42, for each length and weight of the
// sketch header (f=, weight=; the feature bits are bits=splitmix64).
// Fingerprints are kept (sketch files, index files, the index=hamming
// leaders of cluster --state) and compared with those made years later, so
// these values never change: a change to a value is a new scheme with a new
// name, never a silent one.
var knownFingerprints = []struct {
	f      int
	weight string
	hi, lo string
}{
	{64, "tf", "c830d6ba17564935", "0000000000000000"},
	{64, "logtf", "48625ff4274e48f1", "0000000000000000"},
	{64, "binary", "40420de4064e4040", "0000000000000000"},
	{64, "idf", "c930d6ba57564935", "0000000000000000"},
	{128, "tf", "c830d6ba17564935", "f805f690491ca731"},
	{128, "logtf", "48625ff4274e48f1", "ed09f6d9c92fe661"},
	{128, "binary", "40420de4064e4040", "c709f649092f8441"},
	{128, "idf", "c930d6ba57564935", "f8057690411ca731"},
}

// knownFeature returns feature i of the known document: its hash, its
// count (one of them above the counts AddCount groups) and its document
// frequency in a corpus of 10 documents, for idf.
func knownFeature(i int) (h uint64, count uint32, df uint64) {
	count = uint32(i%5 + 1)
	if i == 11 {
		count = 20
	}
	return uint64(i)*0x9e3779b97f4a7c15 + 1, count, uint64(i * 7 % 11)
}

func TestKnownFingerprints(t *testing.T) {
	for _, v := range knownFingerprints {
		w, err := ParseWeight(v.weight)
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(v.f, 42, w)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 12 {
			h, count, df := knownFeature(i)
			if w == IDF {
				s.Add(h, IDFWeight(count, df, 10))
			} else {
				s.AddCount(h, count)
			}
		}
		fp := s.Fingerprint()
		if hi, lo := fmt.Sprintf("%016x", fp.Hi), fmt.Sprintf("%016x", fp.Lo); hi != v.hi || lo != v.lo {
			t.Errorf("f=%d weight=%s bits=splitmix64: got %s %s, want %s %s\na changed value needs a new scheme name", v.f, v.weight, hi, lo, v.hi, v.lo)
		}
	}
}
