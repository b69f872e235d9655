package graph

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// GenSpec sizes a deterministic generated data set. The same spec gives
// byte-identical notebooks, page metadata and page content.
type GenSpec struct {
	Seed uint64
	// Owner is the user the data is for; it is part of every id, so two
	// users' data never share ids.
	Owner string
	// Notebooks is the number of notebooks.
	Notebooks int
	// GroupDepth is how deep section groups nest (0: no section groups).
	GroupDepth int
	// GroupsPerLevel is the number of section groups in each container
	// above GroupDepth. Zero means 1.
	GroupsPerLevel int
	// SectionsPerContainer is the number of sections in each notebook and
	// section group.
	SectionsPerContainer int
	// PagesPerSection is the number of pages in each section.
	PagesPerSection int
	// SubpageLevels is the deepest page level (0..2).
	SubpageLevels int
	// ImagesPerPage and AttachmentsPerPage count resources on each page.
	ImagesPerPage      int
	AttachmentsPerPage int
	// PrintoutEvery puts a 3-part PDF printout on every n-th page (0: none).
	PrintoutEvery int
	// InkEvery puts ink on every n-th page (0: none).
	InkEvery int
	// LinksPerPage is the number of onenote: links to other generated
	// pages on each page.
	LinksPerPage int
	// ImageBytes and AttachmentBytes size the resources. Zero means 2 KiB
	// and 8 KiB.
	ImageBytes      int
	AttachmentBytes int
	// Start is the creation time of the oldest item. Zero means
	// 2024-01-01T00:00:00Z.
	Start time.Time
	// UntitledEvery leaves every n-th page untitled (0: none): its
	// listing carries "title": "" ([M1], fact 36) and its HTML an empty
	// <title>.
	UntitledEvery int
	// LockedSections is how many sections are password-protected (see
	// LockSection): the last LockedSections sections in tree order, so the
	// first sections of the first notebook stay readable.
	LockedSections int
}

// SmallSpec returns a small, feature-rich data set for owner: one notebook
// with nested section groups, a few sections of 25 pages with subpages,
// images, attachments, printouts, ink and links.
func SmallSpec(seed uint64, owner string) GenSpec {
	return GenSpec{
		Seed: seed, Owner: owner, Notebooks: 1, GroupDepth: 2, GroupsPerLevel: 1,
		SectionsPerContainer: 2, PagesPerSection: 25, SubpageLevels: 2,
		ImagesPerPage: 1, AttachmentsPerPage: 1, PrintoutEvery: 5, InkEvery: 4, LinksPerPage: 1,
	}
}

// pageGen is what a generated page needs to render its content lazily.
type pageGen struct {
	seed      uint64
	images    int
	attach    int
	printout  int // parts; 0 for none
	ink       bool
	links     []pageLink
	resources []Resource
}

// linkTarget is another generated page a page links to.
type linkTarget struct {
	page    *Page
	section *Section
	book    *Notebook
}

// pageLink is a link to another page as it was written: OneNote does not
// rewrite the links in a page when their target is renamed or moved, so
// a page's content changes only when the page is edited (and a client that
// compares content after such edits sees no change it was not told of).
type pageLink struct {
	title, sectionGUID, pageGUID, book, section string
}

// generator carries the running state of Generate.
type generator struct {
	spec    GenSpec
	rng     *rand.Rand
	owner   string
	seq     int
	all     []linkTarget
	created time.Time
}

// Generate builds the notebooks GenSpec describes. It stores metadata only;
// page HTML is rendered on demand from the seed, so 10,000 pages take a few
// megabytes.
func Generate(spec GenSpec) []*Notebook {
	if spec.GroupsPerLevel <= 0 {
		spec.GroupsPerLevel = 1
	}
	if spec.ImageBytes <= 0 {
		spec.ImageBytes = 2 << 10
	}
	if spec.AttachmentBytes <= 0 {
		spec.AttachmentBytes = 8 << 10
	}
	if spec.Start.IsZero() {
		spec.Start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	spec.SubpageLevels = min(max(spec.SubpageLevels, 0), 2)
	g := &generator{
		spec:    spec,
		rng:     rand.New(rand.NewPCG(spec.Seed, seedOf("generate", spec.Owner))),
		owner:   ownerHex(spec.Owner),
		created: spec.Start,
	}
	nbs := make([]*Notebook, 0, spec.Notebooks)
	for i := range spec.Notebooks {
		nb := &Notebook{
			ID:          g.nextID(),
			DisplayName: fmt.Sprintf("%s %d", pick(g.rng, notebookNames), i+1),
		}
		g.stamp(&nb.CreatedDateTime, &nb.LastModifiedDateTime)
		nb.Sections = g.sections(nb)
		nb.SectionGroups = g.groups(nb, 1)
		nbs = append(nbs, nb)
	}
	g.link()
	lockLast(nbs, spec.LockedSections)
	return nbs
}

// lockLast marks the last n sections of nbs, in tree order, as
// password-protected.
func lockLast(nbs []*Notebook, n int) {
	if n <= 0 {
		return
	}
	var all []*Section
	var walk func(secs []*Section, groups []*SectionGroup)
	walk = func(secs []*Section, groups []*SectionGroup) {
		all = append(all, secs...)
		for _, g := range groups {
			walk(g.Sections, g.SectionGroups)
		}
	}
	for _, nb := range nbs {
		walk(nb.Sections, nb.SectionGroups)
	}
	for _, sec := range all[max(0, len(all)-n):] {
		sec.PasswordProtected = true
	}
}

func (g *generator) nextID() string {
	g.seq++
	return fmt.Sprintf("1-%s!%d", g.owner, 100+g.seq)
}

func (g *generator) stamp(created, modified *time.Time) {
	g.created = g.created.Add(time.Duration(1+g.rng.IntN(90)) * time.Minute)
	*created = g.created
	*modified = g.created.Add(time.Duration(g.rng.IntN(60*24*30)) * time.Minute)
}

func (g *generator) groups(nb *Notebook, depth int) []*SectionGroup {
	if depth > g.spec.GroupDepth {
		return nil
	}
	out := make([]*SectionGroup, 0, g.spec.GroupsPerLevel)
	for i := range g.spec.GroupsPerLevel {
		name := fmt.Sprintf("%s%d.%d", pick(g.rng, groupNames)+" ", depth, i+1)
		sg := &SectionGroup{ID: g.nextID(), DisplayName: name}
		g.stamp(&sg.CreatedDateTime, &sg.LastModifiedDateTime)
		sg.Sections = g.sections(nb)
		sg.SectionGroups = g.groups(nb, depth+1)
		out = append(out, sg)
	}
	return out
}

func (g *generator) sections(nb *Notebook) []*Section {
	out := make([]*Section, 0, g.spec.SectionsPerContainer)
	for i := range g.spec.SectionsPerContainer {
		sec := &Section{ID: g.nextID(), DisplayName: fmt.Sprintf("%s %d", pick(g.rng, sectionNames), i+1)}
		sec.GUID = guidOf("section", sec.ID)
		g.stamp(&sec.CreatedDateTime, &sec.LastModifiedDateTime)
		sec.Pages = g.pages(nb, sec)
		out = append(out, sec)
	}
	return out
}

func (g *generator) pages(nb *Notebook, sec *Section) []*Page {
	spec := g.spec
	out := make([]*Page, 0, spec.PagesPerSection)
	level := 0
	for i := range spec.PagesPerSection {
		g.seq++
		n := g.seq
		p := &Page{
			ID:    pageID(hexID(32, "page", spec.Owner, itoa(spec.Seed), itoa(uint64(n))), 1+i, g.owner, sec.GUID),
			Title: fmt.Sprintf("%s %d", pick(g.rng, pageTitles), n),
			Order: i,
		}
		p.GUID = guidOf("page", p.ID)
		if spec.UntitledEvery > 0 && n%spec.UntitledEvery == 0 {
			p.Title = ""
		}
		if i > 0 && spec.SubpageLevels > 0 {
			level = g.rng.IntN(min(level+1, spec.SubpageLevels) + 1)
		}
		p.Level = level
		g.stamp(&p.CreatedDateTime, &p.LastModifiedDateTime)
		pg := &pageGen{
			seed:   seedOf("content", itoa(spec.Seed), p.ID),
			images: spec.ImagesPerPage,
			attach: spec.AttachmentsPerPage,
			ink:    spec.InkEvery > 0 && n%spec.InkEvery == 0,
		}
		if spec.PrintoutEvery > 0 && n%spec.PrintoutEvery == 0 {
			pg.printout = 3
		}
		res := func(kind string, k int, ctype string, size int) {
			id := fmt.Sprintf("0-%s!1-%s!%d", hexID(32, "resource", p.ID, kind, itoa(uint64(k))), g.owner, 2000+len(pg.resources)+n*16)
			pg.resources = append(pg.resources, Resource{ID: id, ContentType: ctype, Size: size})
		}
		for k := range pg.images {
			res("image", k, "image/png", spec.ImageBytes)
		}
		for k := range pg.attach {
			res("attachment", k, "application/pdf", spec.AttachmentBytes)
		}
		for k := range pg.printout {
			res("printout", k, "image/png", spec.ImageBytes)
		}
		p.gen = pg
		g.all = append(g.all, linkTarget{page: p, section: sec, book: nb})
		out = append(out, p)
	}
	return out
}

// link points each page's links at other generated pages.
func (g *generator) link() {
	if g.spec.LinksPerPage <= 0 || len(g.all) < 2 {
		return
	}
	for i, t := range g.all {
		for range g.spec.LinksPerPage {
			j := g.rng.IntN(len(g.all) - 1)
			if j >= i {
				j++
			}
			l := g.all[j]
			t.page.gen.links = append(t.page.gen.links, pageLink{title: l.page.Title, sectionGUID: l.section.GUID,
				pageGUID: l.page.GUID, book: l.book.DisplayName, section: l.section.DisplayName})
		}
	}
}

func pick(rng *rand.Rand, list []string) string { return list[rng.IntN(len(list))] }

var (
	notebookNames = []string{"Work Notebook", "Personal", "Research", "Project Atlas", "Team Wiki", "Reise Notizen"}
	groupNames    = []string{"Archive", "Clients", "Quarter", "Drafts", "Areas"}
	sectionNames  = []string{"Meetings", "Ideas", "Specs", "Journal", "Reading", "Recipes", "Runbooks", "会議"}
	pageTitles    = []string{"Weekly sync", "Design review", "Trip planning", "Reading notes", "Retro", "Budget", "Interview", "Roadmap", "Café notes", "Incident review", "Ideen & Pläne"}
)
