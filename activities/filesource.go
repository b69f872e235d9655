package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/onestore"
	"github.com/notebridge/notebridge/report"
)

// The file source: a notebook read from OneNote's own files (a .onepkg
// package, a .onetoc2 table of contents, a .one section or a notebook's
// folder) by package onestore, on the worker, instead of through Graph.
// Its three activities stand where Graph's tree, listing and content
// requests stand; everything after the content (the converter, the Notion
// writer, the rows, the loss report) is the Graph path's. They send no
// Graph request and take no limiter permit.

// Registered names of the file source's activities.
const (
	ReadFileTreeName     = "ReadFileTree"
	ListFilePagesName    = "ListFilePages"
	FetchFileContentName = "FetchFileContent"
)

// FileKey is the identity a file source gives a GUID it reads (a page's
// NotebookManagementEntityGuid, a section's or table of contents'
// guidFile): lower case, without braces. A page's is the GUID Graph shows
// in its links.oneNoteClientUrl (page-id=…), which the Graph path keeps
// as the row's link ID.
func FileKey(g onestore.GUID) string {
	return strings.ToLower(strings.Trim(g.String(), "{}"))
}

// ReadFileTreeInput asks for the tree of the notebook in File.
type ReadFileTreeInput struct {
	// File is an absolute path the workers can read.
	File string `json:"file"`
}

// ReadFileTree opens the notebook in the file and returns its tree:
// sections and section groups in the order of its tables of contents,
// identified by their GUIDs (see FileKey). The recycle bin is left out; a
// password-protected section is listed, and fails when its pages are
// listed.
func (a *Activities) ReadFileTree(ctx context.Context, in ReadFileTreeInput) (NotebookTree, error) {
	f, release, err := a.files.open(in.File)
	if err != nil {
		return NotebookTree{}, err
	}
	defer release()
	return f.tree, nil
}

// ListFilePagesInput asks for up to Top pages (all when 0) of one
// section of a file, after the first Skip.
type ListFilePagesInput struct {
	File      string `json:"file"`
	SectionID string `json:"sectionID"`
	Skip      int    `json:"skip,omitempty"`
	Top       int    `json:"top,omitempty"`
}

// ListFilePagesResult is one batch of a section's listing, in section
// order; Done is set when it holds the section's last page.
type ListFilePagesResult struct {
	Pages []PageMeta `json:"pages"`
	Done  bool       `json:"done"`
}

// ListFilePages lists a section's pages in order, a batch at a time: ID
// and link ID (both the page's GUID, see FileKey), title, level, order
// and times. A password-protected section is a FileProtected error, a
// section that cannot be read a FileUnreadable one; both name the
// section's file.
func (a *Activities) ListFilePages(ctx context.Context, in ListFilePagesInput) (ListFilePagesResult, error) {
	f, release, err := a.files.open(in.File)
	if err != nil {
		return ListFilePagesResult{}, err
	}
	defer release()
	s, err := f.section(in.SectionID)
	if err != nil {
		return ListFilePagesResult{}, err
	}
	from := min(max(0, in.Skip), len(s.Pages))
	to := len(s.Pages)
	if in.Top > 0 {
		to = min(to, from+in.Top)
	}
	res := ListFilePagesResult{Done: to == len(s.Pages)}
	for _, p := range s.Pages[from:to] {
		res.Pages = append(res.Pages, filePageMeta(p))
	}
	return res, nil
}

// filePageMeta is a file page's PageMeta. A page without a modification
// time takes its creation time, so running the import again finds it
// unchanged.
func filePageMeta(p onestore.PageInfo) PageMeta {
	id := FileKey(p.GUID)
	m := PageMeta{ID: id, LinkID: id, Title: p.Title, Level: p.Level, Order: p.Order}
	mod := p.Modified
	if mod.IsZero() {
		mod = p.Created
	}
	m.LastModified = mod.UTC().Format(timeFormat)
	if !p.Created.IsZero() {
		m.Created = p.Created.UTC().Format(timeFormat)
	}
	return m
}

// FetchFileContentInput asks to stage one page of a file.
type FetchFileContentInput struct {
	File      string         `json:"file"`
	SectionID string         `json:"sectionID"`
	PageID    string         `json:"pageID"`
	Key       StageKey       `json:"key"`
	Options   ContentOptions `json:"options,omitzero"`
}

// FileContentMeta is what a workflow learns of a file page: the content's
// metadata (no resources to fetch: they are staged already) and the
// resources that cannot be migrated.
type FileContentMeta struct {
	ContentMeta
	Lost []LostResource `json:"lost,omitempty"`
}

// FetchFileContent renders a page of the file as the HTML Graph returns
// (onestore.Page.HTML) with its ink as InkML, and stages both on this
// worker with the binaries the converter will ask for (images and files;
// those an option skips are not staged), as FetchContent and
// FetchResources stage a Graph page. A binary over the worker's or
// Notion's size limit is reported lost. What the reader could not decode,
// and a conflict page, are staged as loss entries that WritePage adds to
// the page's report.
func (a *Activities) FetchFileContent(ctx context.Context, in FetchFileContentInput) (FileContentMeta, error) {
	f, release, err := a.files.open(in.File)
	if err != nil {
		return FileContentMeta{}, err
	}
	defer release()
	s, err := f.section(in.SectionID)
	if err != nil {
		return FileContentMeta{}, err
	}
	guid, err := onestore.ParseGUID(in.PageID)
	if err != nil {
		return FileContentMeta{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("page %q of %s: not a page GUID", in.PageID, in.File), failure.FileUnreadable, err)
	}
	p, err := s.Page(guid)
	if err != nil {
		return FileContentMeta{}, fileError(in.File, err)
	}
	pc := onenote.PageContent{HTML: p.HTML()}
	if !in.Options.SkipInk {
		pc.InkML = p.InkML()
	}
	var meta FileContentMeta
	meta.Bytes, meta.SHA256 = len(pc.HTML)+len(pc.InkML), contentHash(pc)
	if err := a.stageContent(in.Key, pc); err != nil {
		return meta, temporal.NewNonRetryableApplicationError("staging page content: "+err.Error(), failure.Staging, err)
	}
	if err := a.stageSourceLosses(in.Key, readerEntries(p)); err != nil {
		return meta, temporal.NewNonRetryableApplicationError("staging page losses: "+err.Error(), failure.Staging, err)
	}
	conv, err := convert.Page(pc.HTML, in.Options.Convert(pc.InkML))
	if err != nil {
		// The write step reports it.
		activity.GetLogger(ctx).Warn("File page does not convert", "page", in.PageID, "error", err)
		return meta, nil
	}
	meta.Title, meta.Links = conv.Title, len(conv.Links)
	limit, byNotion := a.resourceLimit(ctx)
	for _, r := range conv.Resources {
		res := p.Resource(r.ID)
		switch {
		case res == nil:
			meta.Lost = append(meta.Lost, LostResource{ID: r.ID, Reason: "the file holds no data for it"})
			continue
		case res.Size > limit:
			reason := fmt.Sprintf("it is larger than the %d-byte limit of this worker (-max-resource-bytes)", limit)
			if byNotion {
				reason = fmt.Sprintf("it is larger than the Notion workspace allows for one file (%d bytes)", limit)
			}
			meta.Lost = append(meta.Lost, LostResource{ID: r.ID, Reason: reason})
			continue
		}
		err := writeWith(a.resourcePath(in.Key, r.ID), func(w io.Writer) error {
			_, err := io.Copy(w, res.Open())
			return err
		})
		if err != nil {
			return meta, temporal.NewNonRetryableApplicationError("staging resource: "+err.Error(), failure.Staging, err)
		}
	}
	return meta, nil
}

// readerEntries are the report entries of what the reader saw on the
// page but could not decode (kinds from the converter's set), and of a
// conflict page.
func readerEntries(p *onestore.Page) []report.Entry {
	var out []report.Entry
	for _, l := range p.Losses {
		out = append(out, report.Entry{Kind: l.Kind, Severity: report.Lost, What: l.What + " (not decoded from the file)", Count: 1})
	}
	if p.Info.Conflict {
		out = append(out, report.Entry{Kind: string(convert.LossConflictPage), Severity: report.Approximated,
			What: "a conflict page: OneNote kept this version beside the page after a sync conflict; it is migrated as a page of its own", Count: 1})
	}
	return out
}

// sourceLossesPath is where a page's source losses are staged.
func (a *Activities) sourceLossesPath(k StageKey) string {
	return filepath.Join(a.dir(k), "source-losses.json")
}

// stageSourceLosses stages the losses the source saw (none: no file).
func (a *Activities) stageSourceLosses(k StageKey, es []report.Entry) error {
	if len(es) == 0 {
		if err := os.Remove(a.sourceLossesPath(k)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.Marshal(es)
	if err != nil {
		return err
	}
	return writeFile(a.sourceLossesPath(k), b)
}

// stagedSourceLosses reads the losses a source staged for the page (none
// for a Graph page).
func (a *Activities) stagedSourceLosses(k StageKey) ([]report.Entry, error) {
	b, err := os.ReadFile(a.sourceLossesPath(k))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var es []report.Entry
	return es, json.Unmarshal(b, &es)
}

// fileError types an error of the reader: a password-protected section
// is FileProtected (its section is skipped and named), anything else
// FileUnreadable. Neither is retried: reading the file again gives the
// same answer.
func fileError(file string, err error) error {
	if errors.Is(err, onestore.ErrEncrypted) {
		msg := err.Error()
		if !strings.HasPrefix(msg, file) {
			msg += " (in " + file + ")"
		}
		return temporal.NewNonRetryableApplicationError(msg, failure.FileProtected, err)
	}
	return temporal.NewNonRetryableApplicationError(readingText(file, err), failure.FileUnreadable, err)
}

// readingText says that reading file failed with err, naming the file
// once: the reader's errors start with the file (or, for a section of a
// package, "<package>: <section file>") when they know it.
func readingText(file string, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, file+": ") {
		return "reading " + msg
	}
	return "reading " + file + ": " + msg
}

// maxOpenFiles is how many notebooks a worker keeps open.
const maxOpenFiles = 4

// fileCache keeps the notebooks a worker read last open (a package is
// extracted once, not once per page), at most maxOpenFiles of them; the
// least recently used one not in use is closed to make room. A file
// changed on disk since it was opened is opened again.
type fileCache struct {
	// root, when set, is the folder every file must be in (ImportDir).
	root  string
	mu    sync.Mutex
	files []*openFile
	clock uint64
}

// openFile is an open notebook and what the activities look up in it.
type openFile struct {
	path     string
	size     int64
	mod      time.Time
	nb       *onestore.Notebook
	tree     NotebookTree
	sections map[string]*onestore.Section
	refs     int
	used     uint64
}

// open returns the notebook at path, opening it if it is not open, and
// a release to call once done with it.
func (c *fileCache) open(path string) (*openFile, func(), error) {
	if !filepath.IsAbs(path) {
		return nil, nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("file %q is not an absolute path: give the path the workers read it at", path), failure.FileUnreadable, nil)
	}
	if err := c.inRoot(path); err != nil {
		return nil, nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		host, _ := os.Hostname()
		return nil, nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"file %s cannot be read on worker %s (%v): the file must be at that path on every worker "+
				"(a local path on the dev setup, a mounted volume under compose and the cluster: see docs/file-import.md)",
			path, host, err), failure.FileUnreadable, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	kept := c.files[:0]
	var hit *openFile
	for _, f := range c.files {
		switch {
		case f.path != path:
		case f.size == st.Size() && f.mod.Equal(st.ModTime()):
			hit = f
		case f.refs == 0:
			// Changed on disk since it was opened, and no longer in
			// use: closed. One in use is closed once released and
			// least recently used.
			_ = f.nb.Close()
			continue
		default:
			f.used = 0
		}
		kept = append(kept, f)
	}
	c.files = kept
	if hit != nil {
		hit.refs++
		hit.used = c.clock
		return hit, c.releaser(hit), nil
	}
	nb, err := onestore.Open(path)
	if err != nil {
		return nil, nil, temporal.NewNonRetryableApplicationError(readingText(path, err), failure.FileUnreadable, err)
	}
	f := &openFile{path: path, size: st.Size(), mod: st.ModTime(), nb: nb, refs: 1, used: c.clock}
	f.tree, f.sections = fileTree(nb, path)
	c.evict()
	c.files = append(c.files, f)
	return f, c.releaser(f), nil
}

// inRoot refuses a path outside the import folder, links resolved (a
// link inside it to a file outside is outside).
func (c *fileCache) inRoot(path string) error {
	if c.root == "" {
		return nil
	}
	resolve := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	rel, err := filepath.Rel(resolve(c.root), resolve(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"file %s is outside this worker's import folder %s (-import-dir): put the file there and give its path there",
			path, c.root), failure.FileUnreadable, nil)
	}
	return nil
}

// evict closes least recently used notebooks not in use until there is
// room for one more.
func (c *fileCache) evict() {
	for len(c.files) >= maxOpenFiles {
		lru := -1
		for i, f := range c.files {
			if f.refs == 0 && (lru < 0 || f.used < c.files[lru].used) {
				lru = i
			}
		}
		if lru < 0 {
			return // all in use: keep them, and one more
		}
		_ = c.files[lru].nb.Close()
		c.files = append(c.files[:lru], c.files[lru+1:]...)
	}
}

func (c *fileCache) releaser(f *openFile) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			f.refs--
			c.mu.Unlock()
		})
	}
}

// close closes every notebook.
func (c *fileCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, f := range c.files {
		errs = append(errs, f.nb.Close())
	}
	c.files = nil
	return errors.Join(errs...)
}

// section returns the section with key id, or the typed error that says
// why it cannot be read.
func (f *openFile) section(id string) (*onestore.Section, error) {
	s := f.sections[id]
	if s == nil {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s has no section %q (was the file replaced by another notebook?)", f.path, id), failure.FileUnreadable, nil)
	}
	if s.Err != nil {
		return nil, fileError(f.path, s.Err)
	}
	return s, nil
}

// fileTree is the notebook's tree and its sections by key. A section or
// group is keyed by its file's GUID (FileKey); one without a GUID (its
// header could not be read), or repeating one already seen (a copied
// file), by a hash of its path in the notebook.
func fileTree(nb *onestore.Notebook, path string) (NotebookTree, map[string]*onestore.Section) {
	sections := map[string]*onestore.Section{}
	seen := map[string]bool{}
	key := func(g onestore.GUID, rel string) string {
		k := FileKey(g)
		if g.IsZero() || seen[k] {
			sum := sha256.Sum256([]byte(rel))
			k = "path-" + hex.EncodeToString(sum[:8])
		}
		seen[k] = true
		return k
	}
	var walk func(g *onestore.Group, rel string) ([]TreeNode, []GroupNode)
	walk = func(g *onestore.Group, rel string) ([]TreeNode, []GroupNode) {
		var ts []TreeNode
		var gs []GroupNode
		for _, s := range g.Sections {
			k := key(s.GUID, rel+"/"+s.Name+".one")
			sections[k] = s
			ts = append(ts, TreeNode{ID: k, Name: s.Name})
		}
		for _, sub := range g.Groups {
			r := rel + "/" + sub.Name
			node := GroupNode{ID: key(sub.GUID, r), Name: sub.Name}
			node.Sections, node.SectionGroups = walk(sub, r)
			gs = append(gs, node)
		}
		return ts, gs
	}
	t := NotebookTree{Name: nb.Name}
	t.ID = FileKey(nb.GUID)
	if nb.GUID.IsZero() {
		sum := sha256.Sum256([]byte(filepath.Base(path)))
		t.ID = "file-" + hex.EncodeToString(sum[:8])
	}
	seen[t.ID] = true
	t.Sections, t.SectionGroups = walk(&nb.Group, "")
	return t, sections
}

// FileListing is what a dry run of a file import shows: the notebook's
// sections in order, with their groups, and each section's pages with
// their counts of images, files and ink. It is read on the machine that
// asks, with the identities the workers give (see ReadFileTree).
type FileListing struct {
	File       string               `json:"file"`
	NotebookID string               `json:"notebookId"`
	Notebook   string               `json:"notebook"`
	Sections   []FileSectionListing `json:"sections"`
	Pages      int                  `json:"pages"`
}

// FileSectionListing is one section of a FileListing. Groups are the
// section groups it sits in, from the notebook down; Error says why it
// cannot be read (its pages are then not listed).
type FileSectionListing struct {
	ID     string            `json:"id"`
	Name   string            `json:"name"`
	Groups []string          `json:"groups,omitempty"`
	Error  string            `json:"error,omitempty"`
	Locked bool              `json:"locked,omitempty"`
	Pages  []FilePageListing `json:"pages"`
}

// FilePageListing is one page of a FileSectionListing.
type FilePageListing struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Level    int    `json:"level"`
	Order    int    `json:"order"`
	Images   int    `json:"images"`
	Files    int    `json:"files"`
	Ink      int    `json:"ink"`
	Conflict bool   `json:"conflict,omitempty"`
}

// ListFile reads the notebook at path and lists it. The error names the
// file and what is wrong with it: missing, empty, or not a OneNote file
// this reader reads.
func ListFile(path string) (FileListing, error) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return FileListing{}, fmt.Errorf("file %s cannot be read: %w", path, err)
	case !st.IsDir() && st.Size() == 0:
		return FileListing{}, fmt.Errorf("file %s is empty (0 bytes): export the notebook again (File > Export > Notebook > OneNote Package)", path)
	}
	nb, err := onestore.Open(path)
	if err != nil {
		return FileListing{}, fmt.Errorf("file %s is not a OneNote notebook this importer reads: %w", path, err)
	}
	defer nb.Close()
	tree, sections := fileTree(nb, path)
	out := FileListing{File: path, NotebookID: tree.ID, Notebook: tree.Name}
	var walk func(groups []string, ts []TreeNode, gs []GroupNode)
	walk = func(groups []string, ts []TreeNode, gs []GroupNode) {
		for _, t := range ts {
			s := sections[t.ID]
			sl := FileSectionListing{ID: t.ID, Name: t.Name, Groups: groups, Pages: []FilePageListing{}}
			if s.Err != nil {
				sl.Error, sl.Locked = s.Err.Error(), errors.Is(s.Err, onestore.ErrEncrypted)
			}
			for _, p := range s.Pages {
				sl.Pages = append(sl.Pages, FilePageListing{ID: FileKey(p.GUID), Title: p.Title, Level: p.Level, Order: p.Order,
					Images: p.Images, Files: p.Files, Ink: p.Ink, Conflict: p.Conflict})
			}
			out.Pages += len(sl.Pages)
			out.Sections = append(out.Sections, sl)
		}
		for _, g := range gs {
			walk(append(append([]string(nil), groups...), g.Name), g.Sections, g.SectionGroups)
		}
	}
	walk(nil, tree.Sections, tree.SectionGroups)
	return out, nil
}
