package seen

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/disk/disktest"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/testutil"
)

// Today's batch against everything seen: run 1 and then run 2 with the
// same state give the records one run over both batches gives, and the
// state after them holds the same filter.
func TestStateBatches(t *testing.T) {
	docs := strings.SplitAfter(corpus(3, 2000), "\n")
	one := testutil.WriteFile(t, "one.tsv", strings.Join(docs[:900], ""))
	two := testutil.WriteFile(t, "two.tsv", strings.Join(docs[900:], ""))
	both := testutil.WriteFile(t, "both.tsv", strings.Join(docs, ""))
	dir := t.TempDir()
	opt := defaults()
	opt.Expected = 500_000
	opt.Jobs = 3
	opt.State = filepath.Join(dir, "whole.bin")
	whole, _ := run(t, opt, both)

	opt.State = filepath.Join(dir, "bff.bin")
	out1, _ := run(t, opt, one)
	opt.Expected = 0 // the state says the size
	out2, stderr := run(t, opt, two)
	if !strings.Contains(stderr, "from "+opt.State+": ") {
		t.Errorf("the second run does not say it continues the state:\n%s", stderr)
	}
	got := append(records(out1), records(out2)...)
	if want := records(whole); strings.Join(got, "") != strings.Join(want, "") {
		t.Fatalf("two runs with a state: %d records, one run over both: %d", len(got), len(want))
	}
	if len(records(out2)) < 100 {
		t.Fatalf("the second batch has only %d records", len(records(out2)))
	}
	a, b := readState(t, filepath.Join(dir, "whole.bin")), readState(t, opt.State)
	if !slices.Equal(a.Filter.words, b.Filter.words) || a.Added != b.Added {
		t.Errorf("the states differ: %d and %d added", a.Added, b.Added)
	}
}

func readState(t *testing.T, name string) *State {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err := LoadState(diskOS, name, MaxBits)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A state made otherwise is refused, naming both; a state that does not
// exist needs sizing flags.
func TestStateRefused(t *testing.T) {
	in := testutil.WriteFile(t, "docs.tsv", corpus(4, 50))
	state := filepath.Join(t.TempDir(), "bff.bin")
	opt := defaults()
	opt.State = state
	if _, _, err := testutil.Run(t, Run, opt, in); err == nil || !strings.Contains(err.Error(), "does not exist yet") {
		t.Fatalf("a new state without a size: %v", err)
	}
	opt.Expected = 10_000
	run(t, opt, in)
	for _, c := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.K = 9 }, "k=13"},
		{func(o *Options) { o.Norm.Width = false }, "normalize=width"},
		{func(o *Options) { o.Expected = 20_000 }, "bits="},
		{func(o *Options) { o.Rate = 0.001 }, "hashes=6"},
	} {
		o := opt
		c.change(&o)
		_, _, err := testutil.Run(t, Run, o, in)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "this run asks for") {
			t.Errorf("%+v: %v", o, err)
		}
	}
	// The same sizing flags continue it.
	run(t, opt, in)
}

// A crash while the state is saved leaves the old state or the new one,
// whole: at every step of the save, crashed or failed.
func TestStateCrash(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	mk := func(n int) *State {
		s := &State{Filter: NewFilter(1<<16, 5), Sizing: Sizing{Bits: 1 << 16, Hashes: 5, Expected: 10_000, Rate: 0.01}}
		s.Header = ngrams()
		for range n {
			if s.Filter.Add(rng.Uint64()) {
				s.Added++
			}
		}
		return s
	}
	old, next := mk(300), mk(3000)
	for step := 1; ; step++ {
		done := false
		for _, crash := range []bool{false, true} {
			fs := disktest.New()
			fs.PieceSize = 1000
			fs.MkdirAll("st")
			if err := SaveState(fs, "st/bff.bin", old); err != nil {
				t.Fatal(err)
			}
			fs.FailAfter(step, crash)
			err := SaveState(fs, "st/bff.bin", next)
			if fs.Passed() {
				if err != nil {
					t.Fatal(err)
				}
				done = true
			}
			after := fs.After(crash)
			got, lerr := LoadState(after, "st/bff.bin", MaxBits)
			if lerr != nil {
				t.Fatalf("step %d crash %v: %v", step, crash, lerr)
			}
			switch {
			case got.Added == old.Added && slices.Equal(got.Filter.words, old.Filter.words):
				if err == nil && !crash {
					t.Fatalf("step %d: the save succeeded, the old state is there", step)
				}
			case got.Added == next.Added && slices.Equal(got.Filter.words, next.Filter.words):
			default:
				t.Fatalf("step %d crash %v: a state neither old nor new", step, crash)
			}
		}
		if done {
			t.Logf("%d steps", step)
			return
		}
	}
}

// A damaged or truncated state is refused with a message naming the file.
func TestStateDamaged(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bff.bin")
	s := &State{Filter: NewFilter(1<<12, 3), Sizing: Sizing{Bits: 1 << 12, Hashes: 3, Expected: 100, Rate: 0.01}, Header: ngrams()}
	s.Filter.Add(12345)
	if err := SaveState(diskOS, name, s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(name)
	for i := range len(data) {
		bad := bytes.Clone(data)
		bad[i] ^= 0x10
		os.WriteFile(name, bad, 0o644)
		if _, err := LoadState(diskOS, name, MaxBits); err == nil || !strings.Contains(err.Error(), name) {
			t.Fatalf("byte %d changed: %v", i, err)
		}
		os.WriteFile(name, data[:i], 0o644)
		if _, err := LoadState(diskOS, name, MaxBits); err == nil || !strings.Contains(err.Error(), name) {
			t.Fatalf("truncated to %d bytes: %v", i, err)
		}
	}
	if _, err := LoadState(diskOS, filepath.Join(dir, "none"), MaxBits); !errors.Is(err, ErrNoState) {
		t.Fatalf("no file: %v", err)
	}
}

// FuzzState gives LoadState any bytes: it loads them or refuses them with
// an error, and never panics. With sum set the bytes get a valid checksum,
// so that the header and the runs are read.
func FuzzState(f *testing.F) {
	dir := testutil.FuzzDir(f)
	s := &State{Filter: NewFilter(1<<12, 3), Sizing: Sizing{Bits: 1 << 12, Hashes: 3, Expected: 100, Rate: 0.01}, Header: ngrams()}
	for i := range 40 {
		s.Filter.Add(uint64(i) * 0x9e3779b97f4a7c15)
	}
	seed := filepath.Join(dir, "seed.bin")
	if err := SaveState(diskOS, seed, s); err != nil {
		f.Fatal(err)
	}
	data, _ := os.ReadFile(seed)
	f.Add(data, false)
	f.Add(data[:len(data)-8], true)
	f.Add(stateV1(s), false)
	f.Add([]byte(stateMagic1+"#neardup stage=seen-state bits=64 hashes=1 expected=1 rate=0.5 added=0 unit=word k=1 hash=tok64 seed=0 normalize=none layout=blocked512\n\x00\x01"), true)
	const h = "#neardup stage=seen-state bits=512 hashes=1 expected=1 rate=0.5 added=0 unit=word k=1 hash=tok64 seed=0 normalize=none layout=blocked512\n"
	f.Add([]byte(stateMagic1+h+"\x00\x01"), true)
	f.Add([]byte(stateMagic1+h+"\x00\x08"+strings.Repeat("\xff", 64)), true)
	f.Add([]byte(stateMagic+h+"w\x00\x08"+strings.Repeat("\xff", 64)), true)
	f.Add([]byte(stateMagic+h+"g\x00\x05\xff\x03"), true)
	f.Add([]byte(stateMagic+h+"g\x80"), true)
	name := filepath.Join(dir, "fuzz-"+strconv.Itoa(os.Getpid())+".bin")
	f.Fuzz(func(t *testing.T, data []byte, sum bool) {
		if sum {
			data = binary.LittleEndian.AppendUint64(data, xxhash.Sum64(data))
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := LoadState(diskOS, name, 1<<20)
		if err == nil && (st.Filter == nil || uint64(len(st.Filter.words))*64 != st.Filter.bits) {
			t.Fatalf("loaded a filter of %d words for %d bits", len(st.Filter.words), st.Filter.bits)
		}
	})
}

var diskOS = disk.OS{}

// ngrams is the n-gram header of the default options.
func ngrams() record.Header {
	o := defaults()
	return o.ngramHeader()
}

// The output is committed before the state is saved: when Commit runs the
// state is not yet written, and when it fails the state stays as it was.
func TestCommitBeforeSave(t *testing.T) {
	in := testutil.WriteFile(t, "docs.tsv", corpus(6, 200))
	opt := defaults()
	opt.State = filepath.Join(t.TempDir(), "bff.bin")
	opt.Expected = 100_000
	calls := 0
	opt.Commit = func() error {
		calls++
		if _, err := os.Stat(opt.State); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the state is there before the output is committed: %v", err)
		}
		return nil
	}
	run(t, opt, in)
	before, err := os.ReadFile(opt.State)
	if err != nil || calls != 1 {
		t.Fatalf("%d commits, %v", calls, err)
	}
	opt.Commit = func() error { return errors.New("disk full") }
	if _, _, err := testutil.Run(t, Run, opt, in); err == nil || err.Error() != "disk full" {
		t.Fatalf("a failed commit: %v", err)
	}
	if after, _ := os.ReadFile(opt.State); !bytes.Equal(before, after) {
		t.Fatal("a failed commit changed the state")
	}
}

// sparseState is a state of 2^20 bits holding n keys.
func sparseState(n int) *State {
	s := &State{Filter: NewFilter(1<<20, 7), Sizing: Sizing{Bits: 1 << 20, Hashes: 7, Expected: 100000, Rate: 0.01}, Header: ngrams()}
	for i := range n {
		s.Filter.Add(uint64(i+1) * 0x9e3779b97f4a7c15)
	}
	return s
}

// The file of a filter far from full costs about a byte a bit set, not
// its bits (a filter 0.7% full has most of its words not zero), and reads
// back equal; a full one costs its bits and reads back equal.
func TestStateSmall(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1000, 20000, 200000} {
		name := filepath.Join(dir, "bff"+strconv.Itoa(n)+".bin")
		s := sparseState(n)
		if err := SaveState(diskOS, name, s); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(name)
		ones := s.Filter.Ones()
		bound := uint64(300) + min(2*ones, s.Filter.Bits()/8+s.Filter.Bits()/8/32)
		if uint64(fi.Size()) > bound {
			t.Errorf("%d keys, %d bits set of %d: %d bytes, want at most %d", n, ones, s.Filter.Bits(), fi.Size(), bound)
		}
		got := readState(t, name)
		if !slices.Equal(got.Filter.words, s.Filter.words) {
			t.Errorf("%d keys: the bits read back differ", n)
		}
	}
}

// stateV1 is s in the first version's format: magic, header, the words
// as one literal run, the checksum.
func stateV1(s *State) []byte {
	b := []byte("neardup-seen 1\n" + s.header().String() + "\n")
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, uint64(len(s.Filter.words)))
	for _, w := range s.Filter.words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

// A state file of the first version is still read.
func TestStateVersion1(t *testing.T) {
	name := filepath.Join(t.TempDir(), "bff.bin")
	s := sparseState(1000)
	os.WriteFile(name, stateV1(s), 0o644)
	got := readState(t, name)
	if !slices.Equal(got.Filter.words, s.Filter.words) || got.Added != s.Added || got.Identity() != s.Identity() {
		t.Fatal("the first version's file read back differs")
	}
}
