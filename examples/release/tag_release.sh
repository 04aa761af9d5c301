#!/bin/sh
# tag_release for the example agent: reads {"version": "..."} on stdin and prints what it
# tagged. It is an example: it makes no git tag, so the tour changes nothing around it.
input=$(cat)
version=$(printf '%s' "$input" | sed -n 's/.*"version" *: *"\([^"]*\)".*/\1/p')
if [ -z "$version" ]; then
  echo "no version given" >&2
  exit 2
fi
printf '{"tag":"v%s","note":"an example: no git tag was made"}\n' "$version"
