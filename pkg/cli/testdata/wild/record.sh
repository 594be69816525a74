#!/bin/sh
# Records Claude Code's system/init line for this fixture (and for an empty project, to
# tell Claude Code's own commands, skills and agents from the fixture's). Needs a
# Claude Code binary ($CLAUDE) and a fake Anthropic server ($ANTHROPIC_BASE_URL): the
# line is written before any request, so any server that answers a message will do.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
cp -r "$here/project" "$here/plugin" "$here/mcp.json" "$work/"
mkdir -p "$work/empty" "$work/home"
record() { # dir out args...
	dir=$1 out=$2
	shift 2
	(cd "$work/$dir" && HOME="$work/home" ANTHROPIC_API_KEY=dummy DISABLE_TELEMETRY=1 \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 "$CLAUDE" -p hi --output-format stream-json --verbose "$@") |
		head -1 | sed "s#$work#<fixture>#g" >"$here/$out"
}
record project claude-code-init.json --plugin-dir "$work/plugin" --mcp-config "$work/mcp.json"
record empty claude-code-init-empty.json
rm -rf "$work"
