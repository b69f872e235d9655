package convert_test

import (
	"fmt"

	"github.com/notebridge/notebridge/convert"
)

func ExamplePage() {
	page := []byte(`<html><head><title>Plan</title><meta name="created" content="2024-03-14T09:27:00.0000000" /></head>
<body data-absolute-enabled="true">
<div style="position:absolute;left:48px;top:120px">
<h1>Plan</h1>
<p data-tag="to-do:completed">Book <span style="font-weight:bold">rooms</span></p>
<p data-tag="important">Budget is 2<sup>10</sup> EUR</p>
<!-- InkNode is not supported -->
</div></body></html>`)
	res, err := convert.Page(page, convert.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range res.Blocks {
		var text string
		for _, rt := range b.RichText {
			text += rt.Text
		}
		fmt.Printf("%s %q checked=%v icon=%q\n", b.Type, text, b.Checked, b.Icon)
	}
	for _, l := range res.Losses {
		fmt.Printf("loss %s (%s) x%d: %s\n", l.Kind, l.Severity, l.Count, l.Detail)
	}
	// Output:
	// heading_1 "Plan" checked=false icon=""
	// to_do "Book rooms" checked=true icon=""
	// callout "Budget is 2¹⁰ EUR" checked=false icon="⭐"
	// loss sup-sub-approximated (mapped) x1: superscript shown with Unicode superscript characters
	// loss ink (dropped) x1: ink (drawing or handwriting) is not returned by Graph
}
