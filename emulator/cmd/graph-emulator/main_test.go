package main

import (
	"io"
	"testing"
	"time"

	"github.com/notebridge/notebridge/emulator/graph"
)

func TestFlagsBuildConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr bool
		check   func(t *testing.T, o options, cfg graph.Config)
	}{
		{name: "defaults", check: func(t *testing.T, o options, cfg graph.Config) {
			if cfg.Limits.User.Windows[0] != (graph.Window{N: 120, Duration: time.Minute}) || cfg.Limits.App.Concurrency != 20 {
				t.Errorf("limits %+v", cfg.Limits)
			}
			if o.addr != "127.0.0.1:8081" || cfg.ScopeHeader != graph.ScopeHeaderNone {
				t.Errorf("addr %q scope header %v", o.addr, cfg.ScopeHeader)
			}
		}},
		{name: "knobs", args: []string{"-scope-header", "full", "-time-scale", "60", "-hidden-limits", "0.7", "-user-per-hour", "50", "-fault-5xx", "0.1", "-library-limit-users", "a,b"},
			check: func(t *testing.T, o options, cfg graph.Config) {
				if cfg.ScopeHeader != graph.ScopeHeaderFull || cfg.TimeScale != 60 || cfg.HiddenLimitFactor != 0.7 || cfg.Limits.User.Windows[1].N != 50 {
					t.Errorf("config %+v", cfg)
				}
				if o.faults.ServerErrorRate != 0.1 || len(o.faults.LibraryLimitUsers) != 2 {
					t.Errorf("faults %+v", o.faults)
				}
			}},
		{name: "bad scope header", args: []string{"-scope-header", "loud"}, wantErr: true},
		{name: "unknown flag", args: []string{"-nope"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseFlags(tc.args, io.Discard)
			var cfg graph.Config
			if err == nil {
				cfg, err = o.config(nil)
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, wantErr %v", err, tc.wantErr)
			}
			if tc.check != nil {
				tc.check(t, o, cfg)
			}
		})
	}
}
