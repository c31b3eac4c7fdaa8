package bandindex

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

// The manifest (MANIFEST) is text, one item a line:
//
//	neardup-bandindex 1
//	#neardup stage=shingle …            the header lines of the records
//	#neardup stage=band …               the index was built from
//	batch from=F next=N inputs=…        the numbered batches it holds
//	                                    (batches.go), oldest first
//	run 000001.run records=N bytes=N footer=XXH64
//	run …                               the runs, oldest first
//	next 3                              the number of the next run file
//	checksum XXH64                      of every byte before this line
//
// It is replaced whole (written beside, synced, renamed over), so that it
// names either the runs before a change or those after, never a mix.

const (
	manifestName  = "MANIFEST"
	lockName      = "LOCK"
	manifestMagic = "neardup-bandindex"
)

// runEntry is what the manifest says of a run.
type runEntry struct {
	name    string
	records uint64
	bytes   uint64
	footer  uint64
}

type manifest struct {
	headers []record.Header
	// batches are the numbered batches added (none in a manifest written
	// before they were kept, or of ids not numbered).
	batches []input.Batch
	runs    []runEntry
	next    int
}

func (m *manifest) marshal() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %d\n", manifestMagic, Version)
	for _, h := range m.headers {
		b.WriteString(h.String())
		b.WriteByte('\n')
	}
	for _, bt := range m.batches {
		fmt.Fprintf(&b, "batch %s\n", bt)
	}
	for _, r := range m.runs {
		fmt.Fprintf(&b, "run %s records=%d bytes=%d footer=%016x\n", r.name, r.records, r.bytes, r.footer)
	}
	fmt.Fprintf(&b, "next %d\n", m.next)
	fmt.Fprintf(&b, "checksum %016x\n", xxhash.Sum64(b.Bytes()))
	return b.Bytes()
}

// runName names run file number n.
func runName(n int) string { return fmt.Sprintf("%06d.run", n) }

// isRunName reports whether name is a run file's name.
func isRunName(name string) bool {
	digits, ok := strings.CutSuffix(name, ".run")
	if !ok || len(digits) < 6 {
		return false
	}
	_, err := strconv.ParseUint(digits, 10, 63)
	return err == nil
}

func parseManifest(data []byte, path string) (*manifest, error) {
	bad := func(line int, format string, args ...any) error {
		return record.Errorf(record.Pos{File: path, Line: int64(line)}, format, args...)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, bad(0, "truncated manifest")
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	last := lines[len(lines)-1]
	sum, ok := strings.CutPrefix(last, "checksum ")
	if !ok {
		return nil, bad(len(lines), "no checksum line: truncated or damaged")
	}
	body := data[:len(data)-len(last)-1]
	if want := fmt.Sprintf("%016x", xxhash.Sum64(body)); sum != want {
		return nil, bad(len(lines), "checksum %s, the manifest's bytes give %s: damaged", sum, want)
	}
	magic, version, _ := strings.Cut(lines[0], " ")
	if magic != manifestMagic {
		return nil, bad(1, "not a bandindex manifest")
	}
	if v, err := strconv.Atoi(version); err != nil || v != Version {
		return nil, bad(1, "index format version %s; this bandindex reads version %d", version, Version)
	}
	m := &manifest{next: -1}
	for i, line := range lines[1 : len(lines)-1] {
		n := i + 2
		switch {
		case record.IsHeader([]byte(line)):
			h, err := record.ParseHeader([]byte(line))
			if err != nil {
				return nil, bad(n, "%v", err)
			}
			m.headers = append(m.headers, h)
		case strings.HasPrefix(line, "batch "):
			bt, err := input.ParseBatch(line[len("batch "):])
			if err != nil {
				return nil, bad(n, "malformed batch line: %v", err)
			}
			m.batches = append(m.batches, bt)
		case strings.HasPrefix(line, "run "):
			var r runEntry
			var sum string
			if _, err := fmt.Sscanf(line, "run %s records=%d bytes=%d footer=%s", &r.name, &r.records, &r.bytes, &sum); err != nil || !isRunName(r.name) {
				return nil, bad(n, "malformed run line %q", line)
			}
			var err error
			if r.footer, err = strconv.ParseUint(sum, 16, 64); err != nil {
				return nil, bad(n, "malformed run line %q", line)
			}
			m.runs = append(m.runs, r)
		case strings.HasPrefix(line, "next "):
			v, err := strconv.Atoi(line[len("next "):])
			if err != nil || v < 1 {
				return nil, bad(n, "malformed next line %q", line)
			}
			m.next = v
		default:
			return nil, bad(n, "unknown line %q", line)
		}
	}
	if m.next < 0 {
		return nil, bad(len(lines), "no next line")
	}
	return m, nil
}
