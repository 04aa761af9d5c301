//! How a pending item is shown, whether it waits in this store or on a Mastra server: one
//! line about it, the commands that resolve it, its JSON line (`pending -o json`, the
//! `--on-suspend` hook's stdin), the `pending` listing, and what a suspended run waits for.

use anyhow::Result;
use serde_json::{json, Value};

use super::Ctx;
use crate::domain::{CallRecord, ItemKind};
use crate::error::Error;
use crate::output::{format, sanitize};
use crate::remote;
use crate::store::{now_ms, PendingItem, Run, Store};
use crate::tools::ask_user::{Mode, Question};
use crate::tools::submit_plan::{read_plan, Plan};

/// The question a pending `ask_user` item asks.
pub fn question_of(call: &CallRecord) -> Result<Question> {
    call.payload
        .as_ref()
        .and_then(Question::from_payload)
        .ok_or_else(|| unreadable(call, "question"))
}

/// The plan a pending `submit_plan` item submitted.
pub fn plan_of(call: &CallRecord) -> Result<Plan> {
    call.payload
        .as_ref()
        .and_then(Plan::from_payload)
        .ok_or_else(|| unreadable(call, "plan"))
}

fn unreadable(call: &CallRecord, what: &str) -> anyhow::Error {
    Error::invalid(format!(
        "tool call {} has no readable {what}",
        sanitize::one_line(&call.call_id)
    ))
    .into()
}

/// An item as it is shown, wherever it waits: in this store or on a Mastra server.
pub struct Shown<'a> {
    pub run_id: &'a str,
    pub call_id: &'a str,
    pub tool_name: &'a str,
    pub kind: ItemKind,
    /// The call's arguments (a server lists them for approvals only).
    pub args: Option<&'a Value>,
    pub payload: Option<&'a Value>,
    pub agent_id: &'a str,
    /// When it was suspended (Unix ms), or the server's RFC 3339 time.
    pub suspended_at: When<'a>,
    pub expires_at: Option<i64>,
    /// Pending items of the same run, this one included (`--tool-call` is printed when
    /// there are several).
    pub pending_in_run: usize,
    /// The Mastra server it waits on, as shown (no credentials).
    pub server: Option<&'a str>,
}

/// A time as the store keeps it, or as a server gave it.
#[derive(Clone, Copy)]
pub enum When<'a> {
    Ms(i64),
    Rfc3339(&'a str),
}

impl When<'_> {
    fn rfc3339(self) -> String {
        match self {
            When::Ms(ms) => format::time(ms),
            When::Rfc3339(s) => s.to_string(),
        }
    }

    fn ms(self) -> Option<i64> {
        match self {
            When::Ms(ms) => Some(ms),
            When::Rfc3339(s) => s
                .parse::<jiff::Timestamp>()
                .ok()
                .map(|t| t.as_millisecond()),
        }
    }
}

impl<'a> Shown<'a> {
    /// A call of this store; `agent_id` and `pending_in_run` from its listing, if any.
    pub fn call(call: &'a CallRecord, agent_id: &'a str, pending_in_run: usize) -> Shown<'a> {
        Shown {
            run_id: &call.run_id,
            call_id: &call.call_id,
            tool_name: &call.tool_name,
            kind: call.kind(),
            args: Some(&call.args),
            payload: call.payload.as_ref(),
            agent_id,
            suspended_at: When::Ms(call.created_at),
            expires_at: call.expires_at,
            pending_in_run,
            server: None,
        }
    }

    pub fn pending(item: &'a PendingItem) -> Shown<'a> {
        Shown::call(&item.call, &item.agent_id, item.pending_in_run)
    }

    /// A server's pending call; `pending_in_run` counts the listed calls of its run.
    pub fn remote(item: &'a remote::Item, pending_in_run: usize) -> Shown<'a> {
        Shown {
            run_id: &item.run_id,
            call_id: &item.tool_call_id,
            tool_name: &item.tool_name,
            kind: item.kind,
            args: item.args.as_ref(),
            payload: item.suspend_payload.as_ref(),
            agent_id: &item.agent_id,
            suspended_at: When::Rfc3339(&item.suspended_at),
            expires_at: None,
            pending_in_run,
            server: Some(&item.server),
        }
    }
}

/// One line about a stored call: its id, kind and question or plan title (sanitized).
pub fn describe(call: &CallRecord) -> String {
    describe_item(&Shown::call(call, "", 1))
}

/// One line about an item: its id, kind, and its question, plan, or tool and arguments
/// (sanitized).
pub fn describe_item(item: &Shown) -> String {
    let id = sanitize::one_line(item.call_id);
    let json_of = |v: Option<&Value>| v.map(Value::to_string).unwrap_or_else(|| "{}".into());
    match item.kind {
        ItemKind::Question => {
            if let Some(q) = item.payload.and_then(Question::from_payload) {
                let mut line = format!("{id} question: {}", sanitize::one_line(&q.text));
                if !q.options.is_empty() {
                    let labels: Vec<String> =
                        q.labels().iter().map(|l| sanitize::one_line(l)).collect();
                    let multi = if q.mode == Mode::Multi {
                        " (choose one or more)"
                    } else {
                        ""
                    };
                    line.push_str(&format!(" [{}]{multi}", labels.join(" | ")));
                }
                return line;
            }
            format!("{id} question: (unreadable)")
        }
        ItemKind::Plan => {
            let payload = item.payload.cloned().unwrap_or_default();
            let title = payload["title"].as_str().unwrap_or_default();
            let path = sanitize::one_line(payload["path"].as_str().unwrap_or_default());
            match payload.get("title") {
                // A Mastra server's plan carries its path only.
                None if item.server.is_some() => format!("{id} plan: {path}"),
                _ => format!(
                    "{id} plan: {} ({path})",
                    sanitize::one_line(if title.is_empty() {
                        "(untitled)"
                    } else {
                        title
                    })
                ),
            }
        }
        ItemKind::Approval => format!(
            "{id} approval: {} {}",
            sanitize::one_line(item.tool_name),
            sanitize::one_line(&json_of(item.args))
        ),
        ItemKind::Other => format!(
            "{id} other: {} {}",
            sanitize::one_line(item.tool_name),
            sanitize::one_line(&json_of(item.payload))
        ),
    }
}

/// The commands that resolve an item; the first is the main one. Every value is
/// shell-quoted (escaped when it holds control or invisible characters) and written so
/// that it parses as a value even when it starts with `-`: pasted, it does what it says.
pub fn item_commands(ctx: &Ctx, item: &Shown) -> Vec<String> {
    let tool_call = (item.pending_in_run > 1).then(|| format::flag("--tool-call", item.call_id));
    // `flags` are whole flags (with placeholders for their values); `value` is the
    // positional placeholder after RUN.
    let command = |verb: &str, flags: &[&str], value: Option<&str>| {
        let run = format::shell_quote(item.run_id);
        let mut words = vec![ctx.program(), verb.to_string()];
        // A run id that looks like a flag goes after `--`, with every flag before it.
        let dashed = item.run_id.starts_with('-');
        if !dashed {
            words.push(run.clone());
        }
        words.extend(tool_call.clone());
        words.extend(flags.iter().map(|f| f.to_string()));
        if dashed {
            words.push(format!("-- {run}"));
        }
        words.extend(value.map(str::to_string));
        words.join(" ")
    };
    match item.kind {
        ItemKind::Plan => vec![
            command("review", &["--approve"], None),
            command("review", &["--reject", "--feedback <feedback>"], None),
        ],
        ItemKind::Approval => vec![
            command("approve", &[], None),
            command("decline", &["--reason <reason>"], None),
        ],
        ItemKind::Other => vec![command("answer", &["--json <value>"], None)],
        ItemKind::Question => {
            let mode = item
                .payload
                .and_then(Question::from_payload)
                .map(|q| q.mode)
                .unwrap_or(Mode::FreeText);
            vec![match mode {
                Mode::FreeText => command("answer", &[], Some("<answer>")),
                Mode::Single => command("answer", &[], Some("<label>")),
                Mode::Multi => command("answer", &["--multi <label>..."], None),
            }]
        }
    }
}

/// A pending item of this store as one JSON object.
pub fn item_json(ctx: &Ctx, item: &PendingItem) -> Value {
    shown_json(ctx, &Shown::pending(item))
}

/// An item as one JSON object (`pending -o json`, the `--on-suspend` hook's stdin).
pub fn shown_json(ctx: &Ctx, item: &Shown) -> Value {
    let commands = item_commands(ctx, item);
    let mut v = json!({
        "runId": item.run_id,
        "toolCallId": item.call_id,
        "toolName": item.tool_name,
        "kind": item.kind.noun(),
        "args": item.args,
        "suspendPayload": item.payload,
        "agentId": item.agent_id,
        "suspendedAt": item.suspended_at.rfc3339(),
        "expiresAt": item.expires_at.map(format::time),
        "command": commands.first(),
        "commands": commands,
    });
    if let Some(server) = item.server {
        v["server"] = json!(server);
    }
    v
}

/// `pending`'s listing, for items of this store and of a server alike: one line about each
/// item and its main command (text), `RUN_ID TOOL_CALL_ID KIND` lines (`-q`), or JSON lines.
pub fn list(ctx: &Ctx, items: &[Shown], quiet: bool) {
    let now = now_ms();
    for item in items {
        if quiet {
            ctx.out.line(&format!(
                "{} {} {}",
                format::shell_quote(item.run_id),
                format::shell_quote(item.call_id),
                item.kind.noun()
            ));
        } else if ctx.out.is_json() {
            ctx.out.json_line(&shown_json(ctx, item));
        } else {
            let age = item
                .suspended_at
                .ms()
                .map(|at| format!("  {} ago", format::age(at, now)))
                .unwrap_or_default();
            ctx.out.line(&format!(
                "{}  {}{age}",
                sanitize::one_line(item.run_id),
                describe_item(item)
            ));
            for command in item_commands(ctx, item) {
                ctx.out.line(&format!("    {command}"));
            }
        }
    }
    if items.is_empty() {
        ctx.out.info("nothing is pending");
    }
}

/// Tells on stderr what a suspended run of this store waits for and the commands that
/// answer it.
pub fn announce(ctx: &Ctx, store: &dyn Store, run_id: &str) -> Result<()> {
    let items = store.pending(Some(run_id))?;
    let shown: Vec<Shown> = items.iter().map(Shown::pending).collect();
    announce_items(ctx, run_id, &shown);
    Ok(())
}

/// Tells on stderr what a suspended run waits for and the commands that answer it.
pub fn announce_items(ctx: &Ctx, run_id: &str, items: &[Shown]) {
    ctx.out.info(&format!(
        "run {} is waiting for input ({} pending):",
        sanitize::one_line(run_id),
        items.len()
    ));
    for item in items {
        ctx.out.info(&format!("  {}", describe_item(item)));
        for command in item_commands(ctx, item) {
            ctx.out.info(&format!("    {command}"));
        }
    }
}

/// One line about an item just resolved: its id, kind, and what was decided.
pub fn resolved_line(call_id: &str, kind: ItemKind, resume_data: &Value) -> String {
    let what = match resume_data {
        Value::String(s) => format!("{s:?}"),
        Value::Array(labels) => labels
            .iter()
            .map(|l| format!("{:?}", l.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(", "),
        other if other["action"].is_string() => {
            other["action"].as_str().unwrap_or_default().to_string()
        }
        other if other["approved"] == true => "approved".to_string(),
        other if other["approved"] == false => match other["reason"].as_str() {
            Some(reason) => format!("declined: {reason:?}"),
            None => "declined".to_string(),
        },
        other => other.to_string(),
    };
    format!(
        "{} ({}) {}",
        sanitize::one_line(call_id),
        kind.noun(),
        sanitize::one_line(&what)
    )
}

/// Says so when the plan file now differs from the submitted version being decided on.
pub fn warn_if_changed(ctx: &Ctx, run: &Run, plan: &Plan) {
    let now_on_disk = read_plan(std::path::Path::new(&run.cwd), &plan.path)
        .map(|text| Plan::from_text(&plan.path, &text));
    if now_on_disk.as_ref() != Ok(plan) {
        ctx.out.warn(&format!(
            "{} changed on disk since it was submitted; this decision is on the submitted version (see: mastra-ask show {})",
            crate::output::sanitize::one_line(&plan.path),
            run.id
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use crate::domain::{CallState, ASK_USER, SUBMIT_PLAN};
    use crate::output::Out;
    use crate::store::Location;
    use clap::Parser;

    fn ctx(db: Option<&str>) -> Ctx {
        Ctx {
            location: Location::resolve(db),
            db_flag: db.map(str::to_string),
            out: Out::new(false),
            no_input: true,
            on_suspend: None,
            server: None,
            token_file_given: false,
        }
    }

    fn item(run: &str, call: &str, tool: &str, payload: Value) -> PendingItem {
        let kind = match tool {
            ASK_USER => ItemKind::Question,
            SUBMIT_PLAN => ItemKind::Plan,
            _ => ItemKind::Approval,
        };
        PendingItem {
            call: CallRecord {
                run_id: run.into(),
                call_id: call.into(),
                seq: 0,
                step: 1,
                tool_name: tool.into(),
                args: payload.clone(),
                state: CallState::Pending,
                kind: Some(kind),
                payload: (kind != ItemKind::Approval).then_some(payload),
                result: None,
                error: None,
                resume_data: None,
                resolved_by: None,
                resolved_via: None,
                resolved_at: None,
                expires_at: None,
                created_at: 0,
                process: None,
                approved_args: None,
                digest: None,
            },
            agent_id: "a".into(),
            pending_in_run: 2,
        }
    }

    /// The printed command with its placeholders filled, parsed as the program would.
    fn parse(command: &str) -> Command {
        let filled = command
            .replace("<answer>", "ok")
            .replace("<label>...", "a b")
            .replace("<feedback>", "'Smaller steps.'")
            .replace("<reason>", "'Not now.'");
        let words = shell_words::split(&filled).unwrap();
        Cli::try_parse_from(words).unwrap().command
    }

    #[test]
    fn printed_commands_parse_back_to_the_same_item_whatever_its_ids() {
        let question = json!({"question": "Q?"});
        let multi = json!({"question": "Q?", "options": [{"label": "a"}, {"label": "b"}], "selectionMode": "multi_select"});
        for (run, call, db) in [
            ("0000-run", "call_1", None),
            ("-run-with-dash", "-rf", Some("-odd.db")),
            ("run", "--tool-call", Some("it's here.db")),
        ] {
            let ctx = ctx(db);
            // (Without --db, the parser may take MASTRA_ASK_DB from this environment.)
            let check_db = |cmd: &str| {
                let words = shell_words::split(cmd).unwrap();
                let cli = Cli::try_parse_from(words).unwrap();
                if db.is_some() {
                    assert_eq!(cli.db.as_deref(), db, "{cmd}");
                }
            };
            for c in item_commands(
                &ctx,
                &Shown::pending(&item(run, call, ASK_USER, question.clone())),
            ) {
                check_db(&c);
                let Command::Answer(a) = parse(&c) else {
                    panic!("{c}")
                };
                assert_eq!(a.item.run.as_deref(), Some(run), "{c}");
                assert_eq!(a.item.tool_call.as_deref(), Some(call), "{c}");
                assert_eq!(a.answer.as_deref(), Some("ok"), "{c}");
            }
            for c in item_commands(
                &ctx,
                &Shown::pending(&item(run, call, ASK_USER, multi.clone())),
            ) {
                let Command::Answer(a) = parse(&c) else {
                    panic!("{c}")
                };
                assert_eq!(
                    (a.item.run.as_deref(), a.item.tool_call.as_deref()),
                    (Some(run), Some(call)),
                    "{c}"
                );
                assert_eq!(a.multi, Some(vec!["a".to_string(), "b".to_string()]), "{c}");
            }
            let plan = json!({"toolId": "submit_plan", "path": "p.md", "title": "T", "plan": "x"});
            let commands =
                item_commands(&ctx, &Shown::pending(&item(run, call, SUBMIT_PLAN, plan)));
            let Command::Review(approve) = parse(&commands[0]) else {
                panic!()
            };
            assert!(approve.approve && approve.item.run.as_deref() == Some(run));
            let Command::Review(reject) = parse(&commands[1]) else {
                panic!()
            };
            assert!(reject.reject && reject.item.tool_call.as_deref() == Some(call));
            assert_eq!(reject.feedback.as_deref(), Some("Smaller steps."));
            let commands = item_commands(
                &ctx,
                &Shown::pending(&item(run, call, "tag_release", json!({"v": 1}))),
            );
            let Command::Approve(approve) = parse(&commands[0]) else {
                panic!("{}", commands[0])
            };
            assert_eq!(approve.run, run);
            assert_eq!(approve.tool_call.as_deref(), Some(call));
            let Command::Decline(decline) = parse(&commands[1]) else {
                panic!("{}", commands[1])
            };
            assert_eq!(decline.decision.run, run);
            assert_eq!(decline.decision.tool_call.as_deref(), Some(call));
            assert_eq!(decline.reason.as_deref(), Some("Not now."));
        }
    }

    /// A server's item: verbatim ids of any shape, commands that carry `--server` (as
    /// shown, without credentials) and parse back to the same item.
    #[test]
    fn a_servers_items_are_shown_with_their_server() {
        let mut ctx = ctx(None);
        let config = crate::remote::ServerConfig::new(
            "https://al:pw@agents.example.com/api?apiKey=k3y",
            None,
        )
        .unwrap();
        ctx.server = Some(config);
        let server = "https://agents.example.com:443/api";
        let item = |kind, payload: Option<Value>| remote::Item {
            run_id: "run 1; rm -rf".into(),
            tool_call_id: "-call 'x'".into(),
            tool_name: "deploy".into(),
            kind,
            args: Some(json!({"target": "prod"})),
            suspend_payload: payload,
            agent_id: "ops".into(),
            suspended_at: "2026-12-01T03:13:33.727Z".into(),
            server: server.into(),
            resume_schema: None,
        };
        let custom = item(ItemKind::Other, Some(json!({"windows": ["tonight"]})));
        let shown = Shown::remote(&custom, 2);
        assert_eq!(
            describe_item(&shown),
            "-call 'x' other: deploy {\"windows\":[\"tonight\"]}"
        );
        let commands = item_commands(&ctx, &shown);
        assert_eq!(commands.len(), 1);
        let words = shell_words::split(&commands[0].replace("<value>", "'{}'")).unwrap();
        let cli = Cli::try_parse_from(words).unwrap();
        assert_eq!(cli.server.as_deref(), Some(server));
        let Command::Answer(a) = cli.command else {
            panic!("{}", commands[0])
        };
        assert_eq!(a.item.run.as_deref(), Some("run 1; rm -rf"));
        assert_eq!(a.item.tool_call.as_deref(), Some("-call 'x'"));
        assert_eq!(a.json.as_deref(), Some("{}"));
        let v = shown_json(&ctx, &shown);
        assert_eq!(v["server"], server);
        assert_eq!(v["kind"], "other");
        assert_eq!(v["suspendedAt"], "2026-12-01T03:13:33.727Z");
        assert!(!v.to_string().contains("pw") && !v.to_string().contains("k3y"));

        let deploy = item(ItemKind::Approval, None);
        let shown = Shown::remote(&deploy, 1);
        assert_eq!(
            describe_item(&shown),
            "-call 'x' approval: deploy {\"target\":\"prod\"}"
        );
        let commands = item_commands(&ctx, &shown);
        assert_eq!(
            commands,
            [
                format!("mastra-ask --server {server} approve 'run 1; rm -rf'"),
                format!("mastra-ask --server {server} decline 'run 1; rm -rf' --reason <reason>"),
            ]
        );
    }
}
