package notion

import "testing"

// TestPersonEditText: a person's edit shows as last_edited_by on the
// block and its page, and an edit by the integration takes it back.
func TestPersonEditText(t *testing.T) {
	e := newEnv(t, Config{})
	page := e.createPage(e.srv.RootPageID(), "Trip", para("Bring a hat"), para("Pack light"))
	kids := e.listAll(page, 100)
	editor := func(obj map[string]any) string {
		return obj["last_edited_by"].(map[string]any)["id"].(string)
	}
	bot := e.srv.BotID()
	if got := editor(e.ok("GET", "/v1/pages/"+page, nil)); got != bot {
		t.Fatalf("page written by the integration: last edited by %s, want the bot %s", got, bot)
	}
	id := kids[1]["id"].(string)
	if err := e.srv.PersonEditText(id, "Pack light, and a coat"); err != nil {
		t.Fatal(err)
	}
	b := e.ok("GET", "/v1/blocks/"+id, nil)
	if editor(b) != PersonID || blockText(b) != "Pack light, and a coat" {
		t.Errorf("edited block: by %s, text %q", editor(b), blockText(b))
	}
	if got := editor(e.ok("GET", "/v1/pages/"+page, nil)); got != PersonID {
		t.Errorf("page of the edited block: last edited by %s, want the person", got)
	}
	if got := editor(e.listAll(page, 100)[0]); got != bot {
		t.Errorf("a block the person did not touch: last edited by %s", got)
	}
	e.ok("PATCH", "/v1/blocks/"+id, map[string]any{"paragraph": map[string]any{"rich_text": []any{text("by the bot")}}})
	if got := editor(e.ok("GET", "/v1/blocks/"+id, nil)); got != bot {
		t.Errorf("block updated by the integration since: last edited by %s", got)
	}
	for _, bad := range []string{"no-such-block", page} {
		if err := e.srv.PersonEditText(bad, "x"); err == nil {
			t.Errorf("PersonEditText(%s) accepted", bad)
		}
	}
}
