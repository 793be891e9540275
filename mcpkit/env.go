package mcpkit

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// settings reads a server's flags and their environment variables
// (<PREFIX>_<NAME>), and collects every value that does not parse or is
// out of range, named by where it came from: a bad value is an error at
// start, never a silent default.
type settings struct {
	fs     *flag.FlagSet
	prefix string
	getenv func(string) string
	// envName maps a flag to its environment variable.
	envName map[string]string
	errs    []string
}

func newSettings(fs *flag.FlagSet, prefix string, getenv func(string) string) *settings {
	return &settings{fs: fs, prefix: prefix, getenv: getenv, envName: map[string]string{}}
}

// env returns <PREFIX>_<name>.
func (s *settings) env(name string) string {
	return strings.TrimSpace(s.getenv(s.prefix + "_" + name))
}

func (s *settings) badEnv(name, value, want string) {
	s.errs = append(s.errs, fmt.Sprintf("%s_%s=%q: %s", s.prefix, name, value, want))
}

func (s *settings) String(flagName, envName, usage string) *string {
	s.envName[flagName] = envName
	return s.fs.String(flagName, s.env(envName), usage+" (env "+s.prefix+"_"+envName+")")
}

func (s *settings) Bool(flagName, envName, usage string) *bool {
	s.envName[flagName] = envName
	def := false
	if v := s.env(envName); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			s.badEnv(envName, v, "not a boolean (true or false)")
		}
		def = b
	}
	return s.fs.Bool(flagName, def, usage+" (env "+s.prefix+"_"+envName+")")
}

func (s *settings) Int(flagName, envName string, def int, usage string) *int {
	s.envName[flagName] = envName
	if v := s.env(envName); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			s.badEnv(envName, v, "not a whole number")
		} else {
			def = n
		}
	}
	return s.fs.Int(flagName, def, usage+" (env "+s.prefix+"_"+envName+")")
}

func (s *settings) Duration(flagName, envName string, def time.Duration, usage string) *time.Duration {
	s.envName[flagName] = envName
	if v := s.env(envName); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			s.badEnv(envName, v, "not a duration (such as 30s, 5m or 1h)")
		} else {
			def = d
		}
	}
	return s.fs.Duration(flagName, def, usage+" (env "+s.prefix+"_"+envName+")")
}

// given reports whether a flag was set on the command line or through
// its environment variable.
func (s *settings) given(flagName string) bool {
	set := false
	s.fs.Visit(func(f *flag.Flag) { set = set || f.Name == flagName })
	return set || s.env(s.envName[flagName]) != ""
}

// source names where a flag's value came from, for a message.
func (s *settings) source(flagName string) string {
	set := false
	s.fs.Visit(func(f *flag.Flag) { set = set || f.Name == flagName })
	if !set && s.env(s.envName[flagName]) != "" {
		return s.prefix + "_" + s.envName[flagName]
	}
	return "--" + flagName
}

// positive checks that a duration flag given (or defaulted) is above zero.
func (s *settings) positive(flagName string, d time.Duration, example string) {
	if d <= 0 {
		s.errs = append(s.errs, fmt.Sprintf("%s %s: give a positive duration, such as %s", s.source(flagName), d, example))
	}
}

// atLeast checks an integer flag's lower bound.
func (s *settings) atLeast(flagName string, n, min int) {
	if n < min {
		s.errs = append(s.errs, fmt.Sprintf("%s %d: must be at least %d", s.source(flagName), n, min))
	}
}

// commaList splits a comma-separated value.
func commaList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
