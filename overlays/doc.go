// Package overlays will hold tailor's overlay format: the YAML file in which a
// backend team curates the raw tool set (select, rename, re-describe, hide,
// fix or inject parameters, compose operations, shape results and errors).
// The curate stage (generator/curate) applies it to the IR.
//
// It is empty until the overlay issue lands; see ARCHITECTURE.md.
package overlays
