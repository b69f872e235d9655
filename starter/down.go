package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// topology is how the Temporal server at an address runs, as far as the
// address tells, and the command that starts it again (a line that
// pastes, its note a shell comment), or what to do when there is none.
type topology struct {
	name, restart string
}

// topology tells the topology from the address's port: the cluster's
// (NOTEBRIDGE_CLUSTER_PORT, 17233, scripts/cluster.sh), the dev
// server's and compose's (7233), else a server of its own.
func (t *temporalFlags) topology() topology {
	_, port, err := net.SplitHostPort(t.address)
	if err != nil {
		port = ""
	}
	switch port {
	case cmp.Or(t.getenv("NOTEBRIDGE_CLUSTER_PORT"), "17233"):
		return topology{name: "the cluster of `make cluster`",
			restart: "make cluster   # scripts/cluster.sh start: starts PostgreSQL, the Temporal server and the Web UI where they are not running"}
	case "7233":
		return topology{name: "the dev server or docker compose",
			restart: "bin/temporal server start-dev   # with docker compose: docker compose up -d"}
	}
	return topology{name: "the Temporal server at " + t.address,
		restart: "start the Temporal server at " + t.address + " (and its database) with the service manager that runs it"}
}

// unreachable reports whether err is Temporal not answering in time or
// at all, rather than an answer.
func unreachable(err error) bool {
	var un *serviceerror.Unavailable
	var de *serviceerror.DeadlineExceeded
	if errors.As(err, &un) || errors.As(err, &de) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if s, ok := status.FromError(e); ok && (s.Code() == codes.Unavailable || s.Code() == codes.DeadlineExceeded) {
			return true
		}
	}
	return false
}

// down names the component that is down when a call to Temporal failed
// with err: the Temporal server (its health check gets no answer
// either), or its database (the server answers its health check, not a
// call that reads the database); "" when err is an answer.
func (t *temporalFlags) down(ctx context.Context, tc client.Client, err error) string {
	if !unreachable(err) {
		return ""
	}
	top := t.topology()
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, herr := tc.CheckHealth(hctx, &client.CheckHealthRequest{}); herr != nil {
		return fmt.Sprintf("down: the Temporal server at %s (%s) does not answer; start it again: %s", t.address, top.name, top.restart)
	}
	return fmt.Sprintf("down: the database of the Temporal server at %s (%s): the server answers its health check, not a call that "+
		"reads its database (PostgreSQL in the cluster and compose); start it again: %s", t.address, top.name, top.restart)
}
