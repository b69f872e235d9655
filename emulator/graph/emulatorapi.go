package graph

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// serveEmulator answers the emulator's own endpoints: GET stats,
// violations and log; POST faults (a JSON Faults, {} clears them), and
// POST pages/{id}/delete or pages/{id}/touch.
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
	var err error
	switch {
	case path == "faults":
		var f Faults
		if err = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&f); err == nil {
			s.SetFaults(f)
		}
	case strings.HasPrefix(path, "pages/") && strings.HasSuffix(path, "/delete"):
		err = s.DeletePage(strings.TrimSuffix(strings.TrimPrefix(path, "pages/"), "/delete"))
	case strings.HasPrefix(path, "pages/") && strings.HasSuffix(path, "/touch"):
		err = s.TouchPage(strings.TrimSuffix(strings.TrimPrefix(path, "pages/"), "/touch"))
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
