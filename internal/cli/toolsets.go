package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailormcp/tailor/generator"
	"github.com/tailormcp/tailor/internal/generate/ir"
	"github.com/tailormcp/tailor/internal/generate/overlay"
)

// toolSets are the raw and curated tool sets of a spec and overlay, which
// diff, lint, init and check start from.
type toolSets struct {
	raw, curated *ir.API
	overlay      *overlay.Overlay // nil without one
}

// specFlags are the input flags diff, lint and init share.
type specFlags struct {
	spec, overlay   string
	allowRemoteRefs bool
	refRoot         string
}

// addRefFlags declares the flags that say what a spec's $refs may read.
func (f *specFlags) addRefFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&f.allowRemoteRefs, "allow-remote-refs", false, "let $refs fetch http(s) URLs")
	fl.StringVar(&f.refRoot, "ref-root", "", refRootUsage)
}

// build runs the pipeline without rendering, with and without the overlay.
// Spec validation is skipped: its warnings are generate's business.
func (f specFlags) build() (*toolSets, error) {
	opts := generator.Options{SpecPath: f.spec, OverlayPath: f.overlay, AllowRemoteRefs: f.allowRemoteRefs, RefRoot: f.refRoot, SkipValidation: true}
	cur, err := generator.Build(opts)
	if err != nil {
		return nil, err
	}
	ts := &toolSets{raw: cur.API, curated: cur.API}
	if f.overlay == "" {
		return ts, nil
	}
	if ts.overlay, err = parseOverlay(f.overlay); err != nil {
		return nil, err
	}
	opts.OverlayPath = ""
	raw, err := generator.Build(opts)
	if err != nil {
		return nil, err
	}
	ts.raw = raw.API
	return ts, nil
}

func parseOverlay(path string) (*overlay.Overlay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read overlay: %w", err)
	}
	return overlay.Parse(path, data)
}

// required returns a usage error naming the flags that are missing.
func required(cmd string, flags ...[2]string) error {
	var missing []string
	for _, f := range flags {
		if f[1] == "" {
			missing = append(missing, f[0])
		}
	}
	if len(missing) == 0 {
		return nil
	}
	verb := "are"
	if len(missing) == 1 {
		verb = "is"
	}
	return &exitError{code: ExitUsage, err: fmt.Errorf("tailor %s: %s %s required (see tailor %s --help)", cmd, strings.Join(missing, " and "), verb, cmd)}
}

// oneOf checks a flag's value against the values it may take.
func oneOf(cmd, flag, value string, values []string) error {
	for _, v := range values {
		if v == value {
			return nil
		}
	}
	return &exitError{code: ExitUsage, err: fmt.Errorf("tailor %s: %s must be one of %s, not %q", cmd, flag, strings.Join(values, ", "), value)}
}
