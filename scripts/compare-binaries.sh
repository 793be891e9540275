#!/usr/bin/env bash
# Compares two tailor binaries on every spec of the shared corpus and its
# wild/ folder: `tailor generate` (every file written, and stderr) and
# `tailor lint --format json` (stdout and stderr) must be byte-identical.
# Used to prove that a change of the loader changes no output. A generate
# that fails fails the comparison: both binaries failing alike proves
# nothing about their output.
#
#   scripts/compare-binaries.sh OLD NEW [CORPUS]
set -u
old=$1 new=$2 corpus=${3:-../shared/corpus}
corpus=$(cd "$corpus" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TAILOR_CACHE=off

specs=()
while IFS='|' read -r _ file _ ops _; do
	file=$(echo "$file" | xargs)
	case $file in *.yaml|*.json) specs+=("$file|") ;; esac
done < "$corpus/README.md"
while IFS=$'\t' read -r name entry _; do
	[ "$name" = name ] && continue
	root=""
	case $entry in */*) root="wild/${entry%%/*}" ;; esac
	specs+=("wild/$entry|$root")
done < "$corpus/wild/MANIFEST.tsv"

fail=0
for s in "${specs[@]}"; do
	file=${s%%|*} root=${s#*|}
	case $file in petstore-separate-v2/*) root=petstore-separate-v2 ;; esac
	args=(--spec "$corpus/$file")
	[ -n "$root" ] && args+=(--ref-root "$corpus/$root")
	pkg=p$(echo "$file" | tr -c 'a-zA-Z0-9\n' '_' | tr 'A-Z' 'a-z')
	for v in old new; do
		bin=$old
		[ $v = new ] && bin=$new
		mkdir -p "$work/$v/$pkg"
		"$bin" generate "${args[@]}" --out "$work/$v/$pkg/out" --package "$pkg" --main --import-path "example.com/$pkg" --omit-version -q \
			>"$work/$v/$pkg/generate.stdout" 2>"$work/$v/$pkg/generate.stderr"
		echo "exit $?" >>"$work/$v/$pkg/generate.stderr"
		"$bin" lint "${args[@]}" --format json >"$work/$v/$pkg/lint.stdout" 2>"$work/$v/$pkg/lint.stderr"
		echo "exit $?" >>"$work/$v/$pkg/lint.stderr"
	done
	if ! grep -q '^exit 0$' "$work/old/$pkg/generate.stderr"; then
		echo "FAIL  $file: the old binary's generate failed"
		tail -3 "$work/old/$pkg/generate.stderr"
		fail=1
	elif diff -r "$work/old/$pkg" "$work/new/$pkg" >"$work/$pkg.diff"; then
		echo "same  $file"
	else
		echo "DIFF  $file"
		head -20 "$work/$pkg.diff"
		fail=1
	fi
done
exit $fail
