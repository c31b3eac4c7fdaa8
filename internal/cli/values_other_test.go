//go:build !linux

package cli_test

import "testing"

// limitAddressSpace limits the address space on Linux only.
func limitAddressSpace(*testing.T, uint64) {}
