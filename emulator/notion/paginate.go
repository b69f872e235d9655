package notion

import (
	"net/http"
	"slices"
	"strconv"
)

// paginate cuts one page out of ids. The cursor is the ID of the first
// item of the page, as opaque to clients as Notion's. where is "body" or
// "query" for error messages.
func paginate(ids []string, cursor string, size int, where string) ([]string, string, error) {
	start := 0
	if cursor != "" {
		id, ok := normalizeID(cursor)
		start = slices.Index(ids, id)
		if !ok || start < 0 {
			return nil, "", validationError("%s failed validation: %s.start_cursor should be a valid cursor returned by a previous request, instead was `%q`.", where, where, cursor)
		}
	}
	end := min(start+size, len(ids))
	next := ""
	if end < len(ids) {
		next = ids[end]
	}
	return ids[start:end], next, nil
}

// pageSize validates a page_size (default and maximum 100).
func pageSize(raw any, where string) (int, error) {
	if raw == nil {
		return maxPageSize, nil
	}
	n, ok := asInt(raw)
	if !ok {
		return 0, validationError("%s failed validation: %s.page_size should be a number, instead was `%s`.", where, where, brief(raw))
	}
	if n < 1 || n > maxPageSize {
		return 0, validationError("%s failed validation: %s.page_size should be ≤ `%d` and ≥ `1`, instead was `%d`.", where, where, maxPageSize, n)
	}
	return n, nil
}

// queryPaging reads page_size and start_cursor from a GET's query string.
func queryPaging(r *http.Request) (int, string, error) {
	q := r.URL.Query()
	var raw any
	if v := q.Get("page_size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			raw = v
		} else {
			raw = n
		}
	}
	size, err := pageSize(raw, "query")
	return size, q.Get("start_cursor"), err
}
