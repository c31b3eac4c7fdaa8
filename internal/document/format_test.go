package document

import (
	"bytes"
	"slices"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// A format registered here, and nowhere else, is read by Source and
// Reader: registering a line format is all that adding one takes.
func init() {
	input.Register(&input.Format{
		Name:       "csvish",
		Extensions: []string{".csvish"},
		Line: func(_ *input.DocParser, line []byte, _ int64) (id, text []byte, escaped bool, err error) {
			id, text, ok := bytes.Cut(line, []byte{','})
			if !ok {
				return nil, nil, false, record.Bad("want id,text")
			}
			return id, text, false, nil
		},
	})
}

func TestRegisteredLineFormat(t *testing.T) {
	name := testutil.WriteFile(t, "docs.csvish", "a,one two\nb,three\tfour\n")
	for _, format := range []string{"csvish", input.FormatAuto} {
		if _, err := input.ParseFormat(format); err != nil {
			t.Fatal(err)
		}
		r := input.DefaultReading()
		r.Format = format
		src, unit := Source(r, []string{name}, false)
		if unit != "line" {
			t.Errorf("format %q: unit %q, want line", format, unit)
		}
		d := NewReader(r, nil, nil, false)
		var got []string
		for {
			c, err := src.Next()
			if err != nil {
				t.Fatal(err)
			}
			if c == nil {
				break
			}
			var res stream.Result
			d.Documents(c, &res, func(id, text []byte) error {
				got = append(got, string(id)+"="+string(text))
				return nil
			})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
		}
		src.Close()
		if want := []string{"a=one two", "b=three\tfour"}; !slices.Equal(got, want) {
			t.Errorf("format %q: read %q, want %q", format, got, want)
		}
	}
}
