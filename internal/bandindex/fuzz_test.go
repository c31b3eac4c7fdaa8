package bandindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/disk/disktest"
	"github.com/neardup/neardup/internal/record"
)

// runBytes returns a run file of records written by a runWriter.
func runBytes(t testing.TB, recs [][2]string) []byte {
	var buf bytes.Buffer
	w := newRunWriter(&buf)
	for _, r := range recs {
		if err := w.add([]byte(r[0]), []byte(r[1])); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.finish("x.run"); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAll opens a run from bytes and reads every record; it must fail
// cleanly or succeed, never panic.
func readAll(data []byte) (n int, err error) {
	r, err := readRun(disktest.Reader(data), "x.run", "x.run")
	if err != nil {
		return 0, err
	}
	c := newCursor(r)
	for c.next() {
		n++
	}
	return n, c.err
}

// FuzzReadRun: any bytes as a run file are refused or read, never a panic;
// a run read back gives its records.
func FuzzReadRun(f *testing.F) {
	f.Add(runBytes(f, [][2]string{{"0000aa", "d1"}, {"0000aa", "d2"}, {"0001bb", "d1"}}))
	f.Add(runBytes(f, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		readAll(data)
	})
}

// FuzzBlockEntries: a block whose checksum is right but whose entries are
// any bytes is reported as damaged or read, never a panic.
func FuzzBlockEntries(f *testing.F) {
	f.Add([]byte{0, 2, 'a', 'b', 1, 'x', 1, 1, 'c', 1, 'y'}, uint32(2))
	f.Add([]byte{5, 2, 'a', 'b', 1, 'x'}, uint32(1))
	f.Add([]byte{0, 200, 'a'}, uint32(1))
	f.Fuzz(func(t *testing.T, entries []byte, count uint32) {
		if len(entries) > 1<<16 || count == 0 {
			return
		}
		enc, _ := codecs()
		comp := enc.EncodeAll(entries, nil)
		var b []byte
		b = append(b, runMagic...)
		b = binary.LittleEndian.AppendUint32(b, Version)
		b = binary.LittleEndian.AppendUint32(b, 0)
		b = append(b, comp...)
		blocks := []blockMeta{{first: []byte("a"), off: preambleSize, length: uint32(len(comp)), raw: uint32(len(entries)), count: count, sum: xxhash.Sum64(comp)}}
		footer := marshalFooter(uint64(count), blocks, []byte("z"))
		off := uint64(len(b))
		b = append(b, footer...)
		b = binary.LittleEndian.AppendUint64(b, off)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(footer)))
		b = binary.LittleEndian.AppendUint64(b, xxhash.Sum64(footer))
		b = append(b, endMagic...)
		n, err := readAll(b)
		if err == nil && n != int(count) {
			t.Fatalf("%d records read without error, the block says %d", n, count)
		}
	})
}

// FuzzManifest: any manifest is refused or parsed, never a panic; a parsed
// manifest written again parses to the same.
func FuzzManifest(f *testing.F) {
	m := &manifest{next: 3, runs: []runEntry{{"000001.run", 10, 200, 0xabc}, {"000002.run", 1, 99, 7}}}
	f.Add(m.marshal())
	f.Add([]byte("neardup-bandindex 1\nnext 1\nchecksum 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseManifest(data, "MANIFEST")
		if err != nil {
			return
		}
		again, err := parseManifest(m.marshal(), "MANIFEST")
		if err != nil || !bytes.Equal(again.marshal(), m.marshal()) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestRunRoundTrip: records written come back, also across blocks, with
// shared key prefixes; out-of-order records are refused by the writer.
func TestRunRoundTrip(t *testing.T) {
	var recs [][2]string
	for i := range 20000 {
		recs = append(recs, [2]string{string(binary.BigEndian.AppendUint32([]byte("key"), uint32(i/3))), string(rune('a'+i%3)) + "-id"})
	}
	data := runBytes(t, recs)
	r, err := readRun(disktest.Reader(data), "x.run", "x.run")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.blocks) < 3 {
		t.Fatalf("%d blocks: want several", len(r.blocks))
	}
	c := newCursor(r)
	for i := 0; c.next(); i++ {
		if string(c.key) != recs[i][0] || string(c.id) != recs[i][1] {
			t.Fatalf("record %d: %q %q, want %q", i, c.key, c.id, recs[i])
		}
	}
	if c.err != nil {
		t.Fatal(c.err)
	}
	w := newRunWriter(&bytes.Buffer{})
	w.add([]byte("b"), []byte("1"))
	for _, r := range [][2]string{{"a", "9"}, {"b", "1"}, {"b", "0"}} {
		if err := w.add([]byte(r[0]), []byte(r[1])); err == nil {
			t.Errorf("%q after b 1: accepted", r)
		}
	}
}

// FuzzManifestBatch: a manifest whose batch line is any text opens or is
// refused as malformed, never a panic; one that opens is written back the
// same. A manifest without batch lines (written before they were kept)
// opens, with none.
func FuzzManifestBatch(f *testing.F) {
	f.Add("from=0 next=400 inputs=139671:278e608e8fdf584f,-")
	f.Add("from=400 next=600")
	f.Add("from=4 next=1")
	f.Fuzz(func(t *testing.T, batch string) {
		if strings.ContainsAny(batch, "\n") {
			return
		}
		old := &manifest{headers: []record.Header{record.NewHeader("band", "b", "2")}, next: 1}
		m, err := parseManifest(old.marshal(), "MANIFEST")
		if err != nil || len(m.batches) != 0 {
			t.Fatalf("a manifest without batch lines: %v, %d batches", err, len(m.batches))
		}
		body := "neardup-bandindex 1\n#neardup stage=band b=2\nbatch " + batch + "\nnext 1\n"
		data := []byte(body + fmt.Sprintf("checksum %016x\n", xxhash.Sum64String(body)))
		m, err = parseManifest(data, "MANIFEST")
		if err != nil {
			if !strings.Contains(err.Error(), "MANIFEST:3: malformed batch line") {
				t.Fatalf("batch %q: %v", batch, err)
			}
			return
		}
		if again, err := parseManifest(m.marshal(), "MANIFEST"); err != nil || !bytes.Equal(again.marshal(), m.marshal()) {
			t.Fatalf("batch %q written back as %q: %v", batch, m.marshal(), err)
		}
	})
}
