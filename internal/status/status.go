// Package status names the classes of errors that decide how a stage
// ends. An error declares its class with a Class method; the command line
// (internal/cli) alone turns a class into an exit status.
package status

import (
	"errors"
	"fmt"
	"math"
)

// Class is what an error says about the run that failed.
type Class int

const (
	// Runtime: a file could not be read or written; the same run may
	// succeed when retried.
	Runtime Class = iota
	// BadInput: the input must change before the run can succeed.
	BadInput
	// BadUsage: the command line must change before the run can succeed.
	BadUsage
)

// Classed is an error that knows its class.
type Classed interface {
	error
	Class() Class
}

// Of returns the class of the first error in err's chain that knows its
// class, and Runtime when none does.
func Of(err error) Class {
	var c Classed
	if errors.As(err, &c) {
		return c.Class()
	}
	return Runtime
}

// UsageError is a mistake in the command line or the options.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Class of a usage error is BadUsage.
func (e *UsageError) Class() Class { return BadUsage }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// Usage returns err as a *UsageError (nil for nil).
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{err}
}

// Float is the value of a float option and the flag that gives it.
type Float struct {
	Flag  string
	Value float64
}

// Finite returns a usage error naming the flag of the first value that is
// NaN or infinite, and nil when none is. The range checks of the options
// come after it: NaN fails no comparison that asks v < lo.
func Finite(values ...Float) error {
	for _, f := range values {
		if math.IsNaN(f.Value) {
			return Usagef("%s %g: not a number", f.Flag, f.Value)
		}
		if math.IsInf(f.Value, 0) {
			return Usagef("%s %g: want a finite number", f.Flag, f.Value)
		}
	}
	return nil
}
