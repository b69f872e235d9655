// Command worker runs Note Bridge's Temporal worker: the migration
// workflows, their activities and the Graph limiter entity (see
// internal/workerapp, and -help for the flags).
package main

import (
	"os"

	"github.com/notebridge/notebridge/internal/workerapp"
)

func main() { os.Exit(workerapp.Main(os.Args[1:], workerapp.Extension{})) }
