package cluster

import (
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/neardup/neardup/internal/synthsketch"
	"github.com/neardup/neardup/internal/testutil"
)

// FuzzLeaderState gives cluster --method leader --state any bytes as its
// state file, MinHash (banding index) or SimHash (Hamming index, kind 1;
// with --update-centre and its counters, kind 2) or hyperplane
// fingerprints with mean centres and their sums (kind 3): the run
// continues from it or refuses it as damaged or made otherwise, and never
// panics. The seeds are the states real runs leave; with sum set the bytes
// get a valid checksum, so that what follows the header lines is read to
// its end.
func FuzzLeaderState(f *testing.F) {
	dir := testutil.FuzzDir(f)
	small := synthsketch.Options{Docs: 60, N: 16, CopyFraction: 0.4, MinSimilarity: 0.9, MaxSimilarity: 1, Seed: 3}
	var sketches strings.Builder
	if err := synthsketch.Write(&sketches, small); err != nil {
		f.Fatal(err)
	}
	fingerprints, _ := fingerprintStream(rand.New(rand.NewPCG(5, 6)), 60, 64)
	vs := driftingVectors(rand.New(rand.NewPCG(7, 8)), 60)
	docs, planes, _ := vectorInput(f, vs, 64)
	inputs := [3]string{filepath.Join(dir, "minhash.tsv"), filepath.Join(dir, "simhash.tsv"), filepath.Join(dir, "hyperplane.tsv")}
	for i, text := range []string{sketches.String(), fingerprints, planes} {
		if err := os.WriteFile(inputs[i], []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	options := func(kind uint8, state string) Options {
		opt := defaults(Leader)
		opt.Jobs = 1
		opt.State = state
		if kind > 0 {
			opt.Hamming = 3
			opt.UpdateCentre = kind >= 2
		}
		if kind == 3 {
			opt.Documents, opt.VectorField = []string{docs}, "emb"
		}
		return opt
	}
	input := func(kind uint8) string { return inputs[[]int{0, 1, 1, 2}[kind]] }
	// The seeds: the states of every kind after one run.
	for kind := range uint8(4) {
		state := filepath.Join(dir, "seed.state")
		os.Remove(state)
		if err := Run(context.Background(), options(kind, state), []string{input(kind)}, io.Discard, io.Discard); err != nil {
			f.Fatal(err)
		}
		data, err := os.ReadFile(state)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, kind, false)
		f.Add(data[:len(data)-8], kind, true)
	}
	f.Add([]byte(stateMagic+"\n\x00\x00"), uint8(0), true)
	// One state file per fuzzing process, rewritten for each input.
	state := filepath.Join(dir, "fuzz-"+strings.ReplaceAll(f.Name(), "/", "-")+"-"+strconv.Itoa(os.Getpid())+".state")
	f.Fuzz(func(t *testing.T, data []byte, kind uint8, sum bool) {
		if len(data) > 1<<20 {
			return
		}
		if sum {
			data = binary.LittleEndian.AppendUint64(data, xxhash.Sum64(data))
		}
		if err := os.WriteFile(state, data, 0o644); err != nil {
			t.Fatal(err)
		}
		kind %= 4
		Run(context.Background(), options(kind, state), []string{input(kind)}, io.Discard, io.Discard)
	})
}
