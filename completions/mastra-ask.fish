# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_mastra_ask_global_optspecs
    string join \n db= o/output= no-input color= on-suspend= server= server-token-file= h/help V/version
end

function __fish_mastra_ask_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_mastra_ask_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_mastra_ask_using_subcommand
    set -l cmd (__fish_mastra_ask_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "run" -d 'Start a run of an agent on a prompt'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "pending" -d 'List pending items (questions and plans waiting for a person), oldest first'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "answer" -d 'Answer an ask_user question'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "review" -d 'Approve or reject a plan submitted with submit_plan'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "approve" -d 'Let a tool call that waits for approval run'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "decline" -d 'Refuse a tool call that waits for approval: the tool never runs'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "show" -d 'Show a run: status, transcript, items and who resolved them, events'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "runs" -d 'List runs, newest first'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "cancel" -d 'Cancel a run; its pending items are closed as cancelled'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "resume" -d 'Continue a run whose driver died (expired lease) or that failed'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "tool" -d 'Call a tool outside any run and print its fallback text'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "ask" -d 'Ask a person one question from a shell script (a one-question run)'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "plan" -d 'Have a person review a plan file from a shell script (a one-plan run)'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "wait" -d 'Block until a run is neither running nor suspended; exit by its final state'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "reply" -d 'Add the user\'s next message to a completed run and run it again'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "prune" -d 'Delete finished runs'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "completions" -d 'Print shell completions'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "man" -d 'Print the man page (or write every page to a directory)'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "agents" -d 'With --server: list the Mastra server\'s agents'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "serve" -d 'The reviewers\' inbox: web pages and Mastra\'s agent API over this store'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "reviewer" -d 'The people who may sign in to serve: add, list, rotate, remove, link'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "policy" -d 'Policies kept by name, for runs started with --policy NAME: set, list, remove'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "store" -d 'The store itself: on PostgreSQL, grant roles what runners and the inbox need'
complete -c mastra-ask -n "__fish_mastra_ask_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l agent -d 'An agent file (JSON) [default: the built-in `assistant` agent]; with --server, the id of one of the server\'s agents' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l model -d 'The model, overriding the agent\'s: openai/MODEL, ollama/MODEL, openrouter/MODEL, openai-compatible/MODEL@URL, command:ARGV or script:PATH' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l max-steps -d 'Model calls allowed per leg [default: the agent\'s maxSteps, else 5]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l cwd -d 'The run\'s working directory (plan paths resolve against it)' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l timeout -d 'With --wait: at this deadline, close the pending items as expired and exit 124' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l expires-in -d 'Pending items expire this long after they are created (the run then fails)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -s q -l quiet -d 'Print only the run id on stdout, as soon as the run exists (not the agent\'s text)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l require-approval -d 'Every call of the agent\'s command tools waits for approval (approve / decline)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l wait -d 'Block until the run ends; this process drives it after each answer'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand run" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -l run -d 'Only this run\'s items' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -l agent -d 'With --server: only this agent\'s items' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -s q -l quiet -d 'One `RUN_ID TOOL_CALL_ID KIND` line per item (ids shell-quoted when they need it)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand pending" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l tool-call -d 'Which item, when the run has several pending' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l as -d 'Who resolves it [default: $MASTRA_ASK_USER, else the login name]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l multi -d 'The chosen labels of a multi-select question' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l json -d 'The answer as JSON: a string, or an array of labels (a Mastra server\'s `other` item: its resume data, sent as given)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l agent -d 'With --server: look for the run among this agent\'s runs only (no walk over every agent)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l no-resume -d 'Only record it; do not drive the run on in this process'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand answer" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l tool-call -d 'Which item, when the run has several pending' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l as -d 'Who resolves it [default: $MASTRA_ASK_USER, else the login name]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l feedback -d 'Feedback for the model with --reject (not empty)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l feedback-file -d 'Feedback read from a file (`-` for stdin) with --reject' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l json -d 'The decision as JSON: {"action":"approved"|"rejected","feedback":"..."}' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l plan-root -d 'With --server: the directory the agent\'s plan paths are relative to [default: the current directory]' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l plan-file -d 'With --server: the plan\'s text, when its file cannot be read under --plan-root' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l agent -d 'With --server: look for the run among this agent\'s runs only (no walk over every agent)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l no-resume -d 'Only record it; do not drive the run on in this process'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l approve -d 'Approve the plan'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l reject -d 'Reject the plan'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l unseen -d 'With --server: approve a plan whose file cannot be read, unseen'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand review" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l tool-call -d 'Which tool call, when the run has several waiting for approval' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l as -d 'Who decides [default: $MASTRA_ASK_USER, else the login name]; a name, not authentication' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l json -d 'The decision as Mastra\'s resume data: {"approved":true|false,"reason"?:"..."}; it must agree with the command' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l agent -d 'With --server: look for the run among this agent\'s runs only (no walk over every agent)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l no-resume -d 'Only record the decision; do not drive the run on in this process'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand approve" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l tool-call -d 'Which tool call, when the run has several waiting for approval' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l as -d 'Who decides [default: $MASTRA_ASK_USER, else the login name]; a name, not authentication' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l json -d 'The decision as Mastra\'s resume data: {"approved":true|false,"reason"?:"..."}; it must agree with the command' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l agent -d 'With --server: look for the run among this agent\'s runs only (no walk over every agent)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l reason -d 'Why; the model receives it [default: Tool call was not approved by the user]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l no-resume -d 'Only record the decision; do not drive the run on in this process'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand decline" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand show" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand show" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand show" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand show" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand show" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand show" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand show" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand show" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand show" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -l status -d 'Only runs in this state' -r -f -a "running\t''
suspended\t''
completed\t''
failed\t''
cancelled\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -l limit -d 'At most this many runs' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand runs" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand cancel" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand cancel" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand cancel" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand cancel" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand cancel" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand cancel" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand cancel" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand cancel" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand cancel" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand resume" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand resume" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand resume" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand resume" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand resume" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand resume" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand resume" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand resume" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand resume" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -l json -d 'The tool\'s input as JSON [default: read from stdin]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand tool" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l option -d 'An option to choose from (repeat for more)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l json -d 'The whole ask_user input as JSON: {"question", "options"?, "selectionMode"?}' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l timeout -d 'With --wait: at this deadline, close the pending items as expired and exit 124' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l expires-in -d 'Pending items expire this long after they are created (the run then fails)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l multi -d 'Let the person choose several options'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l wait -d 'Block until the run ends; this process drives it after each answer'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand ask" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -l timeout -d 'With --wait: at this deadline, close the pending items as expired and exit 124' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -l expires-in -d 'Pending items expire this long after they are created (the run then fails)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -l wait -d 'Block until the run ends; this process drives it after each answer'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand plan" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -l timeout -d 'Stop watching after this long (exit 124; the run is not changed)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -l drive -d 'Also drive the run after each answer, as `run --wait` does'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand wait" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reply" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reply" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reply" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reply" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reply" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reply" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reply" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reply" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reply" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -l older-than -d 'Delete finished runs last updated longer ago than this (`0s` for all)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -l status -d 'Only runs in this state' -r -f -a "completed\t''
failed\t''
cancelled\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand prune" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -l out-dir -d 'Write the main page and one page per subcommand into this directory' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand man" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand agents" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand agents" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand agents" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand agents" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand agents" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand agents" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand agents" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand agents" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand agents" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l listen -d 'Where to listen; an address that is not loopback needs TLS (--tls-cert) or --behind-proxy' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l tls-cert -d 'Serve HTTPS with this certificate chain (PEM)' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l tls-key -d 'The private key of --tls-cert (PEM)' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l public-url -d 'The address people and links reach the inbox at (recorded in the store the first time) [default: the listen address]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l replace-public-url -d 'Record --public-url in place of a different one recorded before'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l behind-proxy -d 'A TLS-terminating proxy is in front: a non-loopback --listen is allowed without --tls-cert, --public-url must be https, and the client address is the last X-Forwarded-For hop'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l drive -d 'Drive the runs started on this host by this user after an answer (not available yet: until then an answer is recorded for the run\'s waiter or `resume`)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand serve" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -f -a "add" -d 'Add a reviewer and print their token, once, on stdout'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -f -a "list" -d 'List the reviewers'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -f -a "rotate" -d 'Give a reviewer a new token (printed once); the old one and their sessions stop working'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -f -a "remove" -d 'Remove a reviewer: their token, sessions and links stop working'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -f -a "link" -d 'Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and not __fish_seen_subcommand_from add list rotate remove link help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -l group -d 'A group the reviewer belongs to (repeat for more), for policies' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -l os-user -d 'The local OS user who is this reviewer, for policies' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -l pg-role -d 'The PostgreSQL role that is this reviewer, for policies' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from list" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from list" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from list" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from list" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from list" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from list" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from rotate" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from rotate" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from rotate" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from rotate" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from rotate" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from rotate" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from rotate" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from rotate" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from rotate" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from remove" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from remove" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from remove" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from remove" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from remove" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from remove" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from remove" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from link" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from link" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from link" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from link" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from link" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from link" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from link" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from link" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from link" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a reviewer and print their token, once, on stdout'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the reviewers'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from help" -f -a "rotate" -d 'Give a reviewer a new token (printed once); the old one and their sessions stop working'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove a reviewer: their token, sessions and links stop working'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from help" -f -a "link" -d 'Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand reviewer; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -f -a "set" -d 'Keep a policy by name, replacing one of that name; its reviewers and groups must exist now, and are resolved again when each run starts'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -f -a "list" -d 'List the policies, with who may decide under each as of now'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -f -a "remove" -d 'Remove a policy; runs started under it keep the policy they stored'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and not __fish_seen_subcommand_from set list remove help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -l reviewer -d 'A reviewer, or group:G for every member of a group (repeat for more)' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -l approvals -d 'How many distinct reviewers must approve a plan or a tool call' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -l allow-self -d 'The run\'s starter may answer and approve its own items too'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from set" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from list" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from list" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from list" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from list" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from list" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from list" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from list" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from remove" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from remove" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from remove" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from remove" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from remove" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from remove" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from remove" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from help" -f -a "set" -d 'Keep a policy by name, replacing one of that name; its reviewers and groups must exist now, and are resolved again when each run starts'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the policies, with who may decide under each as of now'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove a policy; runs started under it keep the policy they stored'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand policy; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -f -a "grant" -d 'On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read the store, deciding only as a run\'s policy allows its reviewer (with --serve: also sign reviewers in and decide as the one signed in, as serve does)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and not __fish_seen_subcommand_from grant help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -l db -d 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -s o -l output -d 'Output format: text for people, json for programs (JSON lines)' -r -f -a "text\t''
json\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -l color -d 'When to use colours (NO_COLOR is honoured)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -l on-suspend -d 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -l server -d 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file' -r
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -l server-token-file -d 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN' -r -F
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -l serve -d 'The roles run serve'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -l no-input -d 'Never prompt; a missing answer is a usage error'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -s h -l help -d 'Print help'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from grant" -s V -l version -d 'Print version'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "grant" -d 'On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read the store, deciding only as a run\'s policy allows its reviewer (with --serve: also sign reviewers in and decide as the one signed in, as serve does)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "run" -d 'Start a run of an agent on a prompt'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "pending" -d 'List pending items (questions and plans waiting for a person), oldest first'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "answer" -d 'Answer an ask_user question'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "review" -d 'Approve or reject a plan submitted with submit_plan'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "approve" -d 'Let a tool call that waits for approval run'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "decline" -d 'Refuse a tool call that waits for approval: the tool never runs'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "show" -d 'Show a run: status, transcript, items and who resolved them, events'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "runs" -d 'List runs, newest first'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "cancel" -d 'Cancel a run; its pending items are closed as cancelled'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "resume" -d 'Continue a run whose driver died (expired lease) or that failed'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "tool" -d 'Call a tool outside any run and print its fallback text'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "ask" -d 'Ask a person one question from a shell script (a one-question run)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "plan" -d 'Have a person review a plan file from a shell script (a one-plan run)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "wait" -d 'Block until a run is neither running nor suspended; exit by its final state'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "reply" -d 'Add the user\'s next message to a completed run and run it again'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "prune" -d 'Delete finished runs'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "completions" -d 'Print shell completions'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "man" -d 'Print the man page (or write every page to a directory)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "agents" -d 'With --server: list the Mastra server\'s agents'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "serve" -d 'The reviewers\' inbox: web pages and Mastra\'s agent API over this store'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "reviewer" -d 'The people who may sign in to serve: add, list, rotate, remove, link'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "policy" -d 'Policies kept by name, for runs started with --policy NAME: set, list, remove'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "store" -d 'The store itself: on PostgreSQL, grant roles what runners and the inbox need'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and not __fish_seen_subcommand_from run pending answer review approve decline show runs cancel resume tool ask plan wait reply prune completions man agents serve reviewer policy store help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and __fish_seen_subcommand_from reviewer" -f -a "add" -d 'Add a reviewer and print their token, once, on stdout'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and __fish_seen_subcommand_from reviewer" -f -a "list" -d 'List the reviewers'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and __fish_seen_subcommand_from reviewer" -f -a "rotate" -d 'Give a reviewer a new token (printed once); the old one and their sessions stop working'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and __fish_seen_subcommand_from reviewer" -f -a "remove" -d 'Remove a reviewer: their token, sessions and links stop working'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and __fish_seen_subcommand_from reviewer" -f -a "link" -d 'Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and __fish_seen_subcommand_from policy" -f -a "set" -d 'Keep a policy by name, replacing one of that name; its reviewers and groups must exist now, and are resolved again when each run starts'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and __fish_seen_subcommand_from policy" -f -a "list" -d 'List the policies, with who may decide under each as of now'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and __fish_seen_subcommand_from policy" -f -a "remove" -d 'Remove a policy; runs started under it keep the policy they stored'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "grant" -d 'On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read the store, deciding only as a run\'s policy allows its reviewer (with --serve: also sign reviewers in and decide as the one signed in, as serve does)'
complete -c mastra-ask -n "__fish_mastra_ask_using_subcommand completions" -f -a "bash elvish fish powershell zsh"
