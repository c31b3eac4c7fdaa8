// Package seen is the seen stage: the paragraphs of a stream of documents
// whose word n-grams were mostly seen in earlier documents, found in one
// pass with a Bloom filter (DCLM's "BFF"), the filter carried from run to
// run in a state file.
//
// The workers read documents as shingle does, cut each into paragraphs as
// parts --by paragraph does and hash the n-grams of each paragraph as
// shingle --unit word hashes them (work.go); the sink, alone, in input
// order, looks each document's paragraphs up in the filter (Filter,
// bloom.go), writes those at or above the threshold and then adds the
// document's n-grams, so that the output is the same for any number of
// workers. The state file (state.go) is replaced atomically and checked
// when read.
package seen
