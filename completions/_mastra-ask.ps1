
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'mastra-ask' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'mastra-ask'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'mastra-ask' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Start a run of an agent on a prompt')
            [CompletionResult]::new('pending', 'pending', [CompletionResultType]::ParameterValue, 'List pending items (questions and plans waiting for a person), oldest first')
            [CompletionResult]::new('answer', 'answer', [CompletionResultType]::ParameterValue, 'Answer an ask_user question')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'Approve or reject a plan submitted with submit_plan')
            [CompletionResult]::new('approve', 'approve', [CompletionResultType]::ParameterValue, 'Let a tool call that waits for approval run')
            [CompletionResult]::new('decline', 'decline', [CompletionResultType]::ParameterValue, 'Refuse a tool call that waits for approval: the tool never runs')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a run: status, transcript, items and who resolved them, events')
            [CompletionResult]::new('runs', 'runs', [CompletionResultType]::ParameterValue, 'List runs, newest first')
            [CompletionResult]::new('cancel', 'cancel', [CompletionResultType]::ParameterValue, 'Cancel a run; its pending items are closed as cancelled')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Continue a run whose driver died (expired lease) or that failed')
            [CompletionResult]::new('tool', 'tool', [CompletionResultType]::ParameterValue, 'Call a tool outside any run and print its fallback text')
            [CompletionResult]::new('ask', 'ask', [CompletionResultType]::ParameterValue, 'Ask a person one question from a shell script (a one-question run)')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Have a person review a plan file from a shell script (a one-plan run)')
            [CompletionResult]::new('wait', 'wait', [CompletionResultType]::ParameterValue, 'Block until a run is neither running nor suspended; exit by its final state')
            [CompletionResult]::new('reply', 'reply', [CompletionResultType]::ParameterValue, 'Add the user''s next message to a completed run and run it again')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete finished runs')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (or write every page to a directory)')
            [CompletionResult]::new('agents', 'agents', [CompletionResultType]::ParameterValue, 'With --server: list the Mastra server''s agents')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'The reviewers'' inbox: web pages and Mastra''s agent API over this store')
            [CompletionResult]::new('reviewer', 'reviewer', [CompletionResultType]::ParameterValue, 'The people who may sign in to serve: add, list, rotate, remove, link')
            [CompletionResult]::new('policy', 'policy', [CompletionResultType]::ParameterValue, 'Policies kept by name, for runs started with --policy NAME: set, list, remove')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'The store itself: on PostgreSQL, grant roles what runners and the inbox need')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mastra-ask;run' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'An agent file (JSON) [default: the built-in `assistant` agent]; with --server, the id of one of the server''s agents')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model, overriding the agent''s: openai/MODEL, ollama/MODEL, openrouter/MODEL, openai-compatible/MODEL@URL, command:ARGV or script:PATH')
            [CompletionResult]::new('--max-steps', '--max-steps', [CompletionResultType]::ParameterName, 'Model calls allowed per leg [default: the agent''s maxSteps, else 5]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'The run''s working directory (plan paths resolve against it)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'With --wait: at this deadline, close the pending items as expired and exit 124')
            [CompletionResult]::new('--expires-in', '--expires-in', [CompletionResultType]::ParameterName, 'Pending items expire this long after they are created (the run then fails)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only the run id on stdout, as soon as the run exists (not the agent''s text)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only the run id on stdout, as soon as the run exists (not the agent''s text)')
            [CompletionResult]::new('--require-approval', '--require-approval', [CompletionResultType]::ParameterName, 'Every call of the agent''s command tools waits for approval (approve / decline)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Block until the run ends; this process drives it after each answer')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;pending' {
            [CompletionResult]::new('--run', '--run', [CompletionResultType]::ParameterName, 'Only this run''s items')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'With --server: only this agent''s items')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'One `RUN_ID TOOL_CALL_ID KIND` line per item (ids shell-quoted when they need it)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'One `RUN_ID TOOL_CALL_ID KIND` line per item (ids shell-quoted when they need it)')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;answer' {
            [CompletionResult]::new('--tool-call', '--tool-call', [CompletionResultType]::ParameterName, 'Which item, when the run has several pending')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Who resolves it [default: $MASTRA_ASK_USER, else the login name]')
            [CompletionResult]::new('--multi', '--multi', [CompletionResultType]::ParameterName, 'The chosen labels of a multi-select question')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The answer as JSON: a string, or an array of labels (a Mastra server''s `other` item: its resume data, sent as given)')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'With --server: look for the run among this agent''s runs only (no walk over every agent)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-resume', '--no-resume', [CompletionResultType]::ParameterName, 'Only record it; do not drive the run on in this process')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;review' {
            [CompletionResult]::new('--tool-call', '--tool-call', [CompletionResultType]::ParameterName, 'Which item, when the run has several pending')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Who resolves it [default: $MASTRA_ASK_USER, else the login name]')
            [CompletionResult]::new('--feedback', '--feedback', [CompletionResultType]::ParameterName, 'Feedback for the model with --reject (not empty)')
            [CompletionResult]::new('--feedback-file', '--feedback-file', [CompletionResultType]::ParameterName, 'Feedback read from a file (`-` for stdin) with --reject')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The decision as JSON: {"action":"approved"|"rejected","feedback":"..."}')
            [CompletionResult]::new('--plan-root', '--plan-root', [CompletionResultType]::ParameterName, 'With --server: the directory the agent''s plan paths are relative to [default: the current directory]')
            [CompletionResult]::new('--plan-file', '--plan-file', [CompletionResultType]::ParameterName, 'With --server: the plan''s text, when its file cannot be read under --plan-root')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'With --server: look for the run among this agent''s runs only (no walk over every agent)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-resume', '--no-resume', [CompletionResultType]::ParameterName, 'Only record it; do not drive the run on in this process')
            [CompletionResult]::new('--approve', '--approve', [CompletionResultType]::ParameterName, 'Approve the plan')
            [CompletionResult]::new('--reject', '--reject', [CompletionResultType]::ParameterName, 'Reject the plan')
            [CompletionResult]::new('--unseen', '--unseen', [CompletionResultType]::ParameterName, 'With --server: approve a plan whose file cannot be read, unseen')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;approve' {
            [CompletionResult]::new('--tool-call', '--tool-call', [CompletionResultType]::ParameterName, 'Which tool call, when the run has several waiting for approval')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Who decides [default: $MASTRA_ASK_USER, else the login name]; a name, not authentication')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The decision as Mastra''s resume data: {"approved":true|false,"reason"?:"..."}; it must agree with the command')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'With --server: look for the run among this agent''s runs only (no walk over every agent)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-resume', '--no-resume', [CompletionResultType]::ParameterName, 'Only record the decision; do not drive the run on in this process')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;decline' {
            [CompletionResult]::new('--tool-call', '--tool-call', [CompletionResultType]::ParameterName, 'Which tool call, when the run has several waiting for approval')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Who decides [default: $MASTRA_ASK_USER, else the login name]; a name, not authentication')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The decision as Mastra''s resume data: {"approved":true|false,"reason"?:"..."}; it must agree with the command')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'With --server: look for the run among this agent''s runs only (no walk over every agent)')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Why; the model receives it [default: Tool call was not approved by the user]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-resume', '--no-resume', [CompletionResultType]::ParameterName, 'Only record the decision; do not drive the run on in this process')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;show' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;runs' {
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only runs in this state')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most this many runs')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;cancel' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;resume' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;tool' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The tool''s input as JSON [default: read from stdin]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;ask' {
            [CompletionResult]::new('--option', '--option', [CompletionResultType]::ParameterName, 'An option to choose from (repeat for more)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole ask_user input as JSON: {"question", "options"?, "selectionMode"?}')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'With --wait: at this deadline, close the pending items as expired and exit 124')
            [CompletionResult]::new('--expires-in', '--expires-in', [CompletionResultType]::ParameterName, 'Pending items expire this long after they are created (the run then fails)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--multi', '--multi', [CompletionResultType]::ParameterName, 'Let the person choose several options')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Block until the run ends; this process drives it after each answer')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;plan' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'With --wait: at this deadline, close the pending items as expired and exit 124')
            [CompletionResult]::new('--expires-in', '--expires-in', [CompletionResultType]::ParameterName, 'Pending items expire this long after they are created (the run then fails)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Block until the run ends; this process drives it after each answer')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;wait' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop watching after this long (exit 124; the run is not changed)')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--drive', '--drive', [CompletionResultType]::ParameterName, 'Also drive the run after each answer, as `run --wait` does')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;reply' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;prune' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Delete finished runs last updated longer ago than this (`0s` for all)')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only runs in this state')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;completions' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;man' {
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write the main page and one page per subcommand into this directory')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;agents' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Where to listen; an address that is not loopback needs TLS (--tls-cert) or --behind-proxy')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Serve HTTPS with this certificate chain (PEM)')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The private key of --tls-cert (PEM)')
            [CompletionResult]::new('--public-url', '--public-url', [CompletionResultType]::ParameterName, 'The address people and links reach the inbox at (recorded in the store the first time) [default: the listen address]')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--replace-public-url', '--replace-public-url', [CompletionResultType]::ParameterName, 'Record --public-url in place of a different one recorded before')
            [CompletionResult]::new('--behind-proxy', '--behind-proxy', [CompletionResultType]::ParameterName, 'A TLS-terminating proxy is in front: a non-loopback --listen is allowed without --tls-cert, --public-url must be https, and the client address is the last X-Forwarded-For hop')
            [CompletionResult]::new('--drive', '--drive', [CompletionResultType]::ParameterName, 'Drive the runs started on this host by this user after an answer (not available yet: until then an answer is recorded for the run''s waiter or `resume`)')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;reviewer' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a reviewer and print their token, once, on stdout')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the reviewers')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Give a reviewer a new token (printed once); the old one and their sessions stop working')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a reviewer: their token, sessions and links stop working')
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mastra-ask;reviewer;add' {
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'A group the reviewer belongs to (repeat for more), for policies')
            [CompletionResult]::new('--os-user', '--os-user', [CompletionResultType]::ParameterName, 'The local OS user who is this reviewer, for policies')
            [CompletionResult]::new('--pg-role', '--pg-role', [CompletionResultType]::ParameterName, 'The PostgreSQL role that is this reviewer, for policies')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;reviewer;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;reviewer;rotate' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;reviewer;remove' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;reviewer;link' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;reviewer;help' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a reviewer and print their token, once, on stdout')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the reviewers')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Give a reviewer a new token (printed once); the old one and their sessions stop working')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a reviewer: their token, sessions and links stop working')
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mastra-ask;reviewer;help;add' {
            break
        }
        'mastra-ask;reviewer;help;list' {
            break
        }
        'mastra-ask;reviewer;help;rotate' {
            break
        }
        'mastra-ask;reviewer;help;remove' {
            break
        }
        'mastra-ask;reviewer;help;link' {
            break
        }
        'mastra-ask;reviewer;help;help' {
            break
        }
        'mastra-ask;policy' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Keep a policy by name, replacing one of that name; its reviewers and groups must exist now, and are resolved again when each run starts')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the policies, with who may decide under each as of now')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a policy; runs started under it keep the policy they stored')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mastra-ask;policy;set' {
            [CompletionResult]::new('--reviewer', '--reviewer', [CompletionResultType]::ParameterName, 'A reviewer, or group:G for every member of a group (repeat for more)')
            [CompletionResult]::new('--approvals', '--approvals', [CompletionResultType]::ParameterName, 'How many distinct reviewers must approve a plan or a tool call')
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--allow-self', '--allow-self', [CompletionResultType]::ParameterName, 'The run''s starter may answer and approve its own items too')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;policy;list' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;policy;remove' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;policy;help' {
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Keep a policy by name, replacing one of that name; its reviewers and groups must exist now, and are resolved again when each run starts')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the policies, with who may decide under each as of now')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a policy; runs started under it keep the policy they stored')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mastra-ask;policy;help;set' {
            break
        }
        'mastra-ask;policy;help;list' {
            break
        }
        'mastra-ask;policy;help;remove' {
            break
        }
        'mastra-ask;policy;help;help' {
            break
        }
        'mastra-ask;store' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('grant', 'grant', [CompletionResultType]::ParameterValue, 'On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read the store, deciding only as a run''s policy allows its reviewer (with --serve: also sign reviewers in and decide as the one signed in, as serve does)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mastra-ask;store;grant' {
            [CompletionResult]::new('--db', '--db', [CompletionResultType]::ParameterName, 'The store: a SQLite file or a postgres:// URL [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text for people, json for programs (JSON lines)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR is honoured)')
            [CompletionResult]::new('--on-suspend', '--on-suspend', [CompletionResultType]::ParameterName, 'Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Work on the runs of a Mastra server (its path is the API prefix, default /api): agents, pending, answer, review, approve, decline, run and wait. The token comes from MASTRA_SERVER_TOKEN or --server-token-file')
            [CompletionResult]::new('--server-token-file', '--server-token-file', [CompletionResultType]::ParameterName, 'With --server: read the token from this file (one line) instead of MASTRA_SERVER_TOKEN')
            [CompletionResult]::new('--serve', '--serve', [CompletionResultType]::ParameterName, 'The roles run serve')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt; a missing answer is a usage error')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'mastra-ask;store;help' {
            [CompletionResult]::new('grant', 'grant', [CompletionResultType]::ParameterValue, 'On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read the store, deciding only as a run''s policy allows its reviewer (with --serve: also sign reviewers in and decide as the one signed in, as serve does)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mastra-ask;store;help;grant' {
            break
        }
        'mastra-ask;store;help;help' {
            break
        }
        'mastra-ask;help' {
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Start a run of an agent on a prompt')
            [CompletionResult]::new('pending', 'pending', [CompletionResultType]::ParameterValue, 'List pending items (questions and plans waiting for a person), oldest first')
            [CompletionResult]::new('answer', 'answer', [CompletionResultType]::ParameterValue, 'Answer an ask_user question')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'Approve or reject a plan submitted with submit_plan')
            [CompletionResult]::new('approve', 'approve', [CompletionResultType]::ParameterValue, 'Let a tool call that waits for approval run')
            [CompletionResult]::new('decline', 'decline', [CompletionResultType]::ParameterValue, 'Refuse a tool call that waits for approval: the tool never runs')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a run: status, transcript, items and who resolved them, events')
            [CompletionResult]::new('runs', 'runs', [CompletionResultType]::ParameterValue, 'List runs, newest first')
            [CompletionResult]::new('cancel', 'cancel', [CompletionResultType]::ParameterValue, 'Cancel a run; its pending items are closed as cancelled')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Continue a run whose driver died (expired lease) or that failed')
            [CompletionResult]::new('tool', 'tool', [CompletionResultType]::ParameterValue, 'Call a tool outside any run and print its fallback text')
            [CompletionResult]::new('ask', 'ask', [CompletionResultType]::ParameterValue, 'Ask a person one question from a shell script (a one-question run)')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Have a person review a plan file from a shell script (a one-plan run)')
            [CompletionResult]::new('wait', 'wait', [CompletionResultType]::ParameterValue, 'Block until a run is neither running nor suspended; exit by its final state')
            [CompletionResult]::new('reply', 'reply', [CompletionResultType]::ParameterValue, 'Add the user''s next message to a completed run and run it again')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Delete finished runs')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (or write every page to a directory)')
            [CompletionResult]::new('agents', 'agents', [CompletionResultType]::ParameterValue, 'With --server: list the Mastra server''s agents')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'The reviewers'' inbox: web pages and Mastra''s agent API over this store')
            [CompletionResult]::new('reviewer', 'reviewer', [CompletionResultType]::ParameterValue, 'The people who may sign in to serve: add, list, rotate, remove, link')
            [CompletionResult]::new('policy', 'policy', [CompletionResultType]::ParameterValue, 'Policies kept by name, for runs started with --policy NAME: set, list, remove')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'The store itself: on PostgreSQL, grant roles what runners and the inbox need')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'mastra-ask;help;run' {
            break
        }
        'mastra-ask;help;pending' {
            break
        }
        'mastra-ask;help;answer' {
            break
        }
        'mastra-ask;help;review' {
            break
        }
        'mastra-ask;help;approve' {
            break
        }
        'mastra-ask;help;decline' {
            break
        }
        'mastra-ask;help;show' {
            break
        }
        'mastra-ask;help;runs' {
            break
        }
        'mastra-ask;help;cancel' {
            break
        }
        'mastra-ask;help;resume' {
            break
        }
        'mastra-ask;help;tool' {
            break
        }
        'mastra-ask;help;ask' {
            break
        }
        'mastra-ask;help;plan' {
            break
        }
        'mastra-ask;help;wait' {
            break
        }
        'mastra-ask;help;reply' {
            break
        }
        'mastra-ask;help;prune' {
            break
        }
        'mastra-ask;help;completions' {
            break
        }
        'mastra-ask;help;man' {
            break
        }
        'mastra-ask;help;agents' {
            break
        }
        'mastra-ask;help;serve' {
            break
        }
        'mastra-ask;help;reviewer' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a reviewer and print their token, once, on stdout')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the reviewers')
            [CompletionResult]::new('rotate', 'rotate', [CompletionResultType]::ParameterValue, 'Give a reviewer a new token (printed once); the old one and their sessions stop working')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a reviewer: their token, sessions and links stop working')
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)')
            break
        }
        'mastra-ask;help;reviewer;add' {
            break
        }
        'mastra-ask;help;reviewer;list' {
            break
        }
        'mastra-ask;help;reviewer;rotate' {
            break
        }
        'mastra-ask;help;reviewer;remove' {
            break
        }
        'mastra-ask;help;reviewer;link' {
            break
        }
        'mastra-ask;help;policy' {
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Keep a policy by name, replacing one of that name; its reviewers and groups must exist now, and are resolved again when each run starts')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the policies, with who may decide under each as of now')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a policy; runs started under it keep the policy they stored')
            break
        }
        'mastra-ask;help;policy;set' {
            break
        }
        'mastra-ask;help;policy;list' {
            break
        }
        'mastra-ask;help;policy;remove' {
            break
        }
        'mastra-ask;help;store' {
            [CompletionResult]::new('grant', 'grant', [CompletionResultType]::ParameterValue, 'On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read the store, deciding only as a run''s policy allows its reviewer (with --serve: also sign reviewers in and decide as the one signed in, as serve does)')
            break
        }
        'mastra-ask;help;store;grant' {
            break
        }
        'mastra-ask;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
