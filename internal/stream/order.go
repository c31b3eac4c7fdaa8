package stream

import "github.com/neardup/neardup/internal/record"

// HeaderOrder keeps the rule that headerless records and headered ones are
// not mixed, for the header of Stage, the stage that made the records a
// stage reads (shingle for sketch, sketch for band and verify --sketches):
// records are taken to have the parameters of the header lines before them,
// so
//
//   - a Stage header after records that had none (cat b.tsv a.tsv, b
//     without headers) is refused: nothing says the records before it were
//     made with its parameters;
//   - a file that starts with records without a Stage header, after a file
//     that had one, is refused for the same reason;
//   - the same header again, at the start of each file or anywhere after
//     it (cat a.tsv a.tsv), is one header, and two different ones are
//     refused by record.HeaderSet as ever.
//
// A concatenation in one stream of a headered file and a headerless one
// (cat a.tsv b.tsv) can't be told from one file: the records of b are
// taken to have a's parameters, and only a check of the values (the number
// of values of a signature) can catch them.
//
// Check takes the results of a chunk in input order; it needs the Start
// and FirstRecord that Chunk.Lines sets.
type HeaderOrder struct {
	Stage string

	held        record.Pos // where the first Stage header was read
	first       record.Pos // the first record
	fileFirst   record.Pos // the first record of the current file
	fileHas     bool       // the current file had a Stage header before its records
	fileRecords bool       // the current file had records in earlier chunks
}

// Check checks the headers and records of one result.
func (o *HeaderOrder) Check(r *Result) error {
	if r.Start.Line == 1 {
		// A file begins.
		o.fileHas, o.fileRecords, o.fileFirst = false, false, record.Pos{}
	}
	for _, h := range r.Headers {
		if h.Header.Stage != o.Stage {
			continue
		}
		inChunk := r.FirstRecord.Line > 0 && r.FirstRecord.Line < h.Pos.Line
		afterInFile := o.fileRecords || inChunk
		switch {
		case o.fileHas:
			// The file began with its header: a repeat is one header.
		case o.held.Line == 0 && (o.first.Line > 0 || inChunk):
			first := o.first
			if first.Line == 0 {
				first = r.FirstRecord
			}
			return record.Errorf(h.Pos, "a stage=%s header after records without one (from %s): %s", o.Stage, first, mixed)
		case afterInFile:
			first := o.fileFirst
			if first.Line == 0 {
				first = r.FirstRecord
			}
			return o.headerless(first)
		default:
			o.fileHas = true
			if o.held.Line == 0 {
				o.held = h.Pos
			}
		}
	}
	if r.FirstRecord.Line == 0 {
		return nil
	}
	if o.held.Line > 0 && !o.fileHas {
		return o.headerless(r.FirstRecord)
	}
	if o.first.Line == 0 {
		o.first = r.FirstRecord
	}
	if !o.fileRecords {
		o.fileRecords, o.fileFirst = true, r.FirstRecord
	}
	return nil
}

const mixed = "headerless records can't be told to have its parameters; give every file its header lines, or none"

func (o *HeaderOrder) headerless(pos record.Pos) error {
	return record.Errorf(pos, "records without a stage=%s header after a file with one (%s): %s", o.Stage, o.held, mixed)
}
