package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// serveEmulator answers the emulator's own endpoints: GET stats,
// violations and log; POST faults (a JSON Faults, {} clears them) and the
// edits a person makes in OneNote (README.md, "Identity, time and
// change", gives each one's source):
//
//   - pages/{id}/delete, pages/{id}/touch, pages/{id}/rename?title=T,
//     pages/{id}/shift?by=1s;
//   - pages/{id}/move?to={sectionId}: the page alone, answers
//     {"id":"<new page id>"};
//   - pages/{id}/move?group=1[&to={sectionId}][&first=1|&after={pageId}][&level=N]:
//     the page with its subpages, to another section or another place in
//     its own, answers {"id":"<new id>","ids":[every page's new id]};
//   - pages/{id}/level?to=N: make the page a page (0) or a subpage (1, 2);
//   - sections/{id}/add?title=T&body=B[&first=1|&after={pageId}][&level=N]: a new
//     page or subpage, answers {"id":"<new page id>"};
//   - sections/{id}/rename?name=N and sectionGroups/{id}/rename?name=N;
//   - sections/{id}/move?to={notebookId or sectionGroupId}: answers
//     {"id":"<section id>","pages":{"<old page id>":"<new page id>"}};
//   - sections/{id}/lock and sections/{id}/unlock.
//
// An edit OneNote would not allow (a page level that breaks the outline)
// answers 409 with the reason; an unknown id or a malformed request 400.
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
	q := r.URL.Query()
	var answer any
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
		err = s.RenamePage(id, q.Get("title"))
	case kind == "pages" && action == "move" && q.Get("group") != "" && q.Get("group") != "0":
		var at Place
		if at, err = placeOf(q); err == nil {
			var ids []string
			if ids, err = s.MovePageGroup(id, q.Get("to"), at); err == nil {
				answer = map[string]any{"id": ids[0], "ids": ids}
			}
		}
	case kind == "pages" && action == "move":
		var newID string
		if newID, err = s.MovePage(id, q.Get("to")); err == nil {
			answer = map[string]string{"id": newID}
		}
	case kind == "pages" && action == "level":
		var level int
		if level, err = strconv.Atoi(q.Get("to")); err == nil {
			err = s.SetPageLevel(id, level)
		}
	case kind == "pages" && action == "shift":
		var d time.Duration
		if d, err = time.ParseDuration(q.Get("by")); err == nil {
			err = s.ShiftTimestamp(id, d)
		}
	case kind == "sections" && action == "add":
		var at Place
		if at, err = placeOf(q); err == nil {
			var newID string
			if newID, err = s.AddPageAt(id, q.Get("title"), q.Get("body"), at); err == nil {
				answer = map[string]string{"id": newID}
			}
		}
	case kind == "sections" && action == "rename":
		err = s.RenameSection(id, q.Get("name"))
	case kind == "sectionGroups" && action == "rename":
		err = s.RenameSectionGroup(id, q.Get("name"))
	case kind == "sections" && action == "move":
		var m SectionMove
		if m, err = s.MoveSection(id, q.Get("to")); err == nil {
			answer = m
		}
	case kind == "sections" && (action == "lock" || action == "unlock"):
		err = s.LockSection(id, action == "lock")
	default:
		http.NotFound(w, r)
		return
	}
	switch {
	case errors.Is(err, ErrBreaksOutline):
		http.Error(w, err.Error(), http.StatusConflict)
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
	case answer != nil:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

// placeOf reads a Place from the first, after and level query
// parameters.
func placeOf(q url.Values) (Place, error) {
	at := Place{First: q.Get("first") == "1" || q.Get("first") == "true", After: q.Get("after")}
	if l := q.Get("level"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil {
			return Place{}, fmt.Errorf("graph emulator: level %q: %w", l, err)
		}
		at.Level = n
	}
	return at, nil
}
