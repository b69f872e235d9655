package stack

import (
	"fmt"
	"log/slog"
	"sync"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// InProcessWorker is a worker in this process, with its own client.
type InProcessWorker struct {
	worker.Worker
	c    client.Client
	once sync.Once
}

// StartInProcessWorker starts a worker in this process polling queue of
// the dev server at hostPort: the workflows wf, the activities acts and
// the limiter entity, with sessions, as the worker command registers
// them. Its client logs to log (nil discards). Stop it with Stop.
func StartInProcessWorker(hostPort, queue string, wf *workflows.Workflows, acts *activities.Activities, log *slog.Logger) (*InProcessWorker, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c, err := client.Dial(client.Options{HostPort: hostPort, Namespace: "default", Logger: tlog.NewStructuredLogger(log)})
	if err != nil {
		return nil, fmt.Errorf("worker client: %w", err)
	}
	w := worker.New(c, queue, worker.Options{EnableSessionWorker: true})
	wf.Register(w)
	acts.Register(w)
	entity.Register(w, c)
	if err := w.Start(); err != nil {
		c.Close()
		return nil, fmt.Errorf("start worker: %w", err)
	}
	return &InProcessWorker{Worker: w, c: c}, nil
}

// Stop stops the worker and closes its client; stopping again does
// nothing.
func (w *InProcessWorker) Stop() {
	w.once.Do(func() {
		w.Worker.Stop()
		w.c.Close()
	})
}

// ListingFaults make the page listing of chosen sections fail, as a
// section deleted in OneNote does: its ListPagesSection is what
// activities.Hooks.ListPagesSection takes. The zero value fails nothing.
type ListingFaults struct {
	mu     sync.Mutex
	broken map[string]bool
}

// Set makes the listing of section fail (on) or work again.
func (f *ListingFaults) Set(section string, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.broken == nil {
		f.broken = map[string]bool{}
	}
	f.broken[section] = on
}

// ListPagesSection returns the section ID to list: id, or one no section
// has while id's listing is made to fail.
func (f *ListingFaults) ListPagesSection(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.broken[id] {
		return id + "-missing"
	}
	return id
}
