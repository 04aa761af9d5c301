//! How a pending item is shown: one line about it, the commands that resolve it, and its
//! JSON line (`pending -o json`, the `--on-suspend` hook's stdin).

use anyhow::Result;
use serde_json::{json, Value};

use super::Ctx;
use crate::domain::{CallRecord, ItemKind, Resolution};
use crate::error::Error;
use crate::output::{format, sanitize};
use crate::store::{PendingItem, Store};
use crate::tools::ask_user::{Mode, Question};
use crate::tools::submit_plan::Plan;

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

/// One line about an item: its id, kind and question, plan title, or tool and arguments
/// (sanitized).
pub fn describe(call: &CallRecord) -> String {
    let payload = call.payload.clone().unwrap_or_default();
    let id = sanitize::one_line(&call.call_id);
    if call.kind() == ItemKind::Approval {
        return format!(
            "{id} approval: {} {}",
            sanitize::one_line(&call.tool_name),
            sanitize::one_line(&call.args.to_string())
        );
    }
    if let Some(q) = (call.kind() == ItemKind::Question)
        .then(|| Question::from_payload(&payload))
        .flatten()
    {
        let mut line = format!("{id} question: {}", sanitize::one_line(&q.text));
        if !q.options.is_empty() {
            let labels: Vec<String> = q.labels().iter().map(|l| sanitize::one_line(l)).collect();
            let multi = if q.mode == Mode::Multi {
                " (choose one or more)"
            } else {
                ""
            };
            line.push_str(&format!(" [{}]{multi}", labels.join(" | ")));
        }
        return line;
    }
    let title = payload["title"].as_str().unwrap_or_default();
    let path = payload["path"].as_str().unwrap_or_default();
    format!(
        "{id} plan: {} ({})",
        sanitize::one_line(if title.is_empty() {
            "(untitled)"
        } else {
            title
        }),
        sanitize::one_line(path)
    )
}

/// The commands that resolve an item; the first is the main one. Every value is
/// shell-quoted (escaped when it holds control or invisible characters) and written so
/// that it parses as a value even when it starts with `-`: pasted, it does what it says.
pub fn commands_for(ctx: &Ctx, item: &PendingItem) -> Vec<String> {
    let call = &item.call;
    let tool_call = (item.pending_in_run > 1).then(|| format::flag("--tool-call", &call.call_id));
    // `flags` are whole flags (with placeholders for their values); `value` is the
    // positional placeholder after RUN.
    let command = |verb: &str, flags: &[&str], value: Option<&str>| {
        let run = format::shell_quote(&call.run_id);
        let mut words = vec![ctx.program(), verb.to_string()];
        // A run id that looks like a flag goes after `--`, with every flag before it.
        let dashed = call.run_id.starts_with('-');
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
    match call.kind() {
        ItemKind::Plan => {
            return vec![
                command("review", &["--approve"], None),
                command("review", &["--reject", "--feedback <feedback>"], None),
            ]
        }
        ItemKind::Approval => {
            return vec![
                command("approve", &[], None),
                command("decline", &["--reason <reason>"], None),
            ]
        }
        ItemKind::Question => {}
    }
    let mode = call
        .payload
        .as_ref()
        .and_then(Question::from_payload)
        .map(|q| q.mode)
        .unwrap_or(Mode::FreeText);
    vec![match mode {
        Mode::FreeText => command("answer", &[], Some("<answer>")),
        Mode::Single => command("answer", &[], Some("<label>")),
        Mode::Multi => command("answer", &["--multi <label>..."], None),
    }]
}

/// The item as one JSON object (SPEC §7): `commands` resolve it, the first of them is also
/// `command`.
pub fn item_json(ctx: &Ctx, item: &PendingItem) -> Value {
    let call = &item.call;
    let commands = commands_for(ctx, item);
    json!({
        "runId": call.run_id,
        "toolCallId": call.call_id,
        "toolName": call.tool_name,
        "kind": call.kind().noun(),
        "args": call.args,
        "suspendPayload": call.payload,
        "agentId": item.agent_id,
        "suspendedAt": format::time(call.created_at),
        "expiresAt": call.expires_at.map(format::time),
        "command": commands.first(),
        "commands": commands,
    })
}

/// Tells on stderr what a suspended run waits for and the commands that answer it.
pub fn announce(ctx: &Ctx, store: &dyn Store, run_id: &str) -> Result<()> {
    let items = store.pending(Some(run_id))?;
    ctx.out.info(&format!(
        "run {run_id} is waiting for input ({} pending):",
        items.len()
    ));
    for item in &items {
        ctx.out.info(&format!("  {}", describe(&item.call)));
        for command in commands_for(ctx, item) {
            ctx.out.info(&format!("    {command}"));
        }
    }
    Ok(())
}

/// One line about an item just resolved: its id, kind, and what was decided.
pub fn resolved_line(call: &CallRecord, resolution: &Resolution) -> String {
    let what = match &resolution.resume_data {
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
        sanitize::one_line(&call.call_id),
        call.kind().noun(),
        sanitize::one_line(&what)
    )
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
            for c in commands_for(&ctx, &item(run, call, ASK_USER, question.clone())) {
                check_db(&c);
                let Command::Answer(a) = parse(&c) else {
                    panic!("{c}")
                };
                assert_eq!(a.item.run.as_deref(), Some(run), "{c}");
                assert_eq!(a.item.tool_call.as_deref(), Some(call), "{c}");
                assert_eq!(a.answer.as_deref(), Some("ok"), "{c}");
            }
            for c in commands_for(&ctx, &item(run, call, ASK_USER, multi.clone())) {
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
            let commands = commands_for(&ctx, &item(run, call, SUBMIT_PLAN, plan));
            let Command::Review(approve) = parse(&commands[0]) else {
                panic!()
            };
            assert!(approve.approve && approve.item.run.as_deref() == Some(run));
            let Command::Review(reject) = parse(&commands[1]) else {
                panic!()
            };
            assert!(reject.reject && reject.item.tool_call.as_deref() == Some(call));
            assert_eq!(reject.feedback.as_deref(), Some("Smaller steps."));
            let commands = commands_for(&ctx, &item(run, call, "tag_release", json!({"v": 1})));
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
}
