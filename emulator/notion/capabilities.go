package notion

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Capabilities are an integration's content capabilities, as set on
// Notion's integration settings page. A request that needs one the token
// lacks answers 403 restricted_resource (Notion's status-code reference).
type Capabilities struct {
	ReadContent   bool
	UpdateContent bool
	InsertContent bool
	// ReadComments and InsertComments are kept for completeness: the
	// emulator serves no comment endpoints.
	ReadComments   bool
	InsertComments bool
}

// AllCapabilities is what a new token gets: everything.
func AllCapabilities() Capabilities {
	return Capabilities{ReadContent: true, UpdateContent: true, InsertContent: true, ReadComments: true, InsertComments: true}
}

// capability is one capability an endpoint needs.
type capability int

const (
	capNone capability = iota
	capRead
	capUpdate
	capInsert
)

// capabilityNames are the wire names of the capabilities (flags, control
// API), in a fixed order.
var capabilityNames = []string{"read_content", "update_content", "insert_content", "read_comments", "insert_comments"}

// Names lists the capabilities c holds by wire name.
func (c Capabilities) Names() []string {
	out := []string{}
	for i, f := range c.flagPtrs() {
		if *f {
			out = append(out, capabilityNames[i])
		}
	}
	return out
}

// ParseCapabilities reads capability names (read_content, update_content,
// insert_content, read_comments, insert_comments; "none" for none)
// separated by commas or plus signs.
func ParseCapabilities(s string) (Capabilities, error) {
	var c Capabilities
	flags := c.flagPtrs()
	for _, name := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '+' || r == ' ' }) {
		if name == "none" {
			continue
		}
		i := slices.Index(capabilityNames, name)
		if i < 0 {
			return Capabilities{}, fmt.Errorf("unknown capability %q (want one of %s, or none)", name, strings.Join(capabilityNames, ", "))
		}
		*flags[i] = true
	}
	return c, nil
}

// flagPtrs are c's fields in the order of capabilityNames.
func (c *Capabilities) flagPtrs() []*bool {
	return []*bool{&c.ReadContent, &c.UpdateContent, &c.InsertContent, &c.ReadComments, &c.InsertComments}
}

func (c Capabilities) has(need capability) bool {
	switch need {
	case capRead:
		return c.ReadContent
	case capUpdate:
		return c.UpdateContent
	case capInsert:
		return c.InsertContent
	}
	return true
}

var errRestricted = newError(http.StatusForbidden, codeRestricted, "Insufficient permissions for this endpoint.")
