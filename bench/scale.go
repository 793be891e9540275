package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tailormcp/tailor/internal/testkit"
)

// Scale rows (issue 31): how tailor's memory and start-up time grow with
// the number of operations, on synthetic specs (testkit.SyntheticSpec) of
// Config.Scale operations each. For each size, once:
//
//   - tailor serve with its cache off: spawn → initialize and the first
//     tools/list page answered, and the process's peak resident memory by
//     then (VmHWM);
//   - tailor generate with its caches off: wall time and peak RSS;
//   - the generated server, for sizes up to Config.ScaleBuild: the go build
//     of it (wall time, peak RSS of the largest process it ran), and its
//     resident memory after the first tools/list page.
//
// The targets are issue 31's, for 50,000 operations on a 2-core machine.

// scaleTimeout bounds each step of a scale run.
const scaleTimeout = 10 * time.Minute

// measureScale adds the scale rows.
func (b *runner) measureScale(ctx context.Context) error {
	dir := filepath.Join(b.work, "scale")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, n := range b.cfg.Scale {
		name := fmt.Sprintf("synthetic, %d operations", n)
		spec := filepath.Join(dir, fmt.Sprintf("syn%d.yaml", n))
		if err := os.WriteFile(spec, testkit.SyntheticSpec(n), 0o644); err != nil {
			return err
		}
		at50k := func(v float64) Target {
			if n == 50000 {
				return Target{MaxTailor, v}
			}
			return Target{}
		}

		b.logf("scale: %d operations, tailor serve", n)
		sv := server{label: labelServe, argv: []string{b.tailor.cli, "serve", "--spec", spec, "--name", "syn"}, dir: dir, env: []string{"TAILOR_CACHE=off"}}
		first, hwm, _, err := b.firstPage(ctx, sv)
		if err != nil {
			return err
		}
		b.report.add(Row{Figure: "tailor serve, initialize + first tools/list page, cache off", Spec: name, Unit: "s", Tailor: Sample{first.Seconds()}, NoRatio: true, Target: at50k(5)})
		b.report.add(Row{Figure: "tailor serve, peak RSS to the first tools/list page", Spec: name, Unit: "MiB", Tailor: Sample{float64(hwm) / 1024}, NoRatio: true, Target: at50k(512)})

		b.logf("scale: %d operations, tailor generate", n)
		pkg := fmt.Sprintf("syn%d", n)
		out := filepath.Join(b.tailor.mod, pkg)
		g, err := b.timeCommand(ctx, []string{b.tailor.cli, "generate", "-q", "--spec", spec, "--out", out, "--package", pkg, "--main"}, b.tailor.mod, []string{"TAILOR_CACHE=off"}, scaleTimeout)
		if err != nil {
			return err
		}
		b.report.add(Row{Figure: "tailor generate, wall time, caches off", Spec: name, Unit: "s", Tailor: Sample{g.wall.Seconds()}, NoRatio: true})
		b.report.add(Row{Figure: "tailor generate, peak RSS", Spec: name, Unit: "MiB", Tailor: Sample{float64(g.rssKiB) / 1024}, NoRatio: true, Target: at50k(1024)})

		if n > b.cfg.ScaleBuild {
			b.report.note(fmt.Sprintf("The generated server of %d operations was not built (--scale-build %d): see BENCHMARKS.md on what building it costs.", n, b.cfg.ScaleBuild))
			os.RemoveAll(out)
			continue
		}
		b.logf("scale: %d operations, go build of the generated server", n)
		bin := filepath.Join(b.work, "bin", pkg)
		build, err := b.timeCommand(ctx, []string{"go", "build", "-o", bin, "./" + pkg + "/cmd/" + pkg}, b.tailor.mod, goEnv, scaleTimeout)
		if err != nil {
			return err
		}
		b.report.info(Row{Figure: "go build of the generated server, wall time", Spec: name, Unit: "s", Tailor: Sample{build.wall.Seconds()}, NoRatio: true})
		b.report.info(Row{Figure: "go build of the generated server, peak RSS of one process", Spec: name, Unit: "MiB", Tailor: Sample{float64(build.rssKiB) / 1024}, NoRatio: true})
		gen := server{label: "generated " + pkg, argv: []string{bin}, dir: dir}
		first, _, rss, err := b.firstPage(ctx, gen)
		if err != nil {
			return err
		}
		b.report.add(Row{Figure: "generated server, initialize + first tools/list page", Spec: name, Unit: "s", Tailor: Sample{first.Seconds()}, NoRatio: true})
		b.report.add(Row{Figure: "generated server, resident memory after the first tools/list page", Spec: name, Unit: "MiB", Tailor: Sample{float64(rss) / 1024}, NoRatio: true, Target: at50k(256)})
		os.RemoveAll(out)
	}
	return nil
}

// firstPage starts sv over stdio and returns how long initialize and the
// first tools/list page took from the spawn, the process's peak resident
// memory by then and its resident memory once idle after it.
func (b *runner) firstPage(ctx context.Context, sv server) (took time.Duration, hwmKiB, rssKiBAfter int64, err error) {
	errPath := filepath.Join(b.work, "logs", sanitize(sv.label)+"-scale.stderr")
	s, err := startStdio(ctx, sv.argv, sv.dir, sv.env, errPath, scaleTimeout)
	if err != nil {
		return 0, 0, 0, err
	}
	defer s.Close()
	if _, err := s.initialize(); err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w (stderr: %s)", sv.label, err, readTail(errPath))
	}
	_, at, _, err := s.request("tools/list", "")
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w (stderr: %s)", sv.label, err, readTail(errPath))
	}
	took = at.Sub(s.start)
	_, hwmKiB, _ = rssKiB(s.cmd.Process.Pid)
	select {
	case <-ctx.Done():
		return 0, 0, 0, ctx.Err()
	case <-time.After(settle):
	}
	rssKiBAfter, _, _ = rssKiB(s.cmd.Process.Pid)
	return took, hwmKiB, rssKiBAfter, nil
}
