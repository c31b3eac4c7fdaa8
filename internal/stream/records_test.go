package stream

import (
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/testutil"
)

func warcResource(uri, block string) string {
	return "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: <" + uri + ">\r\nContent-Length: " +
		strconv.Itoa(len(block)) + "\r\n\r\n" + block + "\r\n\r\n"
}

// TestLinesRecords: under format auto, an input whose first line is
// WARC/1.0 (whatever its name) is read as records, the others as lines,
// and the ordinals count documents across them; without a Reading every
// input is lines.
func TestLinesRecords(t *testing.T) {
	dir := t.TempDir()
	tsv := testutil.WriteFileIn(t, dir, "a.tsv", "x\tone\ny\ttwo\n")
	warc := testutil.WriteFileIn(t, dir, "crawl.dat", warcResource("http://u/1", "first")+
		"WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n"+warcResource("http://u/2", "second"))
	last := testutil.WriteFileIn(t, dir, "b.tsv", "z\tthree\n")
	l := NewLines([]string{tsv, warc, last})
	r := input.DefaultReading()
	l.Reading = &r
	defer l.Close()
	var got []string
	for {
		c, err := l.Next()
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			break
		}
		if c.Docs == nil {
			got = append(got, c.Format+" lines from "+strconv.FormatInt(c.FirstOrdinal, 10))
			continue
		}
		var kinds []string
		for _, d := range c.Docs {
			kinds = append(kinds, strconv.Itoa(int(d.Record.Kind))+":"+strconv.FormatInt(d.Record.N, 10))
		}
		got = append(got, c.Format+" records "+strings.Join(kinds, " ")+" from "+strconv.FormatInt(c.FirstOrdinal, 10))
	}
	want := "tsv lines from 1|warc records 0:1 1:2 0:3 from 3|tsv lines from 5"
	if strings.Join(got, "|") != want {
		t.Errorf("chunks %q, want %q", strings.Join(got, "|"), want)
	}

	plain := NewLines([]string{warc})
	defer plain.Close()
	c, err := plain.Next()
	if err != nil || c == nil || c.Docs != nil || !strings.HasPrefix(string(c.Data), "WARC/1.0\r\n") {
		t.Errorf("without a Reading: %v %v", c, err)
	}
}
