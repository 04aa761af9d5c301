//! How pending items are laid out, whether they wait in this store or on a Mastra server:
//! the commands that resolve an item (every value shell-quoted), its JSON line
//! (`pending -o json`, the `--on-suspend` hook's stdin), the `pending` listing, what a
//! suspended run waits for, and one line about an item just resolved. What each kind says
//! of itself comes from `items`.

use anyhow::Result;
use serde::Serialize;
use serde_json::Value;

use super::Context;
use crate::domain::ItemKind;
use crate::items::{self, ItemView, Verb};
use crate::output::{format, sanitize};
use crate::report::Report;
use crate::store::{now_ms, Store};

/// The commands that resolve an item; the first is the main one. Every value is
/// shell-quoted (escaped when it holds control or invisible characters) and written so
/// that it parses as a value even when it starts with `-`: pasted, it does what it says.
pub fn item_commands(ctx: &Context, item: &ItemView) -> Vec<String> {
    commands_with(&ctx.program(), item)
}

/// `item_commands` after `program`.
fn commands_with(program: &str, item: &ItemView) -> Vec<String> {
    items::of(item.kind)
        .commands(item)
        .iter()
        .map(|verb| {
            let mut line = String::with_capacity(program.len() + 80);
            push_command(&mut line, program, item, verb);
            line
        })
        .collect()
}

/// One command that resolves `item`, `program verb RUN [--tool-call ID] FLAGS [VALUE]`,
/// appended to `out`.
fn push_command(out: &mut String, program: &str, item: &ItemView, verb: &Verb) {
    // A run id that looks like a flag goes after `--`, with every flag before it.
    let dashed = item.run_id.starts_with('-');
    out.push_str(program);
    out.push(' ');
    out.push_str(verb.verb);
    if !dashed {
        out.push(' ');
        format::push_shell_quoted(out, item.run_id);
    }
    if item.pending_in_run > 1 {
        out.push(' ');
        format::push_flag(out, "--tool-call", item.call_id);
    }
    for flag in verb.flags {
        out.push(' ');
        out.push_str(flag);
    }
    if dashed {
        out.push_str(" -- ");
        format::push_shell_quoted(out, item.run_id);
    }
    if let Some(value) = verb.value {
        out.push(' ');
        out.push_str(value);
    }
}

/// An item's JSON line (`pending -o json`, the `--on-suspend` hook's stdin), its fields in
/// the order they are printed; serialised straight from the item, without a copy of it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ItemJson<'a> {
    run_id: &'a str,
    tool_call_id: &'a str,
    tool_name: &'a str,
    kind: &'static str,
    args: Option<&'a Value>,
    suspend_payload: Option<&'a Value>,
    agent_id: &'a str,
    suspended_at: String,
    expires_at: Option<String>,
    command: Option<&'a String>,
    commands: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    server: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    policy: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decisions: Option<Value>,
}

impl<'a> ItemJson<'a> {
    fn of(item: &ItemView<'a>, commands: &'a [String]) -> ItemJson<'a> {
        ItemJson {
            run_id: item.run_id,
            tool_call_id: item.call_id,
            tool_name: item.tool_name,
            kind: item.kind.noun(),
            args: item.args,
            suspend_payload: item.payload,
            agent_id: item.agent_id,
            suspended_at: item.suspended_at.rfc3339(),
            expires_at: item.expires_at.map(format::time),
            command: commands.first(),
            commands,
            server: item.server,
            url: item.url,
            policy: item.gate.map(|g| g.policy_json()),
            decisions: item.gate.map(|g| g.decisions_json()),
        }
    }
}

/// An item as one JSON object (`pending -o json`, the `--on-suspend` hook's stdin), with
/// its inbox page (`url`) once a public URL is recorded.
pub fn view_json(ctx: &Context, item: &ItemView) -> Value {
    // Read in a notification and pasted in another shell: the store named as well.
    let commands = commands_with(&ctx.program(), item);
    serde_json::to_value(ItemJson::of(item, &commands)).unwrap_or_default()
}

/// How much of a listing is kept before it is handed to the report: a long listing is a
/// few writes, not one per line.
const PAGE: usize = 32 * 1024;

/// `pending`'s listing, for items of this store and of a server alike: one line about each
/// item and its main command (text), `RUN_ID TOOL_CALL_ID KIND` lines (`-q`), or JSON lines.
pub fn list(ctx: &Context, items: &[ItemView], quiet: bool) {
    let mut listing = Listing::new(ctx, quiet);
    for item in items {
        listing.push(item);
    }
    listing.end();
}

/// `list`, an item at a time: a long listing is written as it is read, never held whole.
pub struct Listing<'c> {
    ctx: &'c Context<'c>,
    quiet: bool,
    json: bool,
    now: i64,
    program: String,
    page: Page,
    any: bool,
}

impl<'c> Listing<'c> {
    pub fn new(ctx: &'c Context<'c>, quiet: bool) -> Listing<'c> {
        Listing {
            ctx,
            quiet,
            json: ctx.report.json() && !quiet,
            now: now_ms(),
            program: ctx.program(),
            page: Page::default(),
            any: false,
        }
    }

    pub fn push(&mut self, item: &ItemView) {
        self.any = true;
        let page = &mut self.page;
        if self.json {
            let commands = commands_with(&self.program, item);
            // Serialising borrowed strings and values into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut page.json, &ItemJson::of(item, &commands));
            page.json.push(b'\n');
        } else {
            push_item_lines(&mut page.text, &self.program, item, self.now, self.quiet);
        }
        if page.text.len() + page.json.len() >= PAGE {
            page.hand_over(self.ctx.report);
        }
    }

    /// Hands over what is left, or says that nothing is pending.
    pub fn end(mut self) {
        let report = self.ctx.report;
        self.page.hand_over(report);
        if !self.any {
            match &self.ctx.server {
                Some(server) => report.info(&format!("nothing is pending on {}", server.display())),
                None => report.info(&format!("nothing is pending in {}", self.ctx.store_named())),
            }
        }
    }
}

/// What a listing has written and not yet handed to the report.
#[derive(Default)]
struct Page {
    text: String,
    json: Vec<u8>,
}

impl Page {
    fn hand_over(&mut self, report: &dyn Report) {
        if !self.text.is_empty() {
            report.lines(&self.text);
        }
        // serde_json writes UTF-8 only.
        if let Ok(lines) = std::str::from_utf8(&self.json) {
            if !lines.is_empty() {
                report.json_lines(lines);
            }
        }
        self.text.clear();
        self.json.clear();
    }
}

/// One item of a text listing, appended to `out`: `RUN_ID TOOL_CALL_ID KIND` (`quiet`), or
/// the run, the item and its age, who may decide it, and the commands that resolve it.
fn push_item_lines(out: &mut String, program: &str, item: &ItemView, now: i64, quiet: bool) {
    if quiet {
        format::push_shell_quoted(out, item.run_id);
        out.push(' ');
        format::push_shell_quoted(out, item.call_id);
        out.push(' ');
        out.push_str(item.kind.noun());
        return out.push('\n');
    }
    sanitize::push_one_line(out, item.run_id);
    out.push_str("  ");
    item.describe_into(out);
    if let Some(at) = item.suspended_at.ms() {
        out.push_str("  ");
        format::push_age(out, at, now);
        out.push_str(" ago");
    }
    out.push('\n');
    if let Some(gate) = item.gate {
        out.push_str("    ");
        sanitize::push_one_line(out, &gate.summary());
        out.push('\n');
    }
    for verb in items::of(item.kind).commands(item) {
        out.push_str("    ");
        push_command(out, program, item, &verb);
        out.push('\n');
    }
}

/// Tells what a suspended run of this store waits for and the commands that answer it.
pub fn announce(ctx: &Context, store: &dyn Store, run_id: &str) -> Result<()> {
    let items = store.pending(Some(run_id))?;
    let gates = crate::policy::ItemGate::of_pending(store, &items)?;
    let shown: Vec<ItemView> = items.iter().map(|i| ItemView::gated(i, &gates)).collect();
    announce_items(ctx, run_id, &shown);
    Ok(())
}

/// Tells what a suspended run waits for and the commands that answer it.
pub fn announce_items(ctx: &Context, run_id: &str, items: &[ItemView]) {
    let (report, program) = (ctx.report, ctx.program());
    report.info(&format!(
        "run {} is waiting for input ({} pending):",
        sanitize::one_line(run_id),
        items.len()
    ));
    for item in items {
        report.info(&format!("  {}", item.describe()));
        if let Some(gate) = item.gate {
            report.info(&format!("    {}", sanitize::one_line(&gate.summary())));
        }
        for command in commands_with(&program, item) {
            report.info(&format!("    {command}"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use crate::domain::{CallRecord, CallState, Payload, ASK_USER, SUBMIT_PLAN};
    use crate::output::Out;
    use crate::remote;
    use crate::store::{Location, PendingItem};
    use clap::Parser;
    use serde_json::json;

    fn ctx(db: Option<&str>) -> Context<'static> {
        Context {
            location: Location::resolve(db),
            db_flag: db.map(str::to_string),
            store_from: crate::runner::StoreFrom::Flag,
            on_suspend: None,
            on_resolve: None,
            interactive: false,
            server: None,
            report: Box::leak(Box::new(Out::new(false))),
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
                state: CallState::Pending,
                kind: Some(kind),
                payload: match kind {
                    ItemKind::Approval => Payload::None,
                    _ => Payload::Args,
                },
                ..CallRecord::fixture(run, call, tool, payload)
            },
            agent_id: "a".into(),
            pending_in_run: 2,
            url: None,
            gated: false,
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
                &ItemView::pending(&item(run, call, ASK_USER, question.clone())),
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
                &ItemView::pending(&item(run, call, ASK_USER, multi.clone())),
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
            let commands = item_commands(
                &ctx,
                &ItemView::pending(&item(run, call, SUBMIT_PLAN, plan)),
            );
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
                &ItemView::pending(&item(run, call, "tag_release", json!({"v": 1}))),
            );
            let Command::Approve(approve) = parse(&commands[0]) else {
                panic!("{}", commands[0])
            };
            assert_eq!(approve.decision.run, run);
            assert_eq!(approve.decision.tool_call.as_deref(), Some(call));
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
        let item = |kind, payload: Option<Value>| remote::SuspendedCall {
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
        let shown = ItemView::remote(&custom, 2);
        assert_eq!(
            shown.describe(),
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
        let v = view_json(&ctx, &shown);
        assert_eq!(v["server"], server);
        assert_eq!(v["kind"], "other");
        assert_eq!(v["suspendedAt"], "2026-12-01T03:13:33.727Z");
        assert!(!v.to_string().contains("pw") && !v.to_string().contains("k3y"));

        let deploy = item(ItemKind::Approval, None);
        let shown = ItemView::remote(&deploy, 1);
        assert_eq!(
            shown.describe(),
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
