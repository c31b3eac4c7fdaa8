// Package stream is the ordered parallel worker pool every stage uses.
//
// A reader cuts the input into chunks of whole lines (or, for one-file-per-
// document input, batches of files); workers turn each chunk into a Result
// (output bytes, header lines seen, errors with their line); a single sink
// takes the results in input order. The output is therefore the same for any
// number of workers. At most 2×workers+2 chunks are in flight, each about
// ChunkSize bytes (longer when a single line is longer), which bounds memory.
//
// It is also the stage runtime: Common holds the options every stage has
// (embedded in each stage's Options), WorkerFactory is the one shape of a
// stage's workers, NewOutput the one constructor of a stage's Output, which
// reports progress (Watch), skipped lines and counters, and RunPool runs a
// pool stage from its input to its finished output.
package stream
