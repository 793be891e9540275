package model

import (
	"net/url"
	"strings"
)

// MaxDefaultServerName is the longest server name tailor chooses itself.
// Clients put the server's name before every tool's (mcp__<server>__ in
// Claude Code) within one limit: each character of it is one less for the
// tool names.
const MaxDefaultServerName = 12

// maxServerWord is the longest single word a default server name keeps
// whole; a longer one is cut.
const maxServerWord = 16

// DefaultServerName is the server's name when neither the flags, the
// overlay nor the Go package name one: the telling words of the spec's
// title in snake_case ("Stripe API" → stripe, "Swagger Petstore" →
// petstore), joined while within MaxDefaultServerName characters, else
// the name of the API's host (api.stripe.com → stripe), else "tailor". A
// first word longer than that stays whole up to maxServerWord characters
// (elasticsearch). The same spec always gives the same name.
func DefaultServerName(title string, servers []string) string {
	if name := shortName(strings.Split(SnakeCase(title), "_")); name != "" {
		return name
	}
	for _, s := range servers {
		if u, err := url.Parse(s); err == nil && u.Hostname() != "" {
			labels := strings.Split(u.Hostname(), ".")
			if len(labels) > 1 {
				labels = labels[:len(labels)-1] // the top-level domain
			}
			// The registered name, not api. or www.: the last label left.
			if name := shortName(strings.Split(SnakeCase(labels[len(labels)-1]), "_")); name != "" && name != "localhost" {
				return name
			}
		}
	}
	return "tailor"
}

// shortName joins the telling words of words while within
// MaxDefaultServerName characters.
func shortName(words []string) string {
	var out string
	for _, w := range words {
		if len(w) < 2 || genericTitleWords[w] || versionWord.MatchString(w) {
			continue
		}
		switch {
		case out == "":
			out = w[:min(len(w), maxServerWord)]
		case len(out)+1+len(w) <= MaxDefaultServerName:
			out += "_" + w
		default:
			return out
		}
	}
	return out
}

// genericTitleWords say that a title is an API's, not which API.
var genericTitleWords = map[string]bool{
	"api": true, "apis": true, "openapi": true, "swagger": true, "rest": true, "http": true, "https": true, "web": true,
	"service": true, "services": true, "documentation": true, "docs": true, "reference": true, "specification": true,
	"spec": true, "definition": true, "request": true, "response": true, "the": true, "and": true, "for": true,
	"of": true, "public": true, "preview": true, "example": true, "sample": true, "server": true, "localhost": true,
}
