package graph

import "sync"

// renderCacheSize bounds the rendered pages kept in memory (about 12 KiB
// each), so repeated GETs of hot pages skip rendering while 10,000-page
// data sets stay light.
const renderCacheSize = 512

// renderCache is a bounded FIFO cache of rendered page HTML. Keys include
// the page version and the URL root, so edits and routes never see stale
// output.
type renderCache struct {
	mu    sync.Mutex
	items map[string]string
	order []string
	next  int
}

func newRenderCache() *renderCache {
	return &renderCache{items: make(map[string]string, renderCacheSize)}
}

func (c *renderCache) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.items[key]
	return v, ok
}

func (c *renderCache) put(key, html string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return
	}
	if len(c.order) < renderCacheSize {
		c.order = append(c.order, key)
	} else {
		delete(c.items, c.order[c.next])
		c.order[c.next] = key
		c.next = (c.next + 1) % renderCacheSize
	}
	c.items[key] = html
}
