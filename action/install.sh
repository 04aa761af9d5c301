#!/usr/bin/env bash
# The action's first step: puts mastra-ask on the job's PATH.
#
# With VERSION (a release tag such as v0.2.0): the release archive for this runner's
# platform is downloaded from the releases of REPOSITORY (the action's own repository) with
# the release's SHA256SUMS, and installed only when its checksum is the one listed there
# (anything else fails the step, with nothing installed). MASTRA_ASK_ACTION_RELEASES, when
# set, is where the releases are instead of https://github.com/REPOSITORY/releases/download
# (a mirror; the tests' files).
#
# Without VERSION: built from the action's own source (GITHUB_ACTION_PATH, the repository at
# the action's ref) with `cargo install --locked`, into ROOT, which the action caches by that
# ref; a binary already there for the same KEY is used as it is.
set -euo pipefail

: "${ROOT:?}" "${GITHUB_PATH:?}"

if [ -n "${VERSION:-}" ]; then
  case "${RUNNER_OS:-Linux}/${RUNNER_ARCH:-$(uname -m)}" in
    Linux/X64 | Linux/x86_64) target=x86_64-unknown-linux-gnu ;;
    Linux/ARM64 | Linux/aarch64) target=aarch64-unknown-linux-gnu ;;
    *)
      echo "::error::mastra-ask $VERSION has no release archive for ${RUNNER_OS:-}/${RUNNER_ARCH:-}: leave version empty to build it" >&2
      exit 1
      ;;
  esac
  case "$VERSION" in
    */* | *..* | '' | -*)
      echo "::error::version must be a release tag such as v0.2.0, not $VERSION" >&2
      exit 1
      ;;
  esac
  base="${MASTRA_ASK_ACTION_RELEASES:-https://github.com/${REPOSITORY:?}/releases/download}/$VERSION"
  name="mastra-ask-$VERSION-$target"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  curl -fsSL --retry 3 -o "$work/$name.tar.gz" "$base/$name.tar.gz"
  curl -fsSL --retry 3 -o "$work/SHA256SUMS" "$base/SHA256SUMS"
  # Exactly the archive's line, checked strictly: a missing or different sum fails here.
  if ! (cd "$work" && awk -v f="$name.tar.gz" 'NF == 2 && $2 == f' SHA256SUMS |
    sha256sum --check --strict --status); then
    echo "::error::the checksum of $name.tar.gz is not the one in the release's SHA256SUMS: nothing installed" >&2
    exit 1
  fi
  tar -xzf "$work/$name.tar.gz" -C "$work"
  mkdir -p "$ROOT/bin"
  install -m 0755 "$work/$name/mastra-ask" "$ROOT/bin/mastra-ask"
else
  : "${GITHUB_ACTION_PATH:?}" "${KEY:?}"
  if [ ! -x "$ROOT/bin/mastra-ask" ] || [ "$(cat "$ROOT/key" 2>/dev/null)" != "$KEY" ]; then
    cargo install --locked --force --path "$GITHUB_ACTION_PATH" --root "$ROOT"
    printf '%s\n' "$KEY" > "$ROOT/key"
  fi
fi
printf '%s\n' "$ROOT/bin" >> "$GITHUB_PATH"
"$ROOT/bin/mastra-ask" --version
