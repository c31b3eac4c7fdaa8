// Package stream is the ordered parallel worker pool every stage uses.
//
// A reader cuts the input into chunks of whole lines (or, for one-file-per-
// document input, batches of files); workers turn each chunk into a Result
// (output bytes, header lines seen, errors with their line); a single sink
// takes the results in input order. The output is therefore the same for any
// number of workers. At most 2×workers+2 chunks are in flight, each about
// ChunkSize bytes (longer when a single line is longer), which bounds memory.
package stream
