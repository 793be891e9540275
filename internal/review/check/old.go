package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailormcp/tailor/generator"
)

// gitHistory is how many commits of the spec FindOld searches for the
// version the output was generated from.
const gitHistory = 200

// OldSpec is the version of the spec that breaking changes are counted
// from.
type OldSpec struct {
	Data []byte
	// Name says which version it is in messages: the file, REV:PATH, or
	// the spec's path at a commit.
	Name string
}

// FindOld finds the spec to compare specPath with: against when given (a
// file, or git's REV:PATH), else the version the header of outDir's
// server.go names by hash, searched in the spec's git history. A nil
// OldSpec with an empty note means there is nothing to compare (the output
// was generated from this very spec, or its header cannot be read: the
// staleness check says what is wrong with it); a note says why the old
// version could not be had.
func FindOld(outDir, specPath, against string) (old *OldSpec, note string) {
	if against != "" {
		data, err := os.ReadFile(against)
		if err != nil {
			if !strings.Contains(against, ":") {
				return nil, fmt.Sprintf("cannot read --against: %v", err)
			}
			if data, err = GitShow(against); err != nil {
				return nil, fmt.Sprintf("cannot read --against: %v", err)
			}
		}
		return &OldSpec{Data: data, Name: against}, ""
	}
	_, sum, err := Header(filepath.Join(outDir, "server.go"))
	if err != nil {
		return nil, ""
	}
	cur, err := os.ReadFile(specPath)
	if err != nil || SHA256(cur) == sum {
		return nil, ""
	}
	data, commit, err := FindInGit(specPath, sum, gitHistory)
	if err != nil {
		return nil, fmt.Sprintf("the spec changed since %s was generated, but its earlier version was not found (%v); pass --against to list breaking changes", outDir, err)
	}
	return &OldSpec{Data: data, Name: specPath + " at " + commit[:12]}, ""
}

// Breaking lists the breaking changes from old's spec to cur's in the
// operations the curated tools call: those of cur's tool set (when
// curUsable: it was built without errors) and those the overlay picks in
// the old spec (so that an operation the new spec dropped is included).
// It returns how many operations that is.
func Breaking(old, cur *generator.Output, curUsable bool, oldName string) ([]Change, int, error) {
	ops := map[string]bool{}
	if curUsable {
		addOperations(ops, cur)
	}
	addOperations(ops, old)
	changes, err := oasdiffChanges(old.Spec.Doc, cur.Spec.Doc, oldName, cur.Spec.Path, ops)
	return changes, len(ops), err
}

// addOperations adds the operations ("METHOD /path") the curated tools of
// out call.
func addOperations(ops map[string]bool, out *generator.Output) {
	if out.Curated == nil {
		return
	}
	for _, t := range out.Curated.Tools {
		if t.Call != nil {
			ops[t.Call.Method+" "+t.Call.Path] = true
		}
		for _, st := range t.Steps {
			ops[st.Call.Method+" "+st.Call.Path] = true
		}
	}
}
