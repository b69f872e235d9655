package graphload

import (
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// SoakInput asks for Permits permits in batches of Batch, released at
// once: the fastest way to push a limiter through many continue-as-new
// runs.
type SoakInput struct {
	Resource string       `json:"resource"`
	App      string       `json:"app"`
	User     string       `json:"user"`
	Permits  int          `json:"permits"`
	Batch    int          `json:"batch"`
	Spec     limiter.Spec `json:"spec"`
}

// SoakRequester takes and returns permits until it has had Permits of
// them. It continues as new every 50 batches to keep its own history short.
func SoakRequester(ctx workflow.Context, in SoakInput) (int, error) {
	c := entity.NewClient(ctx, entity.ClientOptions{Resource: in.Resource, App: in.App, Spec: &in.Spec})
	done := 0
	for batches := 0; done < in.Permits; batches++ {
		if batches == 50 {
			if err := c.Flush(ctx); err != nil {
				return done, err
			}
			in.Permits -= done
			return done, workflow.NewContinueAsNewError(ctx, SoakRequester, in)
		}
		n := min(in.Batch, in.Permits-done)
		asks := make([]entity.AskOptions, n)
		for i := range asks {
			asks[i] = entity.AskOptions{User: in.User, Lane: limiter.Background}
		}
		ps, err := c.AcquireMany(ctx, asks)
		if err != nil {
			return done, err
		}
		for _, p := range ps {
			c.Release(ctx, p, limiter.Outcome{Status: 200})
		}
		done += n
	}
	return done, c.Flush(ctx)
}
