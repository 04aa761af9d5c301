#!/usr/bin/env bash
# The action's second step: `mastra-ask ask` (QUESTION, OPTIONS one per line, MULTI) or
# `mastra-ask plan` (PLAN, a file), under the policy of REVIEWERS (names or group:G, one per
# line or comma-separated), APPROVALS, ALLOW_SELF or POLICY, with EXPIRES_IN, waiting WAIT
# (a duration; 0: not at all) on the store DB, then the step's outputs in GITHUB_OUTPUT:
# run-id, decision (answered, approved, rejected, declined, expired, cancelled, or pending
# when it did not wait), answer (the answer, one label per line; a rejected plan's
# feedback), by (who decided, as the store checked it), url (the item's inbox page under
# PUBLIC_URL). Every value comes from the environment, never from the script's text. The
# step exits as mastra-ask did (0 answered or approved, 5 rejected, 6 cancelled, 124 nobody
# decided in time), except 75 when it was not to wait.
set -euo pipefail

: "${GITHUB_OUTPUT:?}"
fail() {
  echo "::error::$1" >&2
  exit 2
}
args=(--no-input -o json)
if [ -n "${QUESTION:-}" ] && [ -n "${PLAN:-}" ]; then
  fail "give question or plan, not both"
elif [ -n "${QUESTION:-}" ]; then
  args+=(ask "$QUESTION")
  while IFS= read -r label; do
    [ -z "$label" ] || args+=(--option "$label")
  done <<<"${OPTIONS:-}"
  [ "${MULTI:-false}" != true ] || args+=(--multi)
elif [ -n "${PLAN:-}" ]; then
  args+=(plan "$PLAN")
else
  fail "give question (ask a person) or plan (a file a person approves or rejects)"
fi
while IFS= read -r name; do
  name="${name#"${name%%[![:space:]]*}"}"
  name="${name%"${name##*[![:space:]]}"}"
  [ -z "$name" ] || args+=(--reviewer "$name")
done < <(printf '%s\n' "${REVIEWERS:-}" | tr ',' '\n')
[ -z "${APPROVALS:-}" ] || args+=(--approvals "$APPROVALS")
[ "${ALLOW_SELF:-false}" != true ] || args+=(--allow-self)
[ -z "${POLICY:-}" ] || args+=(--policy "$POLICY")
[ -z "${EXPIRES_IN:-}" ] || args+=(--expires-in "$EXPIRES_IN")
case "${WAIT:-0}" in
  0 | 0s | 0m | 0h | '') waits=false ;;
  *)
    waits=true
    args+=(--wait --timeout "$WAIT")
    ;;
esac
[ -z "${DB:-}" ] || export MASTRA_ASK_DB="$DB"

events=$(mktemp)
trap 'rm -f "$events"' EXIT
status=0
mastra-ask "${args[@]}" >"$events" || status=$?
run=$(jq -rn 'first(inputs | objects | .runId // empty) // ""' "$events")
# No run: refused before it started (its error is on stderr already).
[ -n "$run" ] || exit "$status"

decision=pending answer='' by='' url=''
if $waits; then
  item=$(mastra-ask -o json show "$run" | jq -c '.suspensions[0]')
  decision=$(jq -r 'if .state != "resolved" then .state
    elif .kind == "plan" then .resumeData.action
    elif .kind == "approval" then (if .resumeData.approved then "approved" else "declined" end)
    else "answered" end' <<<"$item")
  answer=$(jq -r 'if .state != "resolved" then ""
    else .resumeData | if type == "string" then .
      elif type == "array" then join("\n")
      elif type == "object" then (.other // .feedback // "")
      else "" end end' <<<"$item")
  by=$(jq -r 'if .state == "resolved" then .resolvedBy // "" else "" end' <<<"$item")
  call=$(jq -r '.toolCallId' <<<"$item")
elif [ "$status" -eq 75 ]; then
  status=0
  call=$(jq -rn 'first(inputs | select(.type? == "tool-call-suspended") | .payload.toolCallId) // ""' "$events")
fi
if [ -n "${PUBLIC_URL:-}" ] && [ -n "${call:-}" ]; then
  url="${PUBLIC_URL%/}/runs/$(jq -rn --arg s "$run" '$s | @uri')/items/$(jq -rn --arg s "$call" '$s | @uri')"
fi

# Each output in the heredoc form, under a delimiter no value can hold (random).
delimiter="mastra_ask_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
for pair in "run-id=$run" "decision=$decision" "answer=$answer" "by=$by" "url=$url"; do
  printf '%s<<%s\n%s\n%s\n' "${pair%%=*}" "$delimiter" "${pair#*=}" "$delimiter" >>"$GITHUB_OUTPUT"
done
exit "$status"
