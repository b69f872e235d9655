package notion

import "time"

// Kinds of node in the workspace.
const (
	kindPage     = "page"
	kindDatabase = "database"
	kindBlock    = "block"
	// kindDataSource is a database's table (2025-09-03): its schema and
	// rows. A database holds one or more.
	kindDataSource = "data_source"
)

// Parent types, as Notion spells them in "parent".
const (
	parentWorkspace = "workspace"
	parentPage      = "page_id"
	parentDatabase  = "database_id"
	// parentDataSource is a row's parent (a row lives in a data source).
	parentDataSource = "data_source_id"
	parentBlock      = "block_id"
)

// parentRef is where a node lives.
type parentRef struct {
	typ string // one of the parent* constants
	id  string // empty for the workspace
}

// node is a page, a database or a content block. Pages and databases are
// blocks too (child_page, child_database) in their parent's children list;
// database rows are pages listed in the database's rows, not its children.
type node struct {
	id      string
	kind    string
	typ     string // block type; "child_page" or "child_database" for pages and databases
	parent  parentRef
	seq     int64 // creation order
	created time.Time
	edited  time.Time
	// editedBy is the person who last edited the node in Notion's app
	// (PersonEditText); "" when the integration did.
	editedBy string

	archived bool
	// unshared hides the node and its descendants from the integration.
	unshared bool

	children []string // ordered child block IDs (archived ones included)
	rows     []string // data source rows in creation order
	// sources are a database's data sources, in creation order; views
	// its views, in tab order.
	sources []string
	views   []string

	// content is a content block's type object in response shape, without
	// children (rich text normalised). Media blocks attached to an upload
	// keep the upload ID in uploadID instead of a file source.
	content  map[string]any
	uploadID string

	// Pages: properties in response shape, keyed by property name.
	properties map[string]any
	icon       any // response-shape icon or nil
	cover      any

	// Databases and data sources (title; the schema is a data source's).
	title       []any // normalised rich text
	description []any // normalised rich text
	schema      *schema
}

// upload is a File Upload API object.
type upload struct {
	id          string
	mode        string // single_part or multi_part
	filename    string
	contentType string
	created     time.Time
	expiry      time.Time
	status      string // pending, uploaded, failed (expired is derived)
	attached    bool
	parts       map[int][]byte
	totalParts  int
	data        []byte
	sha256      string
	// expireEarly makes the upload expire once the answer that says it is
	// uploaded has been sent (early is then set), while it still reports
	// its normal expiry_time (InjectUploadExpiry).
	expireEarly, early bool
}
