package model

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestFitNamesSiblings: kubernetes-style names that differ only in their
// API version keep the version that tells them apart, fit the budget, and
// come out the same every time; names that fit are not touched, even when
// a shortened name would read like one of them.
func TestFitNamesSiblings(t *testing.T) {
	bases := []string{
		"create_autoscaling_v1_namespaced_horizontal_pod_autoscaler",
		"create_autoscaling_v2_namespaced_horizontal_pod_autoscaler",
		"create_autoscaling_v2beta2_namespaced_horizontal_pod_autoscaler",
		"list_autoscaling_v2_horizontal_pod_autoscaler_for_all_namespaces",
		"list_pods",
		"get_v1_things", // fits: kept whole
		"get_v2_things",
	}
	const budget = 47 // mcp__kubernetes__ in 64
	first := fitNames(bases, budget)
	seen := map[string]bool{}
	for i, f := range first {
		if len(f.name) > budget || !ValidToolName(f.name) {
			t.Errorf("%q: over %d or invalid", f.name, budget)
		}
		if seen[f.name] {
			t.Errorf("%q: twice", f.name)
		}
		seen[f.name] = true
		if f.shortened != (len(bases[i]) > budget) {
			t.Errorf("%q shortened = %v", bases[i], f.shortened)
		}
		if !f.shortened && f.name != bases[i] {
			t.Errorf("%q fits but was renamed %q", bases[i], f.name)
		}
		if !strings.HasPrefix(f.name, strings.SplitN(bases[i], "_", 2)[0]+"_") {
			t.Errorf("%q lost its verb", f.name)
		}
	}
	for i, v := range []string{"v1", "v2", "v2beta2"} {
		if !strings.Contains("_"+first[i].name+"_", "_"+v+"_") || !strings.HasSuffix(first[i].name, "_pod_autoscaler") {
			t.Errorf("%q: lost %s or its resource", first[i].name, v)
		}
		if first[i].taken >= 0 {
			t.Errorf("%q: got a suffix where the version tells it apart", first[i].name)
		}
	}
	again := fitNames(bases, budget)
	for i := range first {
		if first[i] != again[i] {
			t.Errorf("not deterministic: %+v, then %+v", first[i], again[i])
		}
	}
}

// TestFitNamesSuffix: long bases that are the same (two paths that read
// alike) are told apart by a short suffix within the budget, in operation
// order; a short name another long one shortens to keeps it.
func TestFitNamesSuffix(t *testing.T) {
	long := "get_api_v1_watch_namespaces_namespace_pods_with_label_selector_and_field_selector"
	bases := []string{long, long, long, "get_watch_ns_pods_label_selector_field_selector", "list_users"}
	got := fitNames(bases, 48)
	if got[3].name != bases[3] || got[3].taken != -1 {
		t.Errorf("the name that fits changed: %+v", got[3])
	}
	names := map[string]bool{}
	for i, f := range got {
		if len(f.name) > 48 || names[f.name] {
			t.Errorf("%d: %q over 48 or twice", i, f.name)
		}
		names[f.name] = true
	}
	if got[0].taken != 3 || got[1].taken != 3 || got[2].taken != 3 {
		t.Errorf("suffixes should say whose name it was: %+v", got)
	}
	for i, f := range got[:3] {
		if want := fmt.Sprintf("_%d", i+2); !strings.HasSuffix(f.name, want) {
			t.Errorf("%q: want suffix %s", f.name, want)
		}
	}
}

// TestFitNamesRepeated: a name thousands of operations share takes the
// suffixes in order, past one a name that fits whole already holds, and
// the search for each starts where the last one ended: the work grows
// with the names, not their square (counted in bytes allocated).
func TestFitNamesRepeated(t *testing.T) {
	got := fitNames([]string{"same", "same_3", "same", "same", "same"}, 48)
	var names []string
	for _, f := range got {
		names = append(names, f.name)
	}
	if want := "same same_3 same_2 same_4 same_5"; strings.Join(names, " ") != want {
		t.Errorf("names %q, want %q", strings.Join(names, " "), want)
	}
	alloc := func(n int) uint64 {
		bases := make([]string, n)
		for i := range bases {
			bases[i] = "same"
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := fitNames(bases, 48)
		runtime.ReadMemStats(&after)
		if last := got[n-1].name; last != "same_"+strconv.Itoa(n) {
			t.Fatalf("the last of %d is %q", n, last)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(1000), alloc(8000)
	if ratio := float64(large) / float64(small); ratio > 16 {
		t.Errorf("8 times the names allocated %.0f times the bytes (%d → %d)", ratio, small, large)
	}
}

// TestShortenAbbreviates: usual long words are abbreviated before words
// are dropped, and an abbreviation that would repeat a word drops it.
func TestShortenAbbreviates(t *testing.T) {
	for _, c := range []struct {
		name string
		max  int
		want string
	}{
		{"replace_namespaced_configuration_map", 30, "replace_ns_configuration_map"},
		{"replace_namespaced_configuration_map", 25, "replace_ns_config_map"},
		{"get_namespaces_namespace_pods_log", 20, "get_ns_pods_log"},
		{"create_namespaced_pod_binding", 40, "create_namespaced_pod_binding"}, // fits: left alone
	} {
		if got := shorten(c.name, c.max, nil); got != c.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", c.name, c.max, got, c.want)
		}
	}
}

// TestNameBudget: the budget is the tightest client's limit given the
// server name as each client spells it, never below MinNameBudget.
func TestNameBudget(t *testing.T) {
	if got := NameBudget("kubernetes"); got != 64-len("mcp__kubernetes__") {
		t.Errorf("NameBudget(kubernetes) = %d", got)
	}
	if got := NameBudget("my shop"); got != 64-len("mcp__my_shop__") {
		t.Errorf("a space counts as the _ clients put for it: %d", got)
	}
	if got := NameBudget(strings.Repeat("x", 60)); got != MinNameBudget {
		t.Errorf("a long server name: %d", got)
	}
	for _, c := range Clients {
		if c.Limit("shop") > 64 || c.Limit("shop") < NameBudget("shop") {
			t.Errorf("%s: limit %d", c.Name, c.Limit("shop"))
		}
	}
	name := strings.Repeat("a", NameBudget("shop")+1)
	if over := OverLimit("shop", name); len(over) == 0 || over[0].Name != "Claude Code" {
		t.Errorf("one over the budget is over Claude Code's limit: %v", over)
	}
	if over := Over("shop", name[1:]); over != "" {
		t.Errorf("a name within the budget is over %s", over)
	}
}

// TestDefaultServerName: short, from the title's telling words, else the
// host, else tailor.
func TestDefaultServerName(t *testing.T) {
	for _, c := range []struct {
		title   string
		servers []string
		want    string
	}{
		{"Stripe API", nil, "stripe"},
		{"Swagger Petstore", nil, "petstore"},
		{"The Plaid API", nil, "plaid"},
		{"Google Maps Platform", nil, "google_maps"},
		{"Argo Workflows API", nil, "argo"},
		{"Elasticsearch Request & Response Specification", nil, "elasticsearch"},
		{"Supercalifragilisticexpialidocious", nil, "supercalifragili"},
		{"API Reference", []string{"https://us.sentry.io"}, "sentry"},
		{"", []string{"http://localhost:8080", "https://api.frigate.video/api"}, "frigate"},
		{"", nil, "tailor"},
	} {
		got := DefaultServerName(c.title, c.servers)
		if got != c.want {
			t.Errorf("DefaultServerName(%q, %q) = %q, want %q", c.title, c.servers, got, c.want)
		}
		if len(got) > maxServerWord || !ValidToolName(got) {
			t.Errorf("%q: not a short valid name", got)
		}
	}
}
