#!/bin/sh
# ccmem's status line for Claude Code (settings.json "statusLine"): prints
# "N un-ingested memories across M silos", or nothing when there are none.
# Claude Code sends its session JSON on stdin; the count does not need it.
cat >/dev/null 2>&1
ccmem="$(dirname "$0")/../../bin/ccmem"
[ -x "$ccmem" ] || ccmem=ccmem
exec "$ccmem" status --line 2>/dev/null
