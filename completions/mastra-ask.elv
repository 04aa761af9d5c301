
use builtin;
use str;

set edit:completion:arg-completer[mastra-ask] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'mastra-ask'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'mastra-ask'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand run 'Start a run of an agent on a prompt'
            cand pending 'List pending items (questions and plans waiting for a person), oldest first'
            cand answer 'Answer an ask_user question'
            cand review 'Approve or reject a plan submitted with submit_plan'
            cand approve 'Let a tool call that waits for approval run'
            cand decline 'Refuse a tool call that waits for approval: the tool never runs'
            cand show 'Show a run: status, transcript, items and who resolved them, events'
            cand runs 'List runs, newest first'
            cand cancel 'Cancel a run; its pending items are closed as cancelled'
            cand resume 'Continue a run whose driver died (expired lease) or that failed'
            cand tool 'Call a tool outside any run and print its fallback text'
            cand ask 'Ask a person one question from a shell script (a one-question run)'
            cand plan 'Have a person review a plan file from a shell script (a one-plan run)'
            cand wait 'Block until a run is neither running nor suspended; exit by its final state'
            cand reply 'Add the user''s next message to a completed run and run it again'
            cand prune 'Delete finished runs'
            cand completions 'Print shell completions'
            cand man 'Print the man page (or write every page to a directory)'
            cand agents 'With --server: list the Mastra server''s agents'
            cand serve 'The reviewers'' inbox: web pages and Mastra''s agent API over this store'
            cand reviewer 'The people who may sign in to serve: add, list, rotate, remove, link'
            cand policy 'Policies kept by name, for runs started with --policy NAME: set, list, remove'
            cand store 'The store itself: on PostgreSQL, grant roles what runners and the inbox need'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mastra-ask;run'= {
            cand --agent 'An agent file (JSON) [default: the built-in `assistant` agent]; with --server, the id of one of the server''s agents'
            cand --model 'The model, overriding the agent''s: openai/MODEL, ollama/MODEL, openrouter/MODEL, openai-compatible/MODEL@URL, command:ARGV or script:PATH'
            cand --max-steps 'Model calls allowed per leg [default: the agent''s maxSteps, else 5]'
            cand --cwd 'The run''s working directory (plan paths resolve against it)'
            cand --timeout 'With --wait: at this deadline, close the pending items as expired and exit 124'
            cand --expires-in 'Pending items expire this long after they are created (the run then fails)'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand -q 'Print only the run id on stdout, as soon as the run exists (not the agent''s text)'
            cand --quiet 'Print only the run id on stdout, as soon as the run exists (not the agent''s text)'
            cand --require-approval 'Every call of the agent''s command tools waits for approval (approve / decline)'
            cand --wait 'Block until the run ends; this process drives it after each answer'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;pending'= {
            cand --run 'Only this run''s items'
            cand --agent 'With --server: only this agent''s items'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand -q 'One `RUN_ID TOOL_CALL_ID KIND` line per item (ids shell-quoted when they need it)'
            cand --quiet 'One `RUN_ID TOOL_CALL_ID KIND` line per item (ids shell-quoted when they need it)'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;answer'= {
            cand --tool-call 'Which item, when the run has several pending'
            cand --as 'Who resolves it [default: $MASTRA_ASK_USER, else the login name]'
            cand --multi 'The chosen labels of a multi-select question'
            cand --json 'The answer as JSON: a string, or an array of labels (a Mastra server''s `other` item: its resume data, sent as given)'
            cand --agent 'With --server: look for the run among this agent''s runs only (no walk over every agent)'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-resume 'Only record it; do not drive the run on in this process'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;review'= {
            cand --tool-call 'Which item, when the run has several pending'
            cand --as 'Who resolves it [default: $MASTRA_ASK_USER, else the login name]'
            cand --feedback 'Feedback for the model with --reject (not empty)'
            cand --feedback-file 'Feedback read from a file (`-` for stdin) with --reject'
            cand --json 'The decision as JSON: {"action":"approved"|"rejected","feedback":"..."}'
            cand --plan-root 'With --server: the directory the agent''s plan paths are relative to [default: the current directory]'
            cand --plan-file 'With --server: the plan''s text, when its file cannot be read under --plan-root'
            cand --agent 'With --server: look for the run among this agent''s runs only (no walk over every agent)'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-resume 'Only record it; do not drive the run on in this process'
            cand --approve 'Approve the plan'
            cand --reject 'Reject the plan'
            cand --unseen 'With --server: approve a plan whose file cannot be read, unseen'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;approve'= {
            cand --tool-call 'Which tool call, when the run has several waiting for approval'
            cand --as 'Who decides [default: $MASTRA_ASK_USER, else the login name]; a name, not authentication'
            cand --json 'The decision as Mastra''s resume data: {"approved":true|false,"reason"?:"..."}; it must agree with the command'
            cand --agent 'With --server: look for the run among this agent''s runs only (no walk over every agent)'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-resume 'Only record the decision; do not drive the run on in this process'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;decline'= {
            cand --tool-call 'Which tool call, when the run has several waiting for approval'
            cand --as 'Who decides [default: $MASTRA_ASK_USER, else the login name]; a name, not authentication'
            cand --json 'The decision as Mastra''s resume data: {"approved":true|false,"reason"?:"..."}; it must agree with the command'
            cand --agent 'With --server: look for the run among this agent''s runs only (no walk over every agent)'
            cand --reason 'Why; the model receives it [default: Tool call was not approved by the user]'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-resume 'Only record the decision; do not drive the run on in this process'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;show'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;runs'= {
            cand --status 'Only runs in this state'
            cand --limit 'At most this many runs'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;cancel'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;resume'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;tool'= {
            cand --json 'The tool''s input as JSON [default: read from stdin]'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;ask'= {
            cand --option 'An option to choose from (repeat for more)'
            cand --json 'The whole ask_user input as JSON: {"question", "options"?, "selectionMode"?}'
            cand --timeout 'With --wait: at this deadline, close the pending items as expired and exit 124'
            cand --expires-in 'Pending items expire this long after they are created (the run then fails)'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --multi 'Let the person choose several options'
            cand --wait 'Block until the run ends; this process drives it after each answer'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;plan'= {
            cand --timeout 'With --wait: at this deadline, close the pending items as expired and exit 124'
            cand --expires-in 'Pending items expire this long after they are created (the run then fails)'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --wait 'Block until the run ends; this process drives it after each answer'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;wait'= {
            cand --timeout 'Stop watching after this long (exit 124; the run is not changed)'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --drive 'Also drive the run after each answer, as `run --wait` does'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;reply'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;prune'= {
            cand --older-than 'Delete finished runs last updated longer ago than this (`0s` for all)'
            cand --status 'Only runs in this state'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;completions'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;man'= {
            cand --out-dir 'Write the main page and one page per subcommand into this directory'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;agents'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;serve'= {
            cand --listen 'Where to listen; an address that is not loopback needs TLS (--tls-cert) or --behind-proxy'
            cand --tls-cert 'Serve HTTPS with this certificate chain (PEM)'
            cand --tls-key 'The private key of --tls-cert (PEM)'
            cand --public-url 'The address people and links reach the inbox at (recorded in the store the first time) [default: the listen address]'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --replace-public-url 'Record --public-url in place of a different one recorded before'
            cand --behind-proxy 'A TLS-terminating proxy is in front: a non-loopback --listen is allowed without --tls-cert, --public-url must be https, and the client address is the last X-Forwarded-For hop'
            cand --drive 'Drive the runs started on this host by this user after an answer (not available yet: until then an answer is recorded for the run''s waiter or `resume`)'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;reviewer'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand add 'Add a reviewer and print their token, once, on stdout'
            cand list 'List the reviewers'
            cand rotate 'Give a reviewer a new token (printed once); the old one and their sessions stop working'
            cand remove 'Remove a reviewer: their token, sessions and links stop working'
            cand link 'Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mastra-ask;reviewer;add'= {
            cand --group 'A group the reviewer belongs to (repeat for more), for policies'
            cand --os-user 'The local OS user who is this reviewer, for policies'
            cand --pg-role 'The PostgreSQL role that is this reviewer, for policies'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;reviewer;list'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;reviewer;rotate'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;reviewer;remove'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;reviewer;link'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;reviewer;help'= {
            cand add 'Add a reviewer and print their token, once, on stdout'
            cand list 'List the reviewers'
            cand rotate 'Give a reviewer a new token (printed once); the old one and their sessions stop working'
            cand remove 'Remove a reviewer: their token, sessions and links stop working'
            cand link 'Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mastra-ask;reviewer;help;add'= {
        }
        &'mastra-ask;reviewer;help;list'= {
        }
        &'mastra-ask;reviewer;help;rotate'= {
        }
        &'mastra-ask;reviewer;help;remove'= {
        }
        &'mastra-ask;reviewer;help;link'= {
        }
        &'mastra-ask;reviewer;help;help'= {
        }
        &'mastra-ask;policy'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand set 'Keep a policy by name, replacing one of that name; its reviewers and groups must exist now, and are resolved again when each run starts'
            cand list 'List the policies, with who may decide under each as of now'
            cand remove 'Remove a policy; runs started under it keep the policy they stored'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mastra-ask;policy;set'= {
            cand --reviewer 'A reviewer, or group:G for every member of a group (repeat for more)'
            cand --approvals 'How many distinct reviewers must approve a plan or a tool call'
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --allow-self 'The run''s starter may answer and approve its own items too'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;policy;list'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;policy;remove'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;policy;help'= {
            cand set 'Keep a policy by name, replacing one of that name; its reviewers and groups must exist now, and are resolved again when each run starts'
            cand list 'List the policies, with who may decide under each as of now'
            cand remove 'Remove a policy; runs started under it keep the policy they stored'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mastra-ask;policy;help;set'= {
        }
        &'mastra-ask;policy;help;list'= {
        }
        &'mastra-ask;policy;help;remove'= {
        }
        &'mastra-ask;policy;help;help'= {
        }
        &'mastra-ask;store'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand grant 'On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read the store, deciding only as a run''s policy allows its reviewer (with --serve: also sign reviewers in and decide as the one signed in, as serve does)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mastra-ask;store;grant'= {
            cand --db 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]'
            cand -o 'Output format: text for people, json for programs (JSON lines)'
            cand --output 'Output format: text for people, json for programs (JSON lines)'
            cand --color 'When to use colours (NO_COLOR is honoured)'
            cand --on-suspend 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin'
            cand --server 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file'
            cand --server-token-file 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN'
            cand --serve 'The roles run serve'
            cand --no-input 'Never prompt; a missing answer is a usage error'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'mastra-ask;store;help'= {
            cand grant 'On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read the store, deciding only as a run''s policy allows its reviewer (with --serve: also sign reviewers in and decide as the one signed in, as serve does)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mastra-ask;store;help;grant'= {
        }
        &'mastra-ask;store;help;help'= {
        }
        &'mastra-ask;help'= {
            cand run 'Start a run of an agent on a prompt'
            cand pending 'List pending items (questions and plans waiting for a person), oldest first'
            cand answer 'Answer an ask_user question'
            cand review 'Approve or reject a plan submitted with submit_plan'
            cand approve 'Let a tool call that waits for approval run'
            cand decline 'Refuse a tool call that waits for approval: the tool never runs'
            cand show 'Show a run: status, transcript, items and who resolved them, events'
            cand runs 'List runs, newest first'
            cand cancel 'Cancel a run; its pending items are closed as cancelled'
            cand resume 'Continue a run whose driver died (expired lease) or that failed'
            cand tool 'Call a tool outside any run and print its fallback text'
            cand ask 'Ask a person one question from a shell script (a one-question run)'
            cand plan 'Have a person review a plan file from a shell script (a one-plan run)'
            cand wait 'Block until a run is neither running nor suspended; exit by its final state'
            cand reply 'Add the user''s next message to a completed run and run it again'
            cand prune 'Delete finished runs'
            cand completions 'Print shell completions'
            cand man 'Print the man page (or write every page to a directory)'
            cand agents 'With --server: list the Mastra server''s agents'
            cand serve 'The reviewers'' inbox: web pages and Mastra''s agent API over this store'
            cand reviewer 'The people who may sign in to serve: add, list, rotate, remove, link'
            cand policy 'Policies kept by name, for runs started with --policy NAME: set, list, remove'
            cand store 'The store itself: on PostgreSQL, grant roles what runners and the inbox need'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'mastra-ask;help;run'= {
        }
        &'mastra-ask;help;pending'= {
        }
        &'mastra-ask;help;answer'= {
        }
        &'mastra-ask;help;review'= {
        }
        &'mastra-ask;help;approve'= {
        }
        &'mastra-ask;help;decline'= {
        }
        &'mastra-ask;help;show'= {
        }
        &'mastra-ask;help;runs'= {
        }
        &'mastra-ask;help;cancel'= {
        }
        &'mastra-ask;help;resume'= {
        }
        &'mastra-ask;help;tool'= {
        }
        &'mastra-ask;help;ask'= {
        }
        &'mastra-ask;help;plan'= {
        }
        &'mastra-ask;help;wait'= {
        }
        &'mastra-ask;help;reply'= {
        }
        &'mastra-ask;help;prune'= {
        }
        &'mastra-ask;help;completions'= {
        }
        &'mastra-ask;help;man'= {
        }
        &'mastra-ask;help;agents'= {
        }
        &'mastra-ask;help;serve'= {
        }
        &'mastra-ask;help;reviewer'= {
            cand add 'Add a reviewer and print their token, once, on stdout'
            cand list 'List the reviewers'
            cand rotate 'Give a reviewer a new token (printed once); the old one and their sessions stop working'
            cand remove 'Remove a reviewer: their token, sessions and links stop working'
            cand link 'Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)'
        }
        &'mastra-ask;help;reviewer;add'= {
        }
        &'mastra-ask;help;reviewer;list'= {
        }
        &'mastra-ask;help;reviewer;rotate'= {
        }
        &'mastra-ask;help;reviewer;remove'= {
        }
        &'mastra-ask;help;reviewer;link'= {
        }
        &'mastra-ask;help;policy'= {
            cand set 'Keep a policy by name, replacing one of that name; its reviewers and groups must exist now, and are resolved again when each run starts'
            cand list 'List the policies, with who may decide under each as of now'
            cand remove 'Remove a policy; runs started under it keep the policy they stored'
        }
        &'mastra-ask;help;policy;set'= {
        }
        &'mastra-ask;help;policy;list'= {
        }
        &'mastra-ask;help;policy;remove'= {
        }
        &'mastra-ask;help;store'= {
            cand grant 'On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read the store, deciding only as a run''s policy allows its reviewer (with --serve: also sign reviewers in and decide as the one signed in, as serve does)'
        }
        &'mastra-ask;help;store;grant'= {
        }
        &'mastra-ask;help;help'= {
        }
    ]
    $completions[$command]
}
