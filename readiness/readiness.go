// Package readiness decides, before anything is written, whether a
// migration can finish in a Notion workspace: from the workspace's facts
// (plan, members, the connection's kind, blocks already used, the per-file
// upload cap) and an estimate of the run (blocks it creates, its largest
// attachment). It is pure: the notion package gathers the facts
// (notion.Client.WorkspaceFacts), the activities package runs the check
// (CheckReadiness) and the starter shows it.
//
// Notion's limits (shared/reference/notion-reality.md, rows 15 and 16 of
// 2026-12-04): a Free workspace with more than one member may create 1,000
// blocks in its life, unless the connection is a personal access token or
// a public OAuth connection installable in any workspace; a file over the
// workspace's max_file_upload_size_in_bytes is refused.
package readiness

import (
	"fmt"
	"strings"
)

// FreeBlockLimit is the lifetime block limit of a Free workspace with more
// than one member.
const FreeBlockLimit = 1000

// Plans and connection kinds, as the worker's flags name them.
const (
	PlanFree       = "free"
	PlanPlus       = "plus"
	PlanBusiness   = "business"
	PlanEnterprise = "enterprise"

	TokenInternal      = "internal"
	TokenOAuthSelected = "oauth_selected"
	TokenOAuthPublic   = "oauth_public"
	TokenPersonal      = "personal"
)

// ValidPlan and ValidTokenType check a flag's value ("" means unknown).
func ValidPlan(p string) error {
	switch p {
	case "", PlanFree, PlanPlus, PlanBusiness, PlanEnterprise:
		return nil
	}
	return fmt.Errorf("plan %q: want free, plus, business or enterprise (or nothing if unknown)", p)
}

// ValidTokenType checks a connection kind ("" means unknown).
func ValidTokenType(t string) error {
	switch t {
	case "", TokenInternal, TokenOAuthSelected, TokenOAuthPublic, TokenPersonal:
		return nil
	}
	return fmt.Errorf("token type %q: want internal, oauth_selected, oauth_public or personal (or nothing if unknown)", t)
}

// Facts are what is known of the workspace and the connection. Zero
// values mean unknown.
type Facts struct {
	// Plan is the workspace's plan (the API does not tell it: a worker
	// flag does).
	Plan string `json:"plan,omitempty"`
	// Members counts the workspace's members, guests excluded (GET
	// /v1/users); 0 is unknown.
	Members int `json:"members,omitempty"`
	// TokenType is the connection's kind (a worker flag).
	TokenType string `json:"tokenType,omitempty"`
	// BlocksUsed is how many blocks the workspace has created in its life
	// (a worker flag: the API does not tell it).
	BlocksUsed int `json:"blocksUsed,omitempty"`
	// MaxUploadBytes is the per-file cap, max_file_upload_size_in_bytes
	// of the bot user; 0 is unknown.
	MaxUploadBytes int64 `json:"maxUploadBytes,omitempty"`
}

// BlockLimited says whether the block limit holds the connection.
func (f Facts) BlockLimited() bool {
	return f.Plan == PlanFree && f.Members > 1 && f.TokenType != TokenPersonal && f.TokenType != TokenOAuthPublic
}

// Estimate is what the run is expected to create and upload.
type Estimate struct {
	// Pages is how many pages the run writes; 0 when not known yet (a
	// migration's start, before its sections are listed).
	Pages int `json:"pages,omitempty"`
	// Blocks is how many blocks the run creates, pages and containers
	// included (EstimateBlocks).
	Blocks int `json:"blocks"`
	// BlocksAreLowerBound says Blocks counts only what is certain (the
	// containers, one block a page) because the pages are not known.
	BlocksAreLowerBound bool `json:"blocksAreLowerBound,omitempty"`
	// LargestAttachment is the largest file to upload, in bytes (0:
	// unknown), and LargestName names it.
	LargestAttachment int64  `json:"largestAttachment,omitempty"`
	LargestName       string `json:"largestName,omitempty"`
	// SkipAttachments says the run uploads no attachment.
	SkipAttachments bool `json:"skipAttachments,omitempty"`
}

// BlocksPerPage is the blocks one migrated page creates on average: the
// page itself, its content blocks, its media and loss notes, and its share
// of the containers and the report. Measured on the demo notebook's shape
// in the emulator: 5,016 blocks for 160 pages, 31.35 a page, rounded up
// (bench/results/notion-limits.md). Notebooks of plain text create fewer;
// the estimate errs on the side of refusing early rather than stopping
// after hours.
const BlocksPerPage = 32

// EstimateBlocks is the blocks a migration of pages pages in sections
// sections creates: the notebook's page, its migration report page, one
// database per section, and BlocksPerPage for each page. With pages 0 (not
// known) it is the containers and one block per section, a lower bound.
func EstimateBlocks(sections, pages int) Estimate {
	containers := 2 + sections
	if pages <= 0 {
		return Estimate{Blocks: containers + sections, BlocksAreLowerBound: true}
	}
	return Estimate{Pages: pages, Blocks: containers + pages*BlocksPerPage}
}

// Limit names a limit a verdict speaks of.
type Limit string

// The limits checked.
const (
	LimitBlocks Limit = "block-limit"
	LimitUpload Limit = "upload-size"
)

// Problem is one limit the run meets.
type Problem struct {
	Limit Limit `json:"limit"`
	// Blocking says the run cannot finish (the block limit); otherwise it
	// finishes with losses (files over the cap are recorded, not sent).
	Blocking bool   `json:"blocking"`
	Message  string `json:"message"`
	// Options are what a person can do about it.
	Options []string `json:"options"`
}

// Text is the message and its options, for a person.
func (p Problem) Text() string {
	return p.Message + " Options: " + strings.Join(p.Options, "; ") + "."
}

// Verdict is the answer of Check.
type Verdict struct {
	// Ready says nothing blocks the run.
	Ready    bool      `json:"ready"`
	Problems []Problem `json:"problems,omitempty"`
	// Notes say what was checked and what could not be.
	Notes []string `json:"notes,omitempty"`
}

// Blocking returns the problems that stop the run.
func (v Verdict) Blocking() []Problem {
	var out []Problem
	for _, p := range v.Problems {
		if p.Blocking {
			out = append(out, p)
		}
	}
	return out
}

// Text is the verdict for a person, one line per problem and note.
func (v Verdict) Text() string {
	var b strings.Builder
	if v.Ready {
		b.WriteString("Notion readiness: ready.")
	} else {
		b.WriteString("Notion readiness: NOT ready; nothing was written.")
	}
	for _, p := range v.Problems {
		b.WriteString("\n- " + p.Text())
	}
	for _, n := range v.Notes {
		b.WriteString("\n- " + n)
	}
	return b.String()
}

// Check decides whether a run of estimate e can finish in a workspace of
// facts f.
func Check(f Facts, e Estimate) Verdict {
	v := Verdict{Ready: true}
	switch {
	case f.Plan == "":
		v.Notes = append(v.Notes, "The workspace's plan is not known (the API does not tell it); the Free block limit was not checked. Give the worker -notion-plan.")
	case f.Plan != PlanFree:
		v.Notes = append(v.Notes, fmt.Sprintf("The %s plan has no block limit.", f.Plan))
	case f.Members <= 1:
		v.Notes = append(v.Notes, "A Free workspace with one member has no block limit.")
	case f.TokenType == "":
		v.Notes = append(v.Notes, "The connection's kind is not known; the block limit was checked as for an internal integration. Give the worker -notion-token-type.")
		fallthrough
	default:
		if !f.BlockLimited() && f.TokenType != "" {
			v.Notes = append(v.Notes, fmt.Sprintf("The Free block limit does not apply to this connection (%s).", f.TokenType))
			break
		}
		if p, ok := blockProblem(f, e); ok {
			v.Problems = append(v.Problems, p)
			v.Ready = false
		} else {
			v.Notes = append(v.Notes, fmt.Sprintf("Free block limit: about %d of the %d blocks left will be used.", e.Blocks, max(FreeBlockLimit-f.BlocksUsed, 0)))
		}
	}
	if p, ok := uploadProblem(f, e); ok {
		v.Problems = append(v.Problems, p)
	} else if f.MaxUploadBytes > 0 && !e.SkipAttachments {
		v.Notes = append(v.Notes, fmt.Sprintf("Files up to %s can be uploaded; larger ones are recorded as losses.", size(f.MaxUploadBytes)))
	}
	return v
}

func blockProblem(f Facts, e Estimate) (Problem, bool) {
	left := max(FreeBlockLimit-f.BlocksUsed, 0)
	if e.Blocks <= left {
		return Problem{}, false
	}
	what := fmt.Sprintf("about %d blocks (%d pages at about %d blocks each, with their containers)", e.Blocks, e.Pages, BlocksPerPage)
	if e.BlocksAreLowerBound {
		what = fmt.Sprintf("at least %d blocks (the notebook's containers alone)", e.Blocks)
	}
	kind := f.TokenType
	if kind == "" {
		kind = "internal (assumed)"
	}
	return Problem{Limit: LimitBlocks, Blocking: true,
		Message: fmt.Sprintf("This Free workspace has %d members, so it may create %d blocks in its life; %d are used and %d left. The migration needs %s. The connection (%s) is held to the limit.",
			f.Members, FreeBlockLimit, f.BlocksUsed, left, what, kind),
		Options: []string{
			"upgrade the workspace to a paid plan (no block limit)",
			"connect with a personal access token or a public OAuth connection, which are exempt (then give the worker -notion-token-type personal or oauth_public)",
			"migrate into a Free workspace with a single member",
			"migrate fewer sections (include/exclude)",
		}}, true
}

func uploadProblem(f Facts, e Estimate) (Problem, bool) {
	if f.MaxUploadBytes <= 0 || e.LargestAttachment <= f.MaxUploadBytes || e.SkipAttachments {
		return Problem{}, false
	}
	name := e.LargestName
	if name == "" {
		name = "the largest attachment"
	}
	plan := ""
	if f.Plan == PlanFree {
		plan = " (Free plan: files over 20 MB need a paid workspace's multi-part upload)"
	}
	return Problem{Limit: LimitUpload,
		Message: fmt.Sprintf("%s is %s, over this workspace's limit of %s per file%s; it would be recorded as a loss, not uploaded.",
			name, size(e.LargestAttachment), size(f.MaxUploadBytes), plan),
		Options: []string{"upgrade the workspace to a paid plan (5 GB per file)", "run with skipAttachments", "accept the loss (the report names the file)"}}, true
}

func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// NotReady is the error of a check that found a blocking problem.
type NotReady struct{ Verdict Verdict }

// Error names every blocking problem with its numbers and options.
func (e *NotReady) Error() string {
	var parts []string
	for _, p := range e.Verdict.Blocking() {
		parts = append(parts, p.Text())
	}
	return "the migration cannot finish in this Notion workspace, so nothing was written: " + strings.Join(parts, " ")
}

// Err is nil when v is ready, or a *NotReady.
func (v Verdict) Err() error {
	if v.Ready {
		return nil
	}
	return &NotReady{Verdict: v}
}
