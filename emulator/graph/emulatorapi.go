package graph

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// serveEmulator answers the emulator's own endpoints: GET stats,
// violations and log; POST faults (a JSON Faults, {} clears them),
// pages/{id}/delete, pages/{id}/touch, pages/{id}/rename?title=T,
// pages/{id}/move?to={sectionId} (answers {"id":"<new page id>"}),
// pages/{id}/shift?by=1s, sections/{id}/lock, sections/{id}/unlock and
// sections/{id}/add?title=T&body=B (answers {"id":"<new page id>"}).
func (s *Server) serveEmulator(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		s.serveEmulatorControl(w, r)
		return
	}
	var v any
	switch r.URL.Path {
	case "/_emulator/stats":
		v = s.Stats()
	case "/_emulator/violations":
		v = map[string]any{"violations": s.Violations()}
	case "/_emulator/log":
		v = s.Log()
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func (s *Server) serveEmulatorControl(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/_emulator/")
	kind, rest, _ := strings.Cut(path, "/")
	id, action := rest, ""
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		id, action = rest[:i], rest[i+1:]
	}
	var err error
	switch {
	case path == "faults":
		var f Faults
		if err = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&f); err == nil {
			s.SetFaults(f)
		}
	case kind == "pages" && action == "delete":
		err = s.DeletePage(id)
	case kind == "pages" && action == "touch":
		err = s.TouchPage(id)
	case kind == "pages" && action == "rename":
		err = s.RenamePage(id, r.URL.Query().Get("title"))
	case kind == "pages" && action == "move":
		var newID string
		if newID, err = s.MovePage(id, r.URL.Query().Get("to")); err == nil {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"id": newID})
			return
		}
	case kind == "pages" && action == "shift":
		var d time.Duration
		if d, err = time.ParseDuration(r.URL.Query().Get("by")); err == nil {
			err = s.ShiftTimestamp(id, d)
		}
	case kind == "sections" && action == "add":
		var newID string
		if newID, err = s.AddPage(id, r.URL.Query().Get("title"), r.URL.Query().Get("body")); err == nil {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"id": newID})
			return
		}
	case kind == "sections" && (action == "lock" || action == "unlock"):
		err = s.LockSection(id, action == "lock")
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
