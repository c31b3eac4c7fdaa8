// Command prof runs a stage in-process under the CPU profiler:
//
//	go run ./internal/tools/prof -cpuprofile cpu.out shingle --files -j1 DIR > /dev/null
//	go tool pprof -top cpu.out
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/neardup/neardup/internal/cli"
)

func main() {
	cpu := flag.String("cpuprofile", "cpu.out", "write the CPU profile to `FILE`")
	mem := flag.String("memprofile", "", "write an allocation profile to `FILE`")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: prof [-cpuprofile FILE] STAGE [ARGS...]")
		os.Exit(2)
	}
	var stage *cli.Stage
	for _, s := range cli.Stages() {
		if s.Name == args[0] {
			stage = &s
		}
	}
	if stage == nil {
		fmt.Fprintf(os.Stderr, "prof: no stage %q\n", args[0])
		os.Exit(2)
	}
	f, err := os.Create(*cpu)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pprof.StartCPUProfile(f)
	code := cli.Run(*stage, args, os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	f.Close()
	if *mem != "" {
		m, err := os.Create(*mem)
		if err == nil {
			pprof.Lookup("allocs").WriteTo(m, 0)
			m.Close()
		}
	}
	os.Exit(code)
}
