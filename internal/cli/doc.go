// Package cli holds the command-line glue of every stage: the urfave/cli
// App constructors (one file a stage), the flags they share, and the one
// place where errors become exit statuses:
//
//	0  success (also when a downstream reader such as head closes the pipe)
//	1  a runtime error: a file that can't be read or written
//	2  bad input (file:line: what is wrong) or bad usage
//	130 interrupted
//
// The algorithms live in their own packages; nothing here but flag reading.
package cli
