package activities

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
)

// Register registers every activity under its stable name.
func (a *Activities) Register(r worker.ActivityRegistry) {
	for name, fn := range map[string]any{
		ListNotebooksName:      a.ListNotebooks,
		ListSectionsName:       a.ListSections,
		ListGroupsName:         a.ListSectionGroups,
		ListPagesName:          a.ListPages,
		FetchContentName:       a.FetchContent,
		FetchResourcesName:     a.FetchResources,
		CleanPageName:          a.CleanPage,
		EnsureLayoutName:       a.EnsureLayout,
		CheckReadinessName:     a.CheckReadiness,
		WritePageName:          a.WritePage,
		RewriteLinksName:       a.RewriteLinks,
		ExistingRowsName:       a.ExistingRows,
		StageLinkTargetsName:   a.StageLinkTargets,
		WriteReportName:        a.WriteReport,
		PlanSyncName:           a.PlanSync,
		ContentHashName:        a.ContentHash,
		ApplySyncName:          a.ApplySync,
		AppendSyncReportName:   a.AppendSyncReport,
		ReconcileStructureName: a.ReconcileStructure,
		ReadFileTreeName:       a.ReadFileTree,
		ListFilePagesName:      a.ListFilePages,
		FetchFileContentName:   a.FetchFileContent,
		FindSectionsName:       a.FindSections,
		VerifySectionName:      a.VerifySection,
	} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}
