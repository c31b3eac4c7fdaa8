package verify

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/store"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/vector"
)

// MeasureEuclidean names the Euclidean distance of vectors in the header
// (verify --euclidean).
const MeasureEuclidean = "euclidean"

// verify --euclidean keeps the pairs whose vectors are within the
// threshold, a distance, and scores each by 1/(1 + d), d the exact
// distance: a similarity in (0, 1], larger the nearer, as keep --pairs and
// cluster read scores (a distance would order them the wrong way, as keep
// says of verify --hamming). The header says measure=euclidean,
// threshold=1/(1 + R) (the least score written) and distance=R.

// checkEuclidean checks the threshold of --euclidean, a distance. Not
// given (ThresholdFromBand), it is the distance= of band's header
// (bandDistance).
func (o *Options) checkEuclidean() error {
	if !o.ThresholdFromBand && !(o.Threshold > 0) {
		return status.Usagef("--euclidean keeps the pairs within --threshold R, a distance: give an R above 0")
	}
	return nil
}

// bandDistance sets opt.Threshold, when not given, to the distance=R of
// the band header among headers (band --distance R), and says so on
// stderr; without one it is a usage error.
func bandDistance(opt *Options, headers []stream.HeaderAt, stderr io.Writer) error {
	if !opt.ThresholdFromBand {
		return nil
	}
	for _, h := range headers {
		v, ok := h.Header.Get(record.DistanceKey)
		if h.Header.Stage != "band" || !ok {
			continue
		}
		d, err := strconv.ParseFloat(v, 64)
		if err != nil || !(d > 0) || math.IsInf(d, 0) {
			return record.Errorf(h.Pos, "band's header has %s=%s: want a distance above 0", record.DistanceKey, v)
		}
		opt.Threshold = d
		fmt.Fprintf(stderr, "verify: distance %g from band's header\n", d)
		return nil
	}
	return status.Usagef("--euclidean keeps the pairs within --threshold R, a distance: give an R above 0 (band's header names none: band --distance R would)")
}

// euclideanScore is the score of a pair at distance d.
func euclideanScore(d float64) float64 { return 1 / (1 + d) }

func euclideanHeader(distance float64) record.Header {
	return record.NewHeader("verify", "measure", MeasureEuclidean,
		"threshold", strconv.FormatFloat(euclideanScore(distance), 'g', 6, 64),
		"containment", "no", "distance", strconv.FormatFloat(distance, 'g', -1, 64))
}

type euclideanWorker struct {
	opt *Options
	st  *store.Store
}

func (w *euclideanWorker) Process(c *stream.Chunk, r *stream.Result) {
	source := "the documents (" + strings.Join(w.opt.Documents.Paths, " ") + ")"
	c.Lines(r, w.opt.SkipBad, func(line []byte, _ int64) error {
		a, b, ia, ib, err := lookupPair(line, w.st, source)
		if err != nil {
			return err
		}
		if d := vector.DistanceBits(w.st.Values(ia), w.st.Values(ib)); d <= w.opt.Threshold {
			r.Out = record.AppendScored(r.Out, a, b, euclideanScore(d), 0, 0, false)
		}
		return nil
	})
}
