package input

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
)

// DefaultIDField and DefaultTextField name the JSON Lines fields read when
// no flag and no shingle header names others.
const (
	DefaultIDField   = "id"
	DefaultTextField = "text"
)

// NumberDigits is the width of an arrival number used as an id: zero-padded
// so that bytewise order (LC_ALL=C sort) is arrival order.
const NumberDigits = 12

// Reading says how documents were read and their ids made: the document
// parameters shingle writes in its header, which keep and verify
// --documents read the documents again by.
type Reading struct {
	// Format is one of the Format constants; FormatAuto takes it from each
	// file name.
	Format             string
	IDField, TextField string
	// Number makes the ids the documents' arrival numbers, NumberFrom for
	// the first line read, counted across all inputs.
	Number     bool
	NumberFrom int64
	// Inputs, with Number, is the inputs= value that binds the numbers to
	// the inputs they were given to (FingerprintInputs): set by the stage
	// that numbers them (shingle), written in its header.
	Inputs string
	// IDRequired makes a JSON Lines document without the id field a bad
	// line; otherwise its id is its line number, counted (NoID).
	IDRequired bool
	// Text is how a document's text is taken: TextRaw ("" too), TextHTML
	// or TextAuto; Main keeps only the main content of HTML.
	Text string
	Main bool
	// Vector says that the text field holds the document's vector: in JSON
	// Lines an array of numbers, whose text is the array as written
	// (vector.Parse reads it).
	Vector bool
}

// DefaultReading is how documents are read without flags or a header.
func DefaultReading() Reading {
	return Reading{IDField: DefaultIDField, TextField: DefaultTextField}
}

func (r Reading) formatName() string {
	if r.Format == FormatAuto {
		return "auto"
	}
	return r.Format
}

// readsJSON says whether documents with named fields may be read: a
// format with Fields, or auto.
func (r Reading) readsJSON() bool {
	f, ok := Lookup(r.Format)
	return r.Format == FormatAuto || ok && f.Fields
}

// textMode is the text mode, TextRaw for "".
func (r Reading) textMode() string {
	if r.Text == "" {
		return TextRaw
	}
	return r.Text
}

// CheckHeader refuses field names a header line can't hold (white space).
func (r Reading) CheckHeader() error {
	for _, f := range [][2]string{{"--id-field", r.IDField}, {"--text-field", r.TextField}} {
		if r.readsJSON() && (f[1] == "" || strings.ContainsAny(f[1], " \t\r\n")) {
			return fmt.Errorf("%s %q: a field name in the header can't be empty or hold white space (give --no-header to leave the header out)", f[0], f[1])
		}
	}
	return nil
}

// Params returns the header parameters that describe r: format=, id-field=
// and text-field= when JSON Lines can be read, and ids=given or ids=number
// from=N (and inputs= when Inputs is set).
func (r Reading) Params() []record.Param {
	ps := []record.Param{{Key: "format", Value: r.formatName()}}
	if r.readsJSON() {
		ps = append(ps, record.Param{Key: "id-field", Value: r.IDField}, record.Param{Key: "text-field", Value: r.TextField})
	}
	if r.Number {
		ps = append(ps, record.Param{Key: "ids", Value: "number"}, record.Param{Key: "from", Value: strconv.FormatInt(r.NumberFrom, 10)})
		if r.Inputs != "" {
			ps = append(ps, record.Param{Key: InputsKey, Value: r.Inputs})
		}
	} else {
		ps = append(ps, record.Param{Key: "ids", Value: "given"})
	}
	// The text mode changes the shingles: text= and main= are not document
	// keys (record.IsDocumentKey), so that records of other modes do not
	// compare. Raw text, as before they existed, writes neither.
	if r.textMode() != TextRaw {
		ps = append(ps, record.Param{Key: "text", Value: r.Text})
		if r.Main {
			ps = append(ps, record.Param{Key: "main", Value: "yes"})
		}
	}
	return ps
}

// ReadingFromHeader returns the reading a shingle header names; ok is false
// when the header names none (it was written before headers said how
// documents were read). A header with ids= but no format= reads as
// format=auto; one with format= but no ids= as ids=given.
func ReadingFromHeader(h record.Header) (r Reading, ok bool, err error) {
	f, hasFormat := h.Get("format")
	_, hasIDs := h.Get("ids")
	if !hasFormat && !hasIDs {
		return r, false, nil
	}
	r = DefaultReading()
	switch _, known := Lookup(f); {
	case f == "auto" || f == "": // no format= (a header written by hand): as auto
		r.Format = FormatAuto
	case known:
		r.Format = f
	default:
		return r, false, fmt.Errorf("the shingle header has format=%s: want auto, %s", f, FormatNames())
	}
	if v, ok := h.Get("id-field"); ok {
		r.IDField = v
	}
	if v, ok := h.Get("text-field"); ok {
		r.TextField = v
	}
	if v, ok := h.Get("text"); ok {
		if r.Text, err = ParseText(v); err != nil {
			return r, false, fmt.Errorf("the shingle header has text=%s: want raw, html or auto", v)
		}
		if r.Text == TextRaw {
			r.Text = ""
		}
	}
	if v, ok := h.Get("main"); ok {
		r.Main = v == "yes"
	}
	switch ids, _ := h.Get("ids"); ids {
	case "given", "":
	case "number":
		v, _ := h.Get("from")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return r, false, fmt.Errorf("the shingle header has ids=number from=%s: want a number from 0", v)
		}
		r.Number, r.NumberFrom = true, n
	default:
		return r, false, fmt.Errorf("the shingle header has ids=%s: want given or number", ids)
	}
	return r, true, nil
}

// ReadingFlags are the document flags a stage was given: the values and
// which of them were set on the command line.
type ReadingFlags struct {
	Reading
	// FormatFlag is the flag that set the format ("--format jsonl",
	// "--files", "--lines"), empty when none did.
	FormatFlag                          string
	IDFieldSet, TextFieldSet, NumberSet bool
	// TextSet and MainSet: --text and --main were given.
	TextSet, MainSet bool
}

// Resolve returns how a stage reads the documents: as the shingle header h
// (or the parts header: keep --drop-parts) read at pos says, where the flags do not say otherwise. A flag that
// disagrees with the header is an error naming both; without a header
// (hasHeader false) the flags and today's defaults are taken.
func (f ReadingFlags) Resolve(h record.Header, pos record.Pos, hasHeader bool) (Reading, error) {
	r := f.Reading
	r.IDRequired = f.IDFieldSet
	if !hasHeader {
		return r, nil
	}
	hr, ok, err := ReadingFromHeader(h)
	if err != nil {
		return r, record.Errorf(pos, "%v", err)
	}
	if !ok {
		return r, nil // an old header: it says nothing about the documents
	}
	// The header is shingle's, or that of another stage that read the
	// documents (parts).
	stage, verb := h.Stage, "shingled"
	if stage != "shingle" {
		verb = "read by " + stage
	}
	where := fmt.Sprintf("(the %s header of %s)", stage, pos.File)
	if pos.File == "" || pos.File == StdinName {
		where = fmt.Sprintf("(the %s header of standard input)", stage)
	}
	disagree := func(flag, key, val string) error {
		return fmt.Errorf("%s, but the documents were %s with %s=%s %s", flag, verb, key, val, where)
	}
	// Under format=auto shingle took each file's format from its name: a
	// format given now (standard input, a file renamed) is taken as it is.
	if f.FormatFlag != "" && hr.Format != FormatAuto && f.Format != hr.Format {
		return r, disagree(f.FormatFlag, "format", hr.formatName())
	}
	if f.FormatFlag == "" {
		r.Format = hr.Format
	}
	if f.TextSet && f.textMode() != hr.textMode() {
		return r, disagree("--text "+f.textMode(), "text", hr.textMode())
	}
	if f.MainSet && f.Main != hr.Main {
		return r, disagree("--main", "main", "no")
	}
	r.Text, r.Main = hr.Text, hr.Main
	if hr.readsJSON() && r.readsJSON() {
		if f.IDFieldSet && f.IDField != hr.IDField {
			return r, disagree("--id-field "+f.IDField, "id-field", hr.IDField)
		}
		if f.TextFieldSet && f.TextField != hr.TextField {
			return r, disagree("--text-field "+f.TextField, "text-field", hr.TextField)
		}
		r.IDField, r.TextField = hr.IDField, hr.TextField
		r.IDRequired = r.IDRequired || hr.IDField != DefaultIDField
	}
	if f.NumberSet {
		flag := "--number-from " + strconv.FormatInt(f.NumberFrom, 10)
		if !hr.Number {
			return r, disagree(flag, "ids", "given")
		}
		// The first number is the flag's: records of several batches (a
		// batch's pairs against an index of the earlier ones) carry one
		// batch's header, and the batch read now started elsewhere.
		r.Number, r.NumberFrom = true, f.NumberFrom
		return r, nil
	}
	r.Number, r.NumberFrom = hr.Number, hr.NumberFrom
	return r, nil
}

// ReadingOf returns the reading of options set in code: a format and the
// JSON fields (empty for the defaults), ids given.
func ReadingOf(format, idField, textField string) Reading {
	return Reading{Format: format, IDField: idField, TextField: textField}.WithDefaultFields()
}

// WithDefaultFields returns r with the default JSON fields for those it
// leaves empty (options set in code).
func (r Reading) WithDefaultFields() Reading {
	if r.IDField == "" {
		r.IDField = DefaultIDField
	}
	if r.TextField == "" {
		r.TextField = DefaultTextField
	}
	return r
}

// CheckNumberFrom refuses a --number-from that is negative or past the
// arrival numbers' NumberDigits digits; its error is a usage error.
func CheckNumberFrom(n int64) error {
	if n < 0 || n > maxNumber {
		return status.Usagef("--number-from %d: want a number from 0 to %d (%d digits)", n, int64(maxNumber), NumberDigits)
	}
	return nil
}

// Check validates r for a stage that reads the documents first hand and
// writes a header line describing them unless noHeader; its errors are
// usage errors.
func (r Reading) Check(noHeader bool) error {
	if r.Number {
		if err := CheckNumberFrom(r.NumberFrom); err != nil {
			return err
		}
		if r.Format == FormatFiles {
			return status.Usagef("--number-from and --files exclude each other: a file's id is its path")
		}
	}
	if !noHeader {
		if err := r.CheckHeader(); err != nil {
			return status.Usage(err)
		}
	}
	return nil
}

// ForStage is how a stage that reads documents again (keep, verify
// --documents) decides how: options set in code (no flags: f is zero) give
// fallback; otherwise FromHeaders, its note written on stderr. Its errors
// are usage errors.
func (f ReadingFlags) ForStage(stage string, hs *record.HeaderSet, fallback Reading, stderr io.Writer) (Reading, error) {
	if f == (ReadingFlags{}) {
		return fallback, nil
	}
	r, note, err := f.FromHeaders(hs)
	if err != nil {
		return r, status.Usage(err)
	}
	if note != "" {
		fmt.Fprintf(stderr, "%s: %s\n", stage, note)
	}
	return r, r.Check(true)
}

// FromHeaders returns how to read the documents after records with the
// headers hs (a --clusters or --pairs file, the pairs verify reads): as
// their shingle header says, unless the flags say otherwise (Resolve). When
// the file's shingle headers read the documents in different ways (batches
// shingled apart), the flags alone say, and note says so for stderr.
func (f ReadingFlags) FromHeaders(hs *record.HeaderSet) (r Reading, note string, err error) {
	h, ok := hs.Get("shingle")
	pos := hs.Pos("shingle")
	if vp, varies := hs.DocumentsVary(); ok && varies {
		r = f.Reading
		r.IDRequired = f.IDFieldSet
		return r, fmt.Sprintf("the shingle headers at %s and %s read the documents in different ways: reading them as the flags say", pos, vp), nil
	}
	r, err = f.Resolve(h, pos, ok)
	return r, "", err
}
