// Package graphload drives Graph request load through the limiter entity,
// for the entity's integration tests and its benchmark: requester
// workflows that make N Graph requests each under permits, the one-call
// Graph activity they run, and, for comparison, a naive limiter design
// (one signal-with-start per message, one signal handled per workflow
// task, one blocking send per grant).
package graphload

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// GraphGetActivity is the registered name of Activities.GraphGet.
const GraphGetActivity = "GraphGet"

// GraphGetManyActivity is the registered name of Activities.GraphGetMany.
const GraphGetManyActivity = "GraphGetMany"

// Activities make one Graph request each. Tokens stay here, out of
// workflow history: workflows pass only the user.
type Activities struct {
	BaseURL string
	Tokens  map[string]string
	HTTP    *http.Client
}

// Result is what one Graph request observed.
type Result struct {
	Outcome limiter.Outcome `json:"outcome"`
}

// LimiterOutcome implements entity.Observed.
func (r Result) LimiterOutcome() limiter.Outcome { return r.Outcome }

// GraphGet lists the user's notebooks: exactly one Graph request.
func (a *Activities) GraphGet(ctx context.Context, user string) (Result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.BaseURL+"/v1.0/me/onenote/notebooks?$select=id", nil)
	if err != nil {
		return Result{}, err
	}
	req.Header.Set("Authorization", "Bearer "+a.Tokens[user])
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("graph get: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	o := limiter.Outcome{Status: resp.StatusCode}
	var ge struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &ge) == nil {
		o.Code = ge.Error.Code
	}
	if resp.StatusCode != http.StatusOK {
		return Result{}, entity.OutcomeError(fmt.Errorf("graph answered %d %s", resp.StatusCode, o.Code), "GraphError", o, false)
	}
	return Result{Outcome: o}, nil
}

// GetManyInput is GraphGetMany's argument.
type GetManyInput struct {
	User string `json:"user"`
	N    int    `json:"n"`
}

// GraphGetMany makes N Graph requests one after another under one permit
// of cost N, as a page's resource downloads do, and stops at the first
// failure: the requests it did not make are the outcome's Unsent.
func (a *Activities) GraphGetMany(ctx context.Context, in GetManyInput) (Result, error) {
	for i := range in.N {
		r, err := a.GraphGet(ctx, in.User)
		if err != nil {
			return r, err
		}
		if i == in.N-1 {
			return r, nil
		}
	}
	return Result{Outcome: limiter.Outcome{Status: http.StatusOK}}, nil
}

// Input is one requester's load.
type Input struct {
	Resource string       `json:"resource"`
	App      string       `json:"app"`
	User     string       `json:"user"`
	N        int          `json:"n"`
	Spec     limiter.Spec `json:"spec"`
	// Users, when set, replaces User: the requester's calls go round
	// these users (a requester standing for many users' page workers).
	Users []string `json:"users,omitempty"`
	// Workers is how many calls run at once (0: one after another).
	Workers int `json:"workers,omitempty"`
	// Shards, SignalPerAsk and AskAhead are the client's
	// (entity.ClientOptions).
	Shards       int  `json:"shards,omitempty"`
	SignalPerAsk bool `json:"signalPerAsk,omitempty"`
	AskAhead     int  `json:"askAhead,omitempty"`
	// PermitsOnly asks for each permit and releases it at once, with no
	// Graph call: the load is the limiter protocol alone (ask, grant,
	// release), so its throughput is the limiter's, not the activities'.
	PermitsOnly bool `json:"permitsOnly,omitempty"`
	// Resources, when set, has each worker migrate pages as the section
	// workflow does (workflows/page.go): a content permit of one request,
	// then one divisible permit (cost k, MinCost 1) for the page's k
	// resources, again for what a partial grant left; page i has
	// Resources[i%len(Resources)] resources. N still counts Graph requests.
	Resources []int `json:"resources,omitempty"`
}

// Output is what one requester did.
type Output struct {
	Done int `json:"done"`
	// Waits is each request's wait from ask to grant (workflow time).
	Waits []time.Duration    `json:"waits"`
	Stats entity.ClientStats `json:"stats"`
}

// Requester makes N Graph requests, each under a permit from the limiter
// entity: one after another, or Workers at a time (or, with PermitsOnly,
// takes and gives back N permits).
func Requester(ctx workflow.Context, in Input) (Output, error) {
	c := entity.NewClient(ctx, entity.ClientOptions{Resource: in.Resource, App: in.App, Spec: &in.Spec, Shards: in.Shards, SignalPerAsk: in.SignalPerAsk, AskAhead: in.AskAhead})
	var out Output
	users := in.Users
	if len(users) == 0 {
		users = []string{in.User}
	}
	next, page := 0, 0
	var failed error
	call := func(ctx workflow.Context) {
		for next < in.N && failed == nil {
			user := users[next%len(users)]
			next++
			if in.PermitsOnly {
				p, err := c.Acquire(ctx, entity.AskOptions{User: user, Lane: limiter.Background})
				if err != nil {
					failed = err
					return
				}
				c.Release(ctx, p, limiter.Outcome{Status: 200})
				out.Done++
				out.Waits = append(out.Waits, p.Waited)
				continue
			}
			if len(in.Resources) > 0 {
				left := in.N - next + 1 // this page's requests included, as the section counts
				k := min(in.Resources[page%len(in.Resources)], in.N-next)
				page++
				next += k
				if err := migratePage(ctx, c, user, k, left, &out); err != nil {
					failed = err
					return
				}
				continue
			}
			var r Result
			st, err := c.Call(ctx, entity.Call{
				Ask:      entity.AskOptions{User: user, Lane: limiter.Background},
				Activity: GraphGetActivity, Args: []any{user},
				Options: workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second},
				Backoff: 200 * time.Millisecond,
			}, &r)
			if err != nil {
				failed = err
				return
			}
			out.Done++
			out.Waits = append(out.Waits, st.Waited)
		}
	}
	if in.Workers <= 1 {
		call(ctx)
	} else {
		wg := workflow.NewWaitGroup(ctx)
		for range in.Workers {
			wg.Add(1)
			workflow.Go(ctx, func(ctx workflow.Context) { defer wg.Done(); call(ctx) })
		}
		wg.Wait(ctx)
	}
	if failed != nil {
		return out, failed
	}
	if err := c.Flush(ctx); err != nil {
		return out, err
	}
	out.Stats = c.Stats
	return out, nil
}

// migratePage makes a page's requests as the section workflow does: one
// for its content, then k resources under divisible permits; left is the
// requester's remaining requests (AskOptions.Remaining).
func migratePage(ctx workflow.Context, c *entity.Client, user string, k, left int, out *Output) error {
	opts := workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second}
	var r Result
	st, err := c.Call(ctx, entity.Call{
		Ask:      entity.AskOptions{User: user, Lane: limiter.Background, Remaining: left},
		Activity: GraphGetActivity, Args: []any{user}, Options: opts, Backoff: 200 * time.Millisecond,
	}, &r)
	if err != nil {
		return err
	}
	out.Done++
	out.Waits = append(out.Waits, st.Waited)
	all := k
	for k > 0 {
		granted := k
		st, err := c.Call(ctx, entity.Call{
			Ask:      entity.AskOptions{User: user, Lane: limiter.Background, Cost: k, MinCost: 1, Remaining: left - 1 - (all - k)},
			Activity: GraphGetManyActivity,
			Args:     []any{GetManyInput{User: user, N: k}},
			ArgsFor: func(p entity.Permit) []any {
				granted = min(k, max(1, p.Cost))
				return []any{GetManyInput{User: user, N: granted}}
			},
			Options: opts, Backoff: 200 * time.Millisecond,
		}, &r)
		if err != nil {
			return err
		}
		out.Done += granted
		out.Waits = append(out.Waits, st.Waited)
		k -= granted
	}
	return nil
}

// Register registers the limiter entity, the requesters (ours and the
// naive design) and their activities on w.
func Register(w worker.Worker, c client.Client, a *Activities) {
	entity.Register(w, c)
	w.RegisterWorkflow(Requester)
	w.RegisterWorkflow(SoakRequester)
	w.RegisterActivityWithOptions(a.GraphGet, activity.RegisterOptions{Name: GraphGetActivity})
	w.RegisterActivityWithOptions(a.GraphGetMany, activity.RegisterOptions{Name: GraphGetManyActivity})
	registerNaive(w, c)
}
