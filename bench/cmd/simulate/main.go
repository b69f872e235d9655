// Command simulate runs every limiter scenario under every policy on the
// discrete-event simulator and writes a Markdown report and PNG plots.
//
//	cd bench && go run ./cmd/simulate -out results
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/notebridge/notebridge/limiter/sim"
)

func main() {
	out := flag.String("out", "results", "directory for report.md and the PNG plots")
	only := flag.String("scenario", "", "run only this scenario")
	variants := flag.Int("variants", 0, "run the hidden-limit variants over this many seeds instead (writes limiter-hidden-variants.md)")
	properties := flag.Int("properties", 0, "run this many generated samples against the targets instead (writes limiter-properties.md and .tsv)")
	size := flag.String("size", "full", "the generated samples' size: small (go test -short's) or full")
	jobs := flag.Int("jobs", 2, "samples simulated at once")
	flag.Parse()
	if *properties > 0 {
		sz := sim.Full
		if *size == sim.Small.Name {
			sz = sim.Small
		}
		if err := runProperties(*out, *properties, sz, *jobs); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *variants > 0 {
		if err := runVariants(*out, *variants); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(*out, *only); err != nil {
		log.Fatal(err)
	}
}

func run(out, only string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	var rep report
	start := time.Now()
	for _, sc := range sim.Scenarios() {
		if only != "" && sc.Name != only {
			continue
		}
		var results []*sim.Result
		for _, p := range sim.Policies {
			t := time.Now()
			r, err := sim.Run(sc.Config, p)
			if err != nil {
				return fmt.Errorf("simulate: %s/%s: %w", sc.Name, p, err)
			}
			log.Printf("%-12s %-11s %6d sends  %s simulated in %s", sc.Name, p, r.Sent,
				r.Completion.Round(time.Minute), time.Since(t).Round(time.Millisecond))
			results = append(results, r)
		}
		png := filepath.Join(out, sc.Name+".png")
		if err := plotScenario(png, sc, results); err != nil {
			return fmt.Errorf("simulate: plot %s: %w", sc.Name, err)
		}
		rep.add(sc, results)
	}
	md := rep.markdown(time.Since(start))
	fmt.Print(md)
	if err := os.WriteFile(filepath.Join(out, "report.md"), []byte(md), 0o644); err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	if rep.failed > 0 {
		return fmt.Errorf("simulate: %d check(s) failed", rep.failed)
	}
	return nil
}
