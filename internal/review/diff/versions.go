package diff

import (
	"errors"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/diag"
)

// Of is the report on one run: its raw tool set beside its curated one.
func Of(out *generator.Output) *Report {
	return Compare(out.Raw, out.Curated, out.Overlay)
}

// Versions is the report of `tailor diff --against`: cur and old are the
// runs of the current spec and of an older one, with the same overlay, and
// their errors. The report is on the current spec's tools, with what the
// change does to the curated tools of the old one (Report.Against). When
// the overlay no longer applies to the current spec, the report is on the
// old spec's tools, and Against lists the overlay's errors. When the
// overlay was already changed for the current spec and no longer fits the
// old one, the current spec's curated tools stand for the old ones.
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
		report = Compare(old.Raw, oldCurated, ov)
		report.Note = "The overlay no longer applies to " + cur.Spec.Path + " (see the errors below): the tools are those of " + old.Spec.Path + "."
	} else {
		if curErr != nil {
			return nil, curErr
		}
		report = Of(cur)
	}
	report.Against = impact
	return report, nil
}
