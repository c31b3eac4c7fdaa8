package record

import (
	"fmt"
	"github.com/neardup/neardup/internal/status"
	"strconv"
)

// Pos is a place in the input: a file name (<stdin> for standard input) and a
// 1-based line number.
type Pos struct {
	File string
	Line int64
}

func (p Pos) String() string {
	if p.Line <= 0 {
		return p.File
	}
	return p.File + ":" + strconv.FormatInt(p.Line, 10)
}

// Error is a problem with the input at a known place. Stages stop on it, as
// on bad input (or skip the line under --skip-bad).
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Class makes an Error bad input.
func (e *Error) Class() status.Class { return status.BadInput }

// Errorf returns an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// LineError is an error found in one line whose place the caller knows. The
// stream package turns it into an *Error once the line's number is known.
type LineError struct {
	Msg string
}

func (e *LineError) Error() string { return e.Msg }

// Bad returns a *LineError.
func Bad(format string, args ...any) *LineError {
	return &LineError{Msg: fmt.Sprintf(format, args...)}
}
