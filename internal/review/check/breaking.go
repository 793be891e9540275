package check

import (
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/oasdiff/checker"
	"github.com/oasdiff/oasdiff/diff"
	"github.com/oasdiff/oasdiff/load"
)

// Change is one backward-incompatible change oasdiff found.
type Change struct {
	ID        string `json:"id"`
	Level     string `json:"level"` // error or warning, as oasdiff rates it
	Method    string `json:"method"`
	Path      string `json:"path"`
	Operation string `json:"operation_id,omitempty"`
	Text      string `json:"text"`
	// Where is the change's place, file:line:col, when the spec was loaded
	// with positions (a spec split over files is): in the current spec,
	// or in the old one when WhereOld (what was removed).
	Where    string `json:"where,omitempty"`
	WhereOld bool   `json:"where_old,omitempty"`
}

func (c Change) String() string {
	where := ""
	switch {
	case c.Where != "" && c.WhereOld:
		where = " (" + c.Where + ", in the old version)"
	case c.Where != "":
		where = " (" + c.Where + ")"
	}
	return c.Level + ": " + c.Method + " " + c.Path + ": " + c.Text + where + " [" + c.ID + "]"
}

// oasdiffChanges compares two specs with oasdiff's backward-compatibility
// checks and returns the changes rated error or warning to the operations
// in ops ("METHOD /path"); a nil ops keeps every operation's changes.
func oasdiffChanges(oldDoc, newDoc *openapi3.T, oldName, newName string, ops map[string]bool) ([]Change, error) {
	s1 := &load.SpecInfo{Spec: oldDoc, Source: load.NewSource(oldName), Version: version(oldDoc)}
	s2 := &load.SpecInfo{Spec: newDoc, Source: load.NewSource(newName), Version: version(newDoc)}
	d, sources, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	if err != nil {
		return nil, err
	}
	changes := checker.CheckBackwardCompatibilityUntilLevel(checker.NewConfig(checker.GetAllChecks()), d, sources, checker.WARN)
	l := checker.NewDefaultLocalizer()
	var out []Change
	for _, c := range changes {
		method, path := strings.ToUpper(c.GetOperation()), c.GetPath()
		if ops != nil && !ops[method+" "+path] {
			continue
		}
		level := "warning"
		if c.GetLevel() == checker.ERR {
			level = "error"
		}
		ch := Change{ID: c.GetId(), Level: level, Method: method, Path: path, Operation: c.GetOperationId(), Text: c.GetUncolorizedText(l)}
		if src := c.GetRevisionSource(); src != nil && src.File != "" && src.Line > 0 {
			ch.Where = place(src)
		} else if src := c.GetBaseSource(); src != nil && src.File != "" && src.Line > 0 {
			ch.Where, ch.WhereOld = place(src), true
		}
		out = append(out, ch)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out, nil
}

// place is src (one with a line) as file:line:col, the file relative to
// the working directory.
func place(src *checker.Source) string {
	s := fromWorkDir(src.File) + ":" + strconv.Itoa(src.Line)
	if src.Column > 0 {
		s += ":" + strconv.Itoa(src.Column)
	}
	return s
}

func version(doc *openapi3.T) string {
	if doc == nil || doc.Info == nil {
		return ""
	}
	return doc.Info.Version
}
