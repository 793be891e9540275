// Package curate is the pipeline stage between the raw tool model and
// rendering: it rewrites the IR according to the user's overlay (select,
// rename, re-describe, hide and inject parameters, compose). With no
// overlay it is the identity, and the raw tool set is what is rendered.
package curate

import (
	"github.com/tailormcp/tailor/generator/diag"
	"github.com/tailormcp/tailor/generator/ir"
)

// Apply curates api. It returns the curated API and the diagnostics found.
func Apply(api *ir.API) (*ir.API, []diag.Diagnostic) {
	return api, nil
}
