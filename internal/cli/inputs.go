package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailormcp/tailor/generator"
)

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

// run runs the pipeline once on the flags' spec and overlay: the raw and
// the curated tool sets. Spec validation is skipped: its warnings are
// generate's business. See generator.Run for what comes back with an error.
func (f specFlags) run() (*generator.Output, error) {
	return generator.Run(generator.Options{SpecPath: f.spec, OverlayPath: f.overlay, AllowRemoteRefs: f.allowRemoteRefs, RefRoot: f.refRoot, SkipValidation: true})
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
