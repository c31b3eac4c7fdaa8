package cli

import (
	"github.com/neardup/neardup/internal/lsh"
	"github.com/urfave/cli/v2"
)

// hammingOptions reads --tables and --blocks for distance k.
func hammingOptions(c *cli.Context, k int) (*lsh.HammingOptions, error) {
	if k < 0 {
		return nil, usagef("--hamming %d: want a distance of 0 bits or more", k)
	}
	h := &lsh.HammingOptions{K: k, Blocks: c.Int("blocks")}
	switch c.String("tables") {
	case "pigeonhole":
		if h.Blocks != 0 && h.Blocks != k+1 {
			return nil, usagef("--tables pigeonhole is %d blocks for distance %d; --blocks %d asks for another scheme", k+1, k, h.Blocks)
		}
		h.Blocks = k + 1
	case "manku":
		if c.IsSet("blocks") && h.Blocks <= k {
			return nil, usagef("--blocks %d: want more blocks than the distance %d", h.Blocks, k)
		}
	default:
		return nil, usagef("--tables %q: want manku or pigeonhole", c.String("tables"))
	}
	return h, nil
}
