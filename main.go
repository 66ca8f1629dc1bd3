// Command kvtier tiers LLM KV-cache blocks between DRAM and CXL memory.
package main

import (
	"os"

	"github.com/kvtier/kvtier/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
