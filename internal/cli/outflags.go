package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/tailormcp/tailor/generator"
)

// generate and check take the same flags: check regenerates in memory with
// the flags of the go:generate line and compares. They are declared here
// once, so that the two commands cannot drift apart.

// addGenerateFlags declares the flags that shape the generated package.
// out says what --out is to the command.
func addGenerateFlags(f *pflag.FlagSet, o *generator.Options, omitVersion *bool, out string) {
	f.StringVar(&o.SpecPath, "spec", "", "OpenAPI description to read (YAML or JSON)")
	f.StringVar(&o.OverlayPath, "overlay", "", "tailor overlay (YAML) that curates the tool set; without it every operation is a raw tool")
	f.BoolVar(&o.Strict, "strict", false, "refuse, instead of warning, overlay actions that match nothing and spec defects tailor would repair or leave out")
	f.StringVar(&o.OutDir, "out", "", out)
	f.StringVar(&o.Package, "package", "", "Go package name (default: the last element of --out)")
	f.BoolVar(&o.Main, "main", false, "also write a runnable main.go (in cmd/<name>/, or in --out when --package is main)")
	f.StringVar(&o.ImportPath, "import-path", "", "import path of the generated package, for --main (default: from the enclosing go.mod)")
	f.StringVar(&o.Name, "name", "", "server name reported to clients, and in upper snake case the environment variable prefix (default: the overlay's server.name, else the package name; for package main a short name (12 characters at most) of the spec's info.title, else of its host, else tailor; the environment prefix of that default stays the title in upper snake case)")
	f.StringVar(&o.EnvPrefix, "env-prefix", "", "prefix of the environment variables the server reads (default: the name in upper snake case)")
	f.BoolVar(&o.AllowRemoteRefs, "allow-remote-refs", false, "let $refs fetch http(s) URLs (off: a spec should not make tailor send requests)")
	f.StringVar(&o.RefRoot, "ref-root", "", refRootUsage)
	f.BoolVar(&o.SkipValidation, "no-validate", false, "skip strict spec validation (it only produces warnings)")
	f.BoolVar(&o.FullSchemas, "full-schemas", false, fullSchemasUsage)
	f.BoolVar(omitVersion, "omit-version", false, "leave tailor's version out of the generated header (stable golden files)")
}

// fullSchemasUsage explains --full-schemas wherever it is declared.
const fullSchemasUsage = "list each tool's full JSON Schema instead of its strict form (the subset model APIs accept as strict; calls are checked against the full schema either way)"

// refRootUsage explains --ref-root wherever it is declared.
const refRootUsage = "folder local $refs may read files below (default: the enclosing repository, the nearest folder holding .git, else the spec's folder)"

// checkGenerateFlags checks the flags of addGenerateFlags and fills in the
// defaults that depend on others.
func checkGenerateFlags(cmd string, o *generator.Options, omitVersion bool) error {
	if err := required(cmd, [2]string{"--spec", o.SpecPath}, [2]string{"--out", o.OutDir}); err != nil {
		return err
	}
	if o.Package == "" {
		// Abs, so that --out . names the directory it is.
		dir, err := filepath.Abs(o.OutDir)
		if err != nil {
			dir = o.OutDir
		}
		o.Package = filepath.Base(dir)
		if !generator.ValidPackage(o.Package) {
			return &exitError{code: ExitUsage, err: fmt.Errorf("tailor %s: the package name would be %q, the last element of --out, which is not a Go identifier: pass --package NAME", cmd, o.Package)}
		}
	}
	if !generator.ValidPackage(o.Package) {
		return &exitError{code: ExitUsage, err: fmt.Errorf("tailor %s: --package %q is not a valid Go package name: use a Go identifier such as petstore", cmd, o.Package)}
	}
	if o.Package == "main" && !o.Main {
		// A main package without func main does not build.
		return &exitError{code: ExitUsage, err: fmt.Errorf("tailor %s: --package main needs --main (a main package must have a main function); or name the package, e.g. --package petstore", cmd)}
	}
	if !omitVersion {
		o.ToolVersion = Version()
	}
	return nil
}
