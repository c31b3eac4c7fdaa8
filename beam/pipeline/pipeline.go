// Package pipeline is neardup's MinHash pipeline as Apache Beam transforms:
//
//	read → shingle → sketch → band → GroupByKey → pairs → verify → components
//	                                                                 → dedup
//
// Each stage runs the code of the command-line stage, not a copy of it: the
// workers of shingle, sketch and band (the stream.Worker each stage hands
// its chunks to), pairs.Bucket, verify.Exact and verify.AppendScored, and
// the record package's headers and formats. What Beam adds is the grouping:
// band keys are grouped by a GroupByKey instead of in pairs' memory, pairs
// found in several buckets are made distinct, candidate pairs are joined
// with the documents of both their ids (two CoGroupByKeys) instead of
// verify's in-memory store of shingle sets (with -bbit, first with the
// b-bit signatures of both, bbit.go), and connected components are found
// in rounds (components.go) instead of by one union-find.
//
// The command line's checks of what one stage reads from another (the
// signature lengths band, pairs and verify check against the sketch
// header, the headers of the stages before) have nothing to check here:
// the pipeline makes every record itself, from one set of options, and
// reads no stage's records. The documents' header lines are checked as
// shingle checks them (record.Writer.Header), whatever is written.
//
// Outputs are record files in the command-line format, header lines
// included: OUTPUT-NAME-SSSSS-of-NNNNN.tsv, each shard sorted bytewise.
// Sorted, the union of an output's shards (header lines once) equals the
// command-line stage's output sorted. The dedup outputs (dedup.go) are
// what keep --pairs writes at the end of examples/dedup.sh, the documents
// kept or dropped and the report, in shards of ranges of arrival: their
// concatenation in shard order is keep's output, byte for byte.
package pipeline

import (
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"
)

// Build adds the pipeline to a scope. It returns, for each output written,
// the PCollection<string> of the paths of its shards.
func Build(s beam.Scope, opt Options) (map[string]beam.PCollection, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	written := map[string]beam.PCollection{}
	chunks, seen, lines := readDocuments(s, opt)
	shingled := beam.ParDoN(s.Scope("shingle"), &shingleFn{Opt: opt, Docs: opt.needs(OutPairs)}, chunks)
	records, docs, docHeaders := shingled[0], shingled[1], shingled[2]
	write := func(output string, lines beam.PCollection) {
		if opt.writes(output) {
			written[output] = writeRecords(s, opt, output, lines, docHeaders, seen)
		}
	}
	write(OutShingles, beam.ParDo(s, splitLines, records))
	if !opt.needs(OutSketches) {
		return written, nil
	}
	sketches := beam.ParDo(s.Scope("sketch"), &sketchFn{Opt: opt}, records)
	write(OutSketches, beam.ParDo(s, splitLines, sketches))
	if !opt.needs(OutBands) {
		return written, nil
	}
	bands := beam.ParDo(s.Scope("band"), &bandFn{Opt: opt}, sketches)
	write(OutBands, beam.ParDo(s, joinFields, bands))
	if !opt.needs(OutCandidates) {
		return written, nil
	}
	ps := s.Scope("pairs")
	candidates := filter.Distinct(ps, beam.ParDo(ps, &bucketFn{MaxBucket: opt.MaxBucket, Reps: opt.Reps}, beam.GroupByKey(ps, bands)))
	if opt.BBit {
		candidates = judged(ps, opt, candidates, sketches)
	}
	write(OutCandidates, candidates)
	if !opt.needs(OutPairs) {
		return written, nil
	}
	vs := s.Scope("verify")
	firsts := beam.ParDo(vs, &joinFirstFn{}, beam.CoGroupByKey(vs, beam.ParDo(vs, splitPair, candidates), docs))
	scored := beam.ParDo(vs, &scoreFn{Opt: opt}, beam.CoGroupByKey(vs, firsts, docs))
	write(OutPairs, scored)
	if opt.dedups() {
		checkHeaders(s, opt, docHeaders)
		for o, paths := range dedup(s, opt, chunks, scored, lines) {
			written[o] = paths
		}
	}
	if !opt.needs(OutClusters) {
		return written, nil
	}
	write(OutClusters, components(s, scored, opt.ComponentRounds))
	return written, nil
}
