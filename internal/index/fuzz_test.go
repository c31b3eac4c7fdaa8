package index

import (
	"os"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

// FuzzOpen opens arbitrary bytes as an index, reads all of it and asks a
// query: a damaged file must give an error, never a panic.
//
// Open maps a file, so the bytes go to a file: under /dev/shm when there is
// one (testutil.FuzzDir), since on a disk the fuzzing stalls on its I/O.
func FuzzOpen(f *testing.F) {
	dir := testutil.FuzzDir(f)
	_, b := smallIndexFor(f, dir)
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(magic))
	// One file per fuzzing process, rewritten in place: creating files is
	// slow on some file systems.
	var file *os.File
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		if file == nil {
			var err error
			if file, err = os.CreateTemp(dir, "fuzz-*.idx"); err != nil {
				t.Fatal(err)
			}
		}
		if err := file.Truncate(0); err != nil {
			t.Fatal(err)
		}
		if _, err := file.WriteAt(data, 0); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(file.Name())
		if err != nil {
			return
		}
		defer ix.Close()
		ix.Check()
		s := ix.NewSearcher()
		ms, err := s.Search(nil, 0x0123456789abcdef, ix.Scheme.K)
		if err != nil {
			return
		}
		for _, m := range ms {
			s.IDs(nil, m.FP)
		}
		ix.SearchBatch([]uint64{1, 2, 0x0123456789abcdef}, ix.Scheme.K, 1)
	})
}
