package stack

import notionemu "github.com/notebridge/notebridge/emulator/notion"

// EachRow calls fn for every live row of every live database under the
// live pages ps, at any depth (a row's own databases and sub-pages
// included): the migrated pages, in the Notion emulator's export.
func EachRow(ps []notionemu.Page, fn func(row notionemu.Page)) {
	for _, p := range ps {
		if p.Archived {
			continue
		}
		for _, db := range p.Databases {
			if db.Archived {
				continue
			}
			for _, r := range db.Rows {
				if r.Archived {
					continue
				}
				fn(r)
				EachRow([]notionemu.Page{r}, fn)
			}
		}
		EachRow(p.Pages, fn)
	}
}

// CountRows is how many rows EachRow finds under ps.
func CountRows(ps []notionemu.Page) int {
	n := 0
	EachRow(ps, func(notionemu.Page) { n++ })
	return n
}
