package diff

import (
	"errors"
	"strings"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/diag"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
)

// Of is the report on one run: the raw tool set of its spec as written
// beside its curated one.
func Of(out *generator.Output) *Report {
	return compareRun(out, out.Curated, out.Overlay)
}

// compareRun compares the raw tool set of out's spec as written with
// curated. When the overlay's actions patched the spec, that is the spec
// before them (Output.Unpatched, loaded here), so that the report shows
// what the actions changed (an operation they removed is "not offered"),
// not only what the overlay's tools do.
func compareRun(out *generator.Output, curated *ir.API, ov *overlay.Overlay) *Report {
	raw, err := out.Unpatched()
	if err != nil {
		// The actions may repair a spec that cannot be loaded as written.
		r := Compare(out.Raw, curated, ov)
		r.Note = "The spec cannot be loaded without the overlay's actions (" + firstLine(err) + "): the raw tools are those of the spec they patched."
		return r
	}
	return Compare(raw, curated, ov)
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// Versions is the report of `tailor diff --against`: cur and old are the
// runs of the current spec and of an older one, with the same overlay, and
// their errors. The report is on the current spec's tools, with what the
// change does to the curated tools of the old one (Report.Against). When
// the overlay no longer applies to the current spec, the report is on the
// old spec's tools, and Against lists the overlay's errors. When the
// overlay was already changed for the current spec and no longer fits the
// old one, the current spec's curated tools stand for the old ones. Against
// compares the specs as curation reads them, after the overlay's actions;
// the report's raw side is the spec as written, as in Of.
func Versions(cur *generator.Output, curErr error, old *generator.Output, oldErr error) (*Report, error) {
	if old == nil {
		return nil, oldErr // the old spec cannot be read
	}
	oldCurated, ov := old.Curated, old.Overlay
	if oldErr != nil {
		if curErr != nil {
			return nil, oldErr
		}
		oldCurated, ov = cur.Curated, cur.Overlay
	}
	if cur == nil {
		return nil, curErr // the current spec cannot be read
	}
	var newErrs []diag.Diagnostic
	if curErr != nil {
		var de *diag.Errors
		if !errors.As(curErr, &de) {
			return nil, curErr
		}
		newErrs = de.List
	}
	impact := Against(old.Raw, oldCurated, cur.Raw, ov, newErrs)
	var report *Report
	if len(impact.OverlayErrors) > 0 {
		// The curated set of the current spec cannot be built: report on
		// the old one.
		report = compareRun(old, oldCurated, ov)
		report.Note = strings.TrimSpace(report.Note + " The overlay no longer applies to " + cur.Spec.Path + " (see the errors below): the tools are those of " + old.Spec.Path + ".")
	} else {
		if curErr != nil {
			return nil, curErr
		}
		report = Of(cur)
	}
	report.Against = impact
	return report, nil
}
