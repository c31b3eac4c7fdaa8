package disk

import (
	"fmt"
	"io"
	"os"
)

// Copies are the copies of the inputs a stage reads twice that can't be
// read twice: standard input, a pipe. Each is a temporary file in Dir
// ("" is the system's) named as Pattern says (os.CreateTemp), tracked so
// that a signal removes it (RemoveTemps); Remove removes them when the
// stage is done.
type Copies struct {
	Dir, Pattern string
	files        []*os.File
}

// Rereadable says whether the input name ("-" is standard input) can be
// read a second time: a regular file (standard input redirected from one
// is sought back), or a directory or a name that can't be looked at, which
// fail when opened.
func Rereadable(name string) bool {
	var st os.FileInfo
	var err error
	if name == "-" {
		st, err = os.Stdin.Stat()
	} else {
		st, err = os.Stat(name)
	}
	return err != nil || st.Mode().IsRegular() || st.IsDir()
}

// Create makes a new copy, open for writing and then for reading again
// (Seek).
func (c *Copies) Create() (*os.File, error) {
	f, err := os.CreateTemp(c.Dir, c.Pattern)
	if err != nil {
		return nil, err
	}
	Track(f.Name())
	c.files = append(c.files, f)
	return f, nil
}

// Reread returns the name of a file that holds the input name ("-" is
// standard input) and can be read again: name itself when it can
// (Rereadable), else a copy made of it, whole, now.
func (c *Copies) Reread(name string) (string, error) {
	if name != "-" && Rereadable(name) {
		return name, nil
	}
	r, shown := os.Stdin, "standard input"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r, shown = f, name
	}
	f, err := c.Create()
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, r); err != nil {
		return "", fmt.Errorf("copying %s to %s: %w", shown, f.Name(), err)
	}
	return f.Name(), nil
}

// Remove closes and removes every copy.
func (c *Copies) Remove() {
	for _, f := range c.files {
		f.Close()
		os.Remove(f.Name())
		Untrack(f.Name())
	}
	c.files = nil
}
