package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Report is a benchmark run's results.
type Report struct {
	Started  time.Time
	Duration time.Duration
	Command  string
	// Machine holds what the figures were measured on, in order.
	Machine [][2]string
	// Rows are the figures with targets (issues 6, 30, 31); Info the figures that
	// explain them.
	Rows, Info []Row
	// Lists break each tools/list down by field.
	Lists []ListRow
	Notes []string
	// Phases are points of the run, with the machine's and the benchmark's
	// CPU time then: the difference is other processes' (noise).
	Phases []Phase
	cfg    Config
}

// Phase is a point of the run.
type Phase struct {
	Name               string
	At                 time.Time
	Load               float64 // 1-minute load average
	MachineCPU, OurCPU float64 // seconds, cumulative
}

// noise describes, per stretch between phases, how much of the machine
// other processes used.
func (r *Report) noise() string {
	var parts []string
	for i := 1; i < len(r.Phases); i++ {
		a, b := r.Phases[i-1], r.Phases[i]
		wall := b.At.Sub(a.At).Seconds()
		if wall <= 0 || b.MachineCPU == 0 {
			continue
		}
		others := (b.MachineCPU - a.MachineCPU) - (b.OurCPU - a.OurCPU)
		if others < 0 {
			others = 0
		}
		share := fmt.Sprintf("%.0f%%", 100*others/(wall*float64(runtime.NumCPU())))
		if share == "0%" {
			share = "<1%"
		}
		parts = append(parts, fmt.Sprintf("%s → %s (%s): %s", a.Name, b.Name, time.Duration(wall*float64(time.Second)).Round(time.Second), share))
	}
	return strings.Join(parts, "; ")
}

// Row is one figure on one spec: each side's runs, and the target.
type Row struct {
	Figure, Spec, Unit string
	Tailor, Other      Sample
	// OtherLabel names the Other column when it is not openapi-mcp-generator.
	OtherLabel string
	Target     Target
	// NoRatio: the two columns are not alternatives of each other.
	NoRatio bool
	// Ratios, when set, are ratios taken pair by pair (one per spec of a
	// set): the row's ratio is their median, not that of the columns.
	Ratios Sample
}

// Target is a figure's goal: a bound on tailor ÷ other, or on tailor alone.
type Target struct {
	Kind  TargetKind
	Value float64
}

type TargetKind int

const (
	NoTarget  TargetKind = iota
	MaxRatio             // tailor ÷ other ≤ Value
	MinRatio             // tailor ÷ other ≥ Value
	MaxTailor            // tailor < Value (in the row's unit)
)

func (t Target) String(unit string) string {
	switch t.Kind {
	case MaxRatio:
		return "≤ " + trimFloat(t.Value)
	case MinRatio:
		return "≥ " + trimFloat(t.Value)
	case MaxTailor:
		return "< " + trimFloat(t.Value) + " " + unit
	}
	return "reported"
}

// Ratio is median(tailor) ÷ median(other), or NaN.
func (r Row) Ratio() float64 {
	if len(r.Ratios) > 0 {
		return r.Ratios.Median()
	}
	if r.NoRatio || len(r.Tailor) == 0 || len(r.Other) == 0 {
		return math.NaN()
	}
	return r.Tailor.Median() / r.Other.Median()
}

// Met says whether the target is met: "yes", "no", or "" (no target, or not
// measured).
func (r Row) Met() string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "**no**"
	}
	ratio := r.Ratio()
	switch r.Target.Kind {
	case MaxRatio:
		if !math.IsNaN(ratio) {
			return yes(ratio <= r.Target.Value)
		}
	case MinRatio:
		if !math.IsNaN(ratio) {
			return yes(ratio >= r.Target.Value)
		}
	case MaxTailor:
		if len(r.Tailor) > 0 {
			return yes(r.Tailor.Median() < r.Target.Value)
		}
	}
	return ""
}

// ListRow is one server's tools/list for one spec, by field.
type ListRow struct {
	Spec, Side string
	Tools      int
	Bytes      int
	Tokens     int // -1 when not counted
	// FieldBytes and FieldTokens: "name+title+description", "inputSchema",
	// "outputSchema", "annotations".
	FieldBytes, FieldTokens map[string]int
}

var listFields = []string{"name+title+description", "inputSchema", "outputSchema", "annotations"}

func (r *Report) note(s string) {
	for _, n := range r.Notes {
		if n == s {
			return
		}
	}
	r.Notes = append(r.Notes, s)
}

func (r *Report) add(row Row)  { r.Rows = append(r.Rows, row) }
func (r *Report) info(row Row) { r.Info = append(r.Info, row) }

func big(s Spec) bool { return s.Name == "stripe" || s.Name == "kubernetes" }

func (r *Report) addGeneration(s Spec, g map[string][]genRun) {
	wall := func(label string) Sample {
		var out Sample
		for _, x := range g[label] {
			out = append(out, millis(x.wall))
		}
		return out
	}
	rss := func(label string) Sample {
		var out Sample
		for _, x := range g[label] {
			out = append(out, float64(x.rssKiB)/1024)
		}
		return out
	}
	cpu := func(label string) Sample {
		var out Sample
		for _, x := range g[label] {
			out = append(out, x.cpu)
		}
		return out
	}
	// Issue 30 traded issue 6's ≤ 0.5 for one way to load a spec and
	// go/format: generation is to stay within the peer's time.
	t := Target{}
	if big(s) {
		t = Target{MaxRatio, 1}
	}
	r.add(Row{Figure: "generation wall time, spec → formatted files", Spec: s.Name, Unit: "ms", Tailor: wall(labelTailor), Other: wall(labelAlt), Target: t})
	r.note("tailor's generation runs each time with an empty cache folder (a new TAILOR_CACHE directory), as on a fresh CI machine; strict validation runs on every load.")
	r.add(Row{Figure: "generator peak RSS", Spec: s.Name, Unit: "MiB", Tailor: rss(labelTailor), Other: rss(labelAlt)})
	r.info(Row{Figure: "generator CPU time (user + system)", Spec: s.Name, Unit: "s", Tailor: cpu(labelTailor), Other: cpu(labelAlt)})
	r.info(Row{Figure: "generation wall time, tailor --no-validate", Spec: s.Name, Unit: "ms", Tailor: wall(labelTailorNoValidate), Other: wall(labelAlt)})
	r.info(Row{Figure: "generator peak RSS, tailor --no-validate", Spec: s.Name, Unit: "MiB", Tailor: rss(labelTailorNoValidate), Other: rss(labelAlt)})
}

func (r *Report) addColdStart(s Spec, c map[string][]coldRun, work, tokens string) error {
	get := func(label string, f func(coldRun) float64) Sample {
		var out Sample
		for _, x := range c[label] {
			out = append(out, f(x))
		}
		return out
	}
	list := func(x coldRun) float64 { return millis(x.list) }
	init := func(x coldRun) float64 { return millis(x.initialize) }
	rss := func(x coldRun) float64 { return float64(x.rssKiB) / 1024 }
	hwm := func(x coldRun) float64 { return float64(x.hwmKiB) / 1024 }
	t, tf := Target{}, Target{}
	if big(s) {
		t, tf = Target{MaxRatio, 0.25}, Target{MaxRatio, 2}
	}
	r.add(Row{Figure: "cold start over stdio: spawn → tools/list answered", Spec: s.Name, Unit: "ms", Tailor: get(labelTailor, list), Other: get(labelAlt, list), Target: t})
	r.add(Row{Figure: "cold start, tailor ÷ go-sdk server with no tools", Spec: s.Name, Unit: "ms", Tailor: get(labelTailor, list), Other: get(labelGoFloor, list), OtherLabel: labelGoFloor, Target: tf})
	t = Target{}
	if s.Name == "stripe" {
		t = Target{MaxRatio, 2}
	}
	r.add(Row{Figure: "cold start, tailor serve (spec → tools/list answered) ÷ the generated server", Spec: s.Name, Unit: "ms", Tailor: get(labelServe, list), Other: get(labelTailor, list), OtherLabel: "generated server", Target: t})
	r.note("tailor serve runs with the cache its warm-up start filled (TAILOR_CACHE), as after a developer's first start with the same spec: it serves the tool set that start built, without reading the spec again (its first start builds it: about the generation row's time).")
	t = Target{}
	if s.Name == "kubernetes" {
		t = Target{MaxRatio, 0.25}
	}
	r.add(Row{Figure: "resident memory of the running server (idle after tools/list)", Spec: s.Name, Unit: "MiB", Tailor: get(labelTailor, rss), Other: get(labelAlt, rss), Target: t})
	r.info(Row{Figure: "cold start: spawn → initialize answered", Spec: s.Name, Unit: "ms", Tailor: get(labelTailor, init), Other: get(labelAlt, init)})
	r.info(Row{Figure: "cold start of servers with no tools: go-sdk (tailor column) vs TypeScript SDK on Node", Spec: s.Name, Unit: "ms", Tailor: get(labelGoFloor, list), Other: get(labelNodeFloor, list), OtherLabel: labelNodeFloor})
	r.info(Row{Figure: "peak RSS of the server by then (VmHWM)", Spec: s.Name, Unit: "MiB", Tailor: get(labelTailor, hwm), Other: get(labelAlt, hwm)})
	r.info(Row{Figure: "RSS of servers with no tools: go-sdk (tailor column) vs TypeScript SDK", Spec: s.Name, Unit: "MiB", Tailor: get(labelGoFloor, rss), Other: get(labelNodeFloor, rss), OtherLabel: labelNodeFloor})

	// tools/list, bytes and tokens.
	dir := filepath.Join(work, "lists")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var rows []*ListRow
	var files []string
	fileOf := map[string]struct {
		row   *ListRow
		field string
	}{}
	for _, side := range []string{labelTailor, labelAlt} {
		runs := c[side]
		if len(runs) == 0 {
			continue
		}
		x := runs[0]
		lr := &ListRow{Spec: s.Name, Side: side, Tools: len(x.tools), Bytes: x.listBytes, Tokens: -1, FieldBytes: map[string]int{}, FieldTokens: map[string]int{}}
		parts := map[string][]byte{}
		for _, tool := range x.tools {
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(tool, &fields); err != nil {
				return fmt.Errorf("%s tools/list on %s: %v", side, s.Name, err)
			}
			for k, v := range fields {
				f := k
				switch k {
				case "name", "title", "description":
					f = "name+title+description"
				case "inputSchema", "outputSchema", "annotations":
				default:
					continue
				}
				lr.FieldBytes[f] += len(v)
				parts[f] = append(append(parts[f], v...), '\n')
			}
		}
		rows = append(rows, lr)
		base := filepath.Join(dir, s.Name+"-"+sanitize(side))
		if err := os.WriteFile(base+".json", x.raw, 0o644); err != nil {
			return err
		}
		files = append(files, base+".json")
		fileOf[base+".json"] = struct {
			row   *ListRow
			field string
		}{lr, ""}
		for _, f := range listFields {
			if len(parts[f]) == 0 {
				continue
			}
			name := base + "." + sanitize(f) + ".txt"
			if err := os.WriteFile(name, parts[f], 0o644); err != nil {
				return err
			}
			files = append(files, name)
			fileOf[name] = struct {
				row   *ListRow
				field string
			}{lr, f}
		}
	}
	if tokens != "" && len(files) > 0 {
		out, err := exec.Command(tokens, files...).Output()
		if err != nil {
			return fmt.Errorf("counting tokens: %v", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			n, file, ok := strings.Cut(line, "\t")
			if !ok {
				continue
			}
			count, _ := strconv.Atoi(n)
			if w, ok := fileOf[file]; ok {
				if w.field == "" {
					w.row.Tokens = count
				} else {
					w.row.FieldTokens[w.field] = count
				}
			}
		}
	}
	var tb, ob, tt, ot Sample
	for _, lr := range rows {
		if lr.Side == labelTailor {
			tb = Sample{float64(lr.Bytes)}
			if lr.Tokens >= 0 {
				tt = Sample{float64(lr.Tokens)}
			}
		} else {
			ob = Sample{float64(lr.Bytes)}
			if lr.Tokens >= 0 {
				ot = Sample{float64(lr.Tokens)}
			}
		}
		r.Lists = append(r.Lists, *lr)
	}
	r.add(Row{Figure: "tools/list size", Spec: s.Name, Unit: "bytes", Tailor: tb, Other: ob})
	if tokens != "" {
		r.add(Row{Figure: "tools/list tokens (o200k_base)", Spec: s.Name, Unit: "tokens", Tailor: tt, Other: ot})
	}
	return nil
}

func (r *Report) addCalls(s Spec, rounds []callSeries, mem map[string][2]int64) {
	over := func(label string, q float64) Sample {
		var out Sample
		for _, cs := range rounds {
			if len(cs.calls[label]) == 0 {
				continue
			}
			out = append(out, quantile(micros(cs.calls[label]), q)-quantile(micros(cs.calls[labelDirect]), q))
		}
		return out
	}
	raw := func(label string, q float64) Sample {
		var out Sample
		for _, cs := range rounds {
			if len(cs.calls[label]) == 0 {
				continue
			}
			out = append(out, quantile(micros(cs.calls[label]), q))
		}
		return out
	}
	r.add(Row{Figure: "tools/call over stdio, overhead over the direct request, median", Spec: s.Name, Unit: "µs", Tailor: over(labelTailor, 0.5), Other: over(labelAlt, 0.5), Target: Target{MaxRatio, 0.25}})
	r.add(Row{Figure: "tools/call over stdio, overhead over the direct request, p99", Spec: s.Name, Unit: "µs", Tailor: over(labelTailor, 0.99), Other: over(labelAlt, 0.99), Target: Target{MaxRatio, 0.25}})
	r.add(Row{Figure: "tools/call round trip over stdio, tailor ÷ the floor (a go-sdk server whose handler makes the same request), median", Spec: s.Name, Unit: "µs", Tailor: raw(labelTailor, 0.5), Other: raw(labelGoRequestFloor, 0.5), OtherLabel: "floor", Target: Target{MaxRatio, 1.15}})
	r.add(Row{Figure: "the same, p99", Spec: s.Name, Unit: "µs", Tailor: raw(labelTailor, 0.99), Other: raw(labelGoRequestFloor, 0.99), OtherLabel: "floor", Target: Target{MaxRatio, 1.15}})
	r.info(Row{Figure: "tools/call over stdio, overhead over the direct request, median, tailor in absolute terms", Spec: s.Name, Unit: "µs", Tailor: over(labelTailor, 0.5), Other: over(labelGoRequestFloor, 0.5), OtherLabel: "floor"})
	r.info(Row{Figure: "tools/call round trip over stdio, median", Spec: s.Name, Unit: "µs", Tailor: raw(labelTailor, 0.5), Other: raw(labelAlt, 0.5)})
	r.info(Row{Figure: "tools/call round trip over stdio, p99", Spec: s.Name, Unit: "µs", Tailor: raw(labelTailor, 0.99), Other: raw(labelAlt, 0.99)})
	r.info(Row{Figure: "tools/call round trip over stdio of a tool that makes no request, servers on the bare SDKs: go-sdk (tailor column) vs TypeScript SDK, median", Spec: s.Name, Unit: "µs", Tailor: raw(labelGoFloor, 0.5), Other: raw(labelNodeFloor, 0.5), OtherLabel: "TypeScript SDK"})
	r.info(Row{Figure: "the same, p99", Spec: s.Name, Unit: "µs", Tailor: raw(labelGoFloor, 0.99), Other: raw(labelNodeFloor, 0.99), OtherLabel: "TypeScript SDK"})
	r.info(Row{Figure: "the direct request (subtracted above): median (tailor column) and p99", Spec: s.Name, Unit: "µs", Tailor: raw(labelDirect, 0.5), Other: raw(labelDirect, 0.99), OtherLabel: "p99", NoRatio: true})
	mib := func(label string, i int) Sample {
		if m, ok := mem[label]; ok {
			return Sample{float64(m[i]) / 1024}
		}
		return nil
	}
	r.info(Row{Figure: fmt.Sprintf("RSS after %d tools/call", r.cfg.Rounds*r.cfg.Calls+r.cfg.Calls/5+1), Spec: s.Name, Unit: "MiB", Tailor: mib(labelTailor, 0), Other: mib(labelAlt, 0)})
}

func (r *Report) addHTTP(s Spec, h map[string][]httpResult, cfg Config) {
	get := func(label string, f func(httpResult) (float64, bool)) Sample {
		var out Sample
		for _, x := range h[label] {
			if v, ok := f(x); ok {
				out = append(out, v)
			}
		}
		return out
	}
	shared := func(x httpResult) (float64, bool) { return x.shared.perSecond, true }
	many := func(x httpResult) (float64, bool) { return x.many.perSecond, x.secondSession == nil && x.many.ok > 0 }
	rss := func(x httpResult) (float64, bool) { return float64(x.rssKiB) / 1024, x.rssKiB > 0 }
	r.add(Row{Figure: fmt.Sprintf("sustained tools/call per second, streamable HTTP, %d concurrent clients (one session)", cfg.Clients), Spec: s.Name, Unit: "calls/s", Tailor: get(labelTailor, shared), Other: get(labelAlt, shared), Target: Target{MinRatio, 4}})
	r.info(Row{Figure: fmt.Sprintf("the same, %d clients with a session each", cfg.Clients), Spec: s.Name, Unit: "calls/s", Tailor: get(labelTailor, many), Other: get(labelAlt, many)})
	r.info(Row{Figure: "RSS after the HTTP load", Spec: s.Name, Unit: "MiB", Tailor: get(labelTailor, rss), Other: get(labelAlt, rss)})
	for _, label := range []string{labelTailor, labelAlt} {
		var second error
		var failed, total int64
		var firstErr error
		for _, x := range h[label] {
			if second == nil {
				second = x.secondSession
			}
			for _, run := range []httpRun{x.shared, x.many} {
				failed += run.failed
				total += run.failed + run.ok
				if firstErr == nil {
					firstErr = run.firstErr
				}
			}
		}
		if second != nil {
			r.note(fmt.Sprintf("%s over streamable HTTP does not serve two sessions at once (%s: %v), so clients with a session each could not be measured for it; the compared figure uses one session shared by the %d clients, which both servers serve.", label, s.Name, second, cfg.Clients))
		}
		if failed > 0 {
			r.note(fmt.Sprintf("%s on %s: %d of %d calls under HTTP load failed (not counted); the first: %v", label, s.Name, failed, total, firstErr))
		}
	}
}

// Markdown renders the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Run of %s (%s)\n\n", r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Duration.Round(time.Second))
	if r.Command != "" {
		fmt.Fprintf(&b, "Command: `%s`\n\n", r.Command)
	}
	c := r.cfg
	fmt.Fprintf(&b, "Shape: %d interleaved runs of generation and cold start (after one warm-up each); %d rounds of %d tools/call per server over stdio, interleaved one by one with the direct request, each after %s of quiet (after %d warm-up calls each); %d rounds of %s of HTTP load (after %s warm-up) with %d clients. Cells are median (min–max) over runs or rounds.\n\n",
		c.Runs, c.Rounds, c.Calls, callGap, c.Calls/5, c.Rounds, c.Duration, c.Warmup, c.Clients)
	if len(r.Machine) > 0 {
		b.WriteString("| | |\n|---|---|\n")
		for _, kv := range r.Machine {
			fmt.Fprintf(&b, "| %s | %s |\n", kv[0], kv[1])
		}
		var loads []string
		for _, p := range r.Phases {
			loads = append(loads, fmt.Sprintf("%s %.2f", p.Name, p.Load))
		}
		fmt.Fprintf(&b, "| load average (1 min) at points of the run | %s |\n", strings.Join(loads, "; "))
		if n := r.noise(); n != "" {
			fmt.Fprintf(&b, "| CPU used by other processes (noise), share of all CPUs | %s |\n", n)
		}
		b.WriteString("\n")
	}
	b.WriteString("#### Figures with targets (tailor ÷ openapi-mcp-generator unless the row says otherwise)\n\n")
	writeRows(&b, r.Rows, true)
	b.WriteString("\n#### Supporting figures\n\n")
	writeRows(&b, r.Info, false)
	if len(r.Lists) > 0 {
		b.WriteString("\n#### tools/list by field (bytes / o200k_base tokens)\n\n")
		b.WriteString("| spec | server | tools | whole result | name+title+description | inputSchema | outputSchema | annotations |\n|---|---|---|---|---|---|---|---|\n")
		for _, l := range r.Lists {
			cell := func(bytes, tokens int, counted bool) string {
				if bytes == 0 {
					return "—"
				}
				if !counted {
					return fmtNum(float64(bytes))
				}
				return fmtNum(float64(bytes)) + " / " + fmtNum(float64(tokens))
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s |", l.Spec, l.Side, l.Tools, cell(l.Bytes, l.Tokens, l.Tokens >= 0))
			for _, f := range listFields {
				_, counted := l.FieldTokens[f]
				fmt.Fprintf(&b, " %s |", cell(l.FieldBytes[f], l.FieldTokens[f], counted))
			}
			b.WriteString("\n")
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

func writeRows(b *strings.Builder, rows []Row, targets bool) {
	if targets {
		b.WriteString("| figure | spec | tailor | other | ratio | target | met |\n|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| figure | spec | tailor | other | ratio |\n|---|---|---|---|---|\n")
	}
	// Keep the figures together, in the order they were added.
	order := map[string]int{}
	for _, row := range rows {
		if _, ok := order[row.Figure]; !ok {
			order[row.Figure] = len(order)
		}
	}
	sorted := append([]Row(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return order[sorted[i].Figure] < order[sorted[j].Figure] })
	for _, row := range sorted {
		other := cell(row.Other, row.Unit)
		if row.OtherLabel != "" && len(row.Other) > 0 {
			other += " (" + row.OtherLabel + ")"
		}
		ratio := "—"
		if v := row.Ratio(); !math.IsNaN(v) && !math.IsInf(v, 0) {
			ratio = fmt.Sprintf("%.2f", v)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |", row.Figure, row.Spec, cell(row.Tailor, row.Unit), other, ratio)
		if targets {
			fmt.Fprintf(b, " %s | %s |", row.Target.String(row.Unit), row.Met())
		}
		b.WriteString("\n")
	}
}

func cell(s Sample, unit string) string {
	if len(s) == 0 {
		return "—"
	}
	if len(s) == 1 {
		return fmtNum(s[0]) + " " + unit
	}
	return fmt.Sprintf("%s %s (%s–%s)", fmtNum(s.Median()), unit, fmtNum(s.Min()), fmtNum(s.Max()))
}

// fmtNum prints three significant digits, no exponent, thousands apart.
func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	a := math.Abs(v)
	var s string
	switch {
	case v == math.Trunc(v) && a < 1e15:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		s = strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	case a >= 10:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	case a == 0:
		s = "0"
	default:
		s = strconv.FormatFloat(v, 'f', 3, 64)
	}
	if a >= 10000 {
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		var out []byte
		for i := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				out = append(out, ',')
			}
			out = append(out, s[i])
		}
		s = string(out)
		if neg {
			s = "-" + s
		}
	}
	return s
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func toolNames(tools []jsonRaw) map[string]bool {
	names := map[string]bool{}
	for _, t := range tools {
		var x struct {
			Name string `json:"name"`
		}
		json.Unmarshal(t, &x)
		names[x.Name] = true
	}
	return names
}

type jsonRaw = json.RawMessage
