package stream

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

type seenLine struct {
	line    string
	ordinal int64
}

func TestChunkLines(t *testing.T) {
	c := &Chunk{File: "in.tsv", FirstLine: 10, FirstOrdinal: 110,
		Data: []byte("a\r\n#neardup stage=x k=1\nb\n\n#neardupx\nc\n")}
	var r Result
	var got []seenLine
	c.Lines(&r, false, func(line []byte, ordinal int64) error {
		got = append(got, seenLine{string(line), ordinal})
		return nil
	})
	want := []seenLine{{"a", 110}, {"b", 112}, {"", 113}, {"#neardupx", 114}, {"c", 115}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lines %v, want %v", got, want)
	}
	if r.Records != 5 || r.Err != nil {
		t.Errorf("Records %d, Err %v", r.Records, r.Err)
	}
	if len(r.Headers) != 1 || r.Headers[0].Pos.String() != "in.tsv:11" || r.Headers[0].Header.String() != "#neardup stage=x k=1" {
		t.Errorf("Headers %v", r.Headers)
	}
}

// Lines read one by one (Places) have their own line numbers and
// ordinals: those go to fn and to the places of errors.
func TestChunkLinesPlaces(t *testing.T) {
	c := &Chunk{File: "in.tsv", FirstLine: 7, FirstOrdinal: 70,
		Data:   []byte("a\nbad\nc\r\n"),
		Places: []LinePlace{{Line: 7, Ordinal: 70}, {Line: 12, Ordinal: 75}, {Line: 40, Ordinal: 903}}}
	var r Result
	var got []seenLine
	c.Lines(&r, true, func(line []byte, ordinal int64) error {
		got = append(got, seenLine{string(line), ordinal})
		if string(line) == "bad" {
			return record.Bad("bad line")
		}
		return nil
	})
	want := []seenLine{{"a", 70}, {"bad", 75}, {"c", 903}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lines %v, want %v", got, want)
	}
	if r.NSkipped != 1 || r.Skipped[0].Pos.String() != "in.tsv:12" {
		t.Errorf("skipped %d, %v; want 1, at in.tsv:12", r.NSkipped, r.Skipped)
	}
}

func TestChunkLinesErrors(t *testing.T) {
	data := "ok\nbad one\nok\nstop\nok\nbad two\n"
	fn := func(out *[]string) func([]byte, int64) error {
		return func(line []byte, _ int64) error {
			switch {
			case strings.HasPrefix(string(line), "bad"):
				return record.Bad("%s", line)
			case string(line) == "stop":
				return errors.New("worker broke")
			}
			*out = append(*out, string(line))
			return nil
		}
	}

	var r Result
	var out []string
	c := &Chunk{File: "f", FirstLine: 1, Data: []byte(data)}
	c.Lines(&r, false, fn(&out))
	if r.Err == nil || r.Err.Error() != "f:2: bad one" || len(out) != 1 {
		t.Errorf("without skip-bad: Err %v, lines %q", r.Err, out)
	}

	r, out = Result{}, nil
	c.Lines(&r, true, fn(&out))
	if r.Err == nil || r.Err.Error() != "worker broke" || len(out) != 2 || r.NSkipped != 1 {
		t.Errorf("other errors stop under skip-bad: Err %v, lines %q, skipped %d", r.Err, out, r.NSkipped)
	}

	r, out = Result{}, nil
	c = &Chunk{File: "f", FirstLine: 1, Data: []byte(strings.Replace(data, "stop", "ok", 1))}
	c.Lines(&r, true, fn(&out))
	if r.Err != nil || len(out) != 4 || r.NSkipped != 2 || r.Records != 6 {
		t.Errorf("skip-bad: Err %v, lines %q, skipped %d, records %d", r.Err, out, r.NSkipped, r.Records)
	}
	if len(r.Skipped) != 2 || r.Skipped[0].Error() != "f:2: bad one" || r.Skipped[1].Error() != "f:6: bad two" {
		t.Errorf("Skipped %v", r.Skipped)
	}

	r = Result{}
	c = &Chunk{File: "f", FirstLine: 5, Data: []byte("x\n#neardup k=1\ny\n")}
	c.Lines(&r, true, func([]byte, int64) error { return nil })
	if r.Err == nil || r.Err.Error() != "f:6: header has no stage=" || r.Records != 1 {
		t.Errorf("bad header: Err %v, records %d", r.Err, r.Records)
	}
}

func TestResultFail(t *testing.T) {
	pos := record.Pos{File: "f", Line: 3}
	placed := record.Errorf(record.Pos{File: "g", Line: 9}, "has its own place")
	var r Result
	if r.Fail(placed, pos, false) || r.Err != placed {
		t.Errorf("a *record.Error without skip-bad: Err %v", r.Err)
	}
	r = Result{}
	if !r.Fail(placed, pos, true) || r.Err != nil || r.NSkipped != 1 || r.Skipped[0] != placed {
		t.Errorf("a *record.Error under skip-bad: Err %v, skipped %v", r.Err, r.Skipped)
	}
	r = Result{}
	for i := range 25 {
		r.Fail(record.Bad("bad %d", i), pos, true)
	}
	if r.NSkipped != 25 || len(r.Skipped) != maxSkippedKept {
		t.Errorf("25 skipped lines: counted %d, kept %d", r.NSkipped, len(r.Skipped))
	}
}
