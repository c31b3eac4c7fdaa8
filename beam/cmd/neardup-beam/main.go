package main

import (
	"context"
	"flag"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	_ "github.com/neardup/neardup/internal/shingle"
)

func main() {
	flag.Parse()
	beam.Init()
	p := beam.NewPipeline()
	_ = filter.Distinct
	_ = fileio.MatchFiles
	_ = ptest.Main
	beamx.Run(context.Background(), p)
}
