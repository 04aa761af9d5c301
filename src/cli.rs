//! The command line: clap types, and how the binary parses with them (`command()`,
//! `parse()`). Doc comments here are the `--help` text; the tables at the end (examples,
//! environment) are the rest of `--help` and of the man pages, laid out by `help` and `man`;
//! `completions` generates the shell scripts. Nothing here prints or decides.

pub mod completions;
pub mod help;
pub mod man;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgGroup, ArgMatches, Args, CommandFactory, Parser, Subcommand, ValueEnum, ValueHint};
use clap_complete::ArgValueCandidates;

use crate::completion::{runs, waiting_runs};

use crate::limits::text_value as text;

/// The program's name, as installed and as completions register it.
pub const BIN: &str = "mastra-ask";

/// The command line definition with each command's examples, and the exit codes in the
/// main command's long help.
pub fn command() -> clap::Command {
    let main = help::examples_help("");
    Cli::command()
        .after_help(main.clone())
        .after_long_help(format!("{main}\n{}", help::exit_codes_help()))
        .mut_subcommands(|sub| {
            let text = help::examples_help(sub.get_name());
            if text.is_empty() {
                sub
            } else {
                sub.after_help(text)
            }
        })
}

/// Parses the process's arguments with `command()`.
///
/// The examples are attached only when help is shown (a second parse, then), so that an
/// ordinary command does not pay for laying them out. And clap counts a value taken from the
/// environment as given, so with `MASTRA_ASK_DB` set every usage line of an error would show
/// `--db <PATH>` as if it were required: a usage error is reported from a parse that ignores
/// the environment when that parse fails the same way (otherwise the environment caused it,
/// and its error stands).
pub fn parse() -> Result<ArgMatches, clap::Error> {
    parse_from(std::env::args_os())
}

/// `parse` of the given arguments (the first is the program's name).
pub fn parse_from<I, T>(args: I) -> Result<ArgMatches, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    match Cli::command().try_get_matches_from(&args) {
        Ok(matches) => Ok(matches),
        // The version needs nothing more.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayVersion => Err(e),
        // Help: shown by the full definition, with the examples.
        Err(e) if !e.use_stderr() => command().try_get_matches_from(&args),
        Err(e) => match without_env(command()).try_get_matches_from(&args) {
            Err(plain) if plain.kind() == e.kind() => Err(plain),
            _ => Err(e),
        },
    }
}

/// `cmd` with no argument read from the environment.
fn without_env(mut cmd: clap::Command) -> clap::Command {
    // Built first: a subcommand's arguments are deferred until then.
    cmd.build();
    cmd.mut_args(|a| a.env(None)).mut_subcommands(without_env)
}

/// A duration of at most a year (`crate::limits::MAX_FLAG_DURATION`).
fn duration(s: &str) -> Result<Duration, String> {
    crate::duration::parse(s)
}

/// A duration of more than zero and at most a year.
fn positive_duration(s: &str) -> Result<Duration, String> {
    crate::duration::parse_positive(s)
}

/// The help heading of the options every command takes, kept apart from each command's own.
pub const GLOBAL: &str = "Global options";

/// `prune --status`: help and completions offer only the finished states; the others are
/// hidden, and still parsed so that `prune` can refuse them with a message that says why.
fn finished_status() -> impl clap::builder::TypedValueParser<Value = StatusArg> {
    use clap::builder::{PossibleValue, TypedValueParser};
    clap::builder::PossibleValuesParser::new([
        PossibleValue::new("completed"),
        PossibleValue::new("failed"),
        PossibleValue::new("cancelled"),
        PossibleValue::new("running").hide(true),
        PossibleValue::new("suspended").hide(true),
    ])
    .try_map(|s: String| StatusArg::from_str(&s, false))
}

/// Durable human-in-the-loop agent runs.
///
/// An agent runs until it must ask a person (ask_user) or have a plan reviewed
/// (submit_plan); the run is then suspended and kept in a store. Any later process lists
/// what waits (`pending`), answers (`answer`) or decides (`review`), and the run resumes
/// where it stopped.
#[derive(Debug, Parser)]
#[command(name = "mastra-ask", version, propagate_version = true)]
pub struct Cli {
    /// The store: a SQLite file or a postgres:// URL
    /// [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]
    #[arg(
        long,
        global = true,
        value_name = "PATH",
        value_hint = ValueHint::AnyPath,
        env = "MASTRA_ASK_DB",
        hide_env_values = true,
        help_heading = GLOBAL
    )]
    pub db: Option<String>,

    /// Output format: text for people, json for programs (JSON lines)
    #[arg(
        short = 'o',
        long,
        global = true,
        value_enum,
        default_value_t = OutputFormat::Text,
        env = "MASTRA_ASK_OUTPUT",
        hide_env_values = true,
        help_heading = GLOBAL
    )]
    pub output: OutputFormat,

    /// Never prompt; a missing answer is a usage error
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub no_input: bool,

    /// When to use colours (NO_COLOR is honoured)
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = ColorChoice::Auto,
        value_name = "WHEN",
        help_heading = GLOBAL
    )]
    pub color: ColorChoice,

    /// Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin
    #[arg(
        long,
        global = true,
        value_name = "CMD",
        value_hint = ValueHint::CommandString,
        env = "MASTRA_ASK_ON_SUSPEND",
        hide_env_values = true,
        help_heading = GLOBAL
    )]
    pub on_suspend: Option<String>,

    /// Run `sh -c CMD` once per resolved item, with its JSON line on stdin (of every process
    /// on the store, the first to claim the item runs it)
    #[arg(
        long,
        global = true,
        value_name = "CMD",
        value_hint = ValueHint::CommandString,
        env = "MASTRA_ASK_ON_RESOLVE",
        hide_env_values = true,
        help_heading = GLOBAL
    )]
    pub on_resolve: Option<String>,

    /// Work on the runs of a Mastra server (its path is the API prefix, default /api):
    /// agents, pending, answer, review, approve, decline, run and wait. The token comes from
    /// MASTRA_SERVER_TOKEN or --server-token-file
    #[arg(
        long,
        global = true,
        value_name = "URL",
        value_hint = ValueHint::Url,
        env = "MASTRA_SERVER_URL",
        hide_env_values = true,
        help_heading = GLOBAL
    )]
    pub server: Option<String>,

    /// With --server: read the token from this file (one line) instead of
    /// MASTRA_SERVER_TOKEN
    #[arg(long, global = true, value_name = "FILE", help_heading = GLOBAL)]
    pub server_token_file: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatusArg {
    Running,
    Suspended,
    Completed,
    Failed,
    Cancelled,
}

// Each subcommand's arguments are built only when it is the one given (or for help,
// completions and man pages), as every command is a whole process. Deferred, a flattened
// struct's doc comment would become the subcommand's help: those below are `//` comments.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Start a run of an agent on a prompt
    Run(RunArgs),
    /// List pending items: questions, plans and approvals waiting for a person, oldest first
    Pending(PendingArgs),
    /// Answer an ask_user question
    Answer(AnswerArgs),
    /// Approve or reject a plan submitted with submit_plan
    Review(ReviewArgs),
    /// Let a tool call that waits for approval run
    Approve(ApproveCmdArgs),
    /// Refuse a tool call that waits for approval: the tool never runs
    Decline(DeclineArgs),
    /// Show a run: status, transcript, items and who resolved them, events
    Show(RunRef),
    /// List runs, newest first
    Runs(RunsArgs),
    /// Cancel a run; its pending items are closed as cancelled
    Cancel(RunRef),
    /// Continue a run whose driver died (expired lease) or that failed
    Resume(RunRef),
    /// Call a tool outside any run and print its fallback text
    Tool(ToolArgs),
    /// Ask a person one question from a shell script (a one-question run)
    Ask(AskArgs),
    /// Have a person review a plan file from a shell script (a one-plan run)
    Plan(PlanArgs),
    /// Block until a run is neither running nor suspended; exit by its final state
    Wait(WaitArgs),
    /// Add the user's next message to a completed run and run it again
    Reply(ReplyArgs),
    /// Delete finished runs
    Prune(PruneArgs),
    /// Print shell completions
    Completions(CompletionsArgs),
    /// Print the man page (or write every page to a directory)
    Man(ManArgs),
    /// With --server: list the Mastra server's agents
    Agents,
    /// The reviewers' inbox: web pages and Mastra's agent API over this store
    Serve(ServeArgs),
    /// An MCP server over stdio: ask_user, submit_plan and approvals for any MCP client
    Mcp(McpArgs),
    /// The people who may sign in to serve: add, list, rotate, remove, link
    #[command(subcommand)]
    Reviewer(ReviewerCommand),
    /// Policies kept by name, for runs started with --policy NAME: set, list, remove
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// The store itself: on PostgreSQL, grant roles what runners and the inbox need
    #[command(subcommand)]
    Store(StoreCommand),
    /// Gates of agents this store does not run: make their pauses items of this store
    #[command(subcommand)]
    Hook(HookCommand),
}

// Waiting for the outcome, for `run`, `ask` and `plan`.
#[derive(Clone, Debug, Args)]
pub struct WaitFlags {
    /// Block until the run ends; this process drives it after each answer
    #[arg(long)]
    pub wait: bool,
    /// With --wait: at this deadline, close the pending items as expired and exit 124
    #[arg(long, value_name = "DUR", requires = "wait", value_parser = duration)]
    pub timeout: Option<Duration>,
    /// Pending items expire this long after they are created (the run then fails, unless
    /// --on-expiry says otherwise)
    #[arg(long, value_name = "DUR", value_parser = positive_duration)]
    pub expires_in: Option<Duration>,
    #[command(flatten)]
    pub review: ReviewFlags,
}

// Who may answer a new run's items (SPEC §14), for `run`, `ask` and `plan`: stored with
// the run at its start, never changed afterwards. (A plain comment: a doc comment would
// become the subcommands' about.)
#[derive(Clone, Debug, Default, Args)]
pub struct ReviewFlags {
    /// Only this reviewer, or every member of group G, may decide the run's items (repeat
    /// for more; replaces the agent file's review)
    #[arg(
        long = "reviewer",
        value_name = "NAME|group:G",
        conflicts_with = "policy"
    )]
    pub reviewers: Vec<String>,
    /// How many distinct reviewers must approve a plan or a tool call [default: 1]
    #[arg(long, value_name = "N", requires = "reviewers")]
    pub approvals: Option<u32>,
    /// The run's starter may answer and approve its own items too
    #[arg(long, requires = "reviewers")]
    pub allow_self: bool,
    /// The policy kept by that name (mastra-ask policy list) decides who may answer
    #[arg(long, value_name = "NAME")]
    pub policy: Option<String>,
    /// What an item becomes at its --expires-in deadline: the run fails, or the item is
    /// declined or rejected (never approved or answered) [default: fail]
    #[arg(long, value_name = "OUTCOME", value_enum, requires = "expires_in")]
    pub on_expiry: Option<OnExpiryArg>,
    /// An item still pending this long after it was created escalates (--on-escalate)
    #[arg(long, value_name = "DUR", value_parser = positive_duration)]
    pub escalate_after: Option<Duration>,
    /// With --escalate-after: run `sh -c CMD` once per escalated item, with its
    /// `pending -o json` line on stdin (the run's waiter runs it; never stored)
    #[arg(
        long,
        value_name = "CMD",
        requires = "escalate_after",
        env = "MASTRA_ASK_ON_ESCALATE",
        hide_env_values = true
    )]
    pub on_escalate: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnExpiryArg {
    Fail,
    Decline,
    Reject,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The prompt; `-` reads it from stdin
    #[arg(value_parser = text)]
    pub prompt: Option<String>,
    /// An agent file (JSON) [default: the built-in `assistant` agent]; with --server, the
    /// id of one of the server's agents
    #[arg(long, value_name = "FILE")]
    pub agent: Option<PathBuf>,
    /// The model, overriding the agent's: openai/MODEL, ollama/MODEL, openrouter/MODEL,
    /// openai-compatible/MODEL@URL, command:ARGV or script:PATH
    #[arg(
        long,
        value_name = "SPEC",
        env = "MASTRA_ASK_MODEL",
        hide_env_values = true
    )]
    pub model: Option<String>,
    /// Model calls allowed per leg [default: the agent's maxSteps, else 5]
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u32>,
    /// The run's working directory (plan paths resolve against it)
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub cwd: Option<PathBuf>,
    /// Print only the run id on stdout, as soon as the run exists (not the agent's text)
    #[arg(short, long, conflicts_with = "wait")]
    pub quiet: bool,
    /// Every call of the agent's command tools waits for approval (approve / decline)
    #[arg(long)]
    pub require_approval: bool,
    #[command(flatten)]
    pub wait: WaitFlags,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("input").args(["question", "json"]).required(true)))]
pub struct AskArgs {
    /// The question
    #[arg(value_parser = text)]
    pub question: Option<String>,
    /// An option to choose from (repeat for more)
    #[arg(long = "option", value_name = "LABEL", conflicts_with = "json", value_parser = text)]
    pub options: Vec<String>,
    /// Let the person choose several options
    #[arg(long, requires = "options")]
    pub multi: bool,
    /// The whole ask_user input as JSON: {"question", "options"?, "selectionMode"?}
    #[arg(long, value_name = "INPUT", value_parser = text)]
    pub json: Option<String>,
    #[command(flatten)]
    pub wait: WaitFlags,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The Markdown plan file
    pub file: PathBuf,
    #[command(flatten)]
    pub wait: WaitFlags,
}

#[derive(Debug, Args)]
pub struct WaitArgs {
    /// The run (a unique id prefix of at least 4 characters is enough)
    #[arg(add = ArgValueCandidates::new(runs))]
    pub run: String,
    /// Stop watching after this long (exit 124; the run is not changed)
    #[arg(long, value_name = "DUR", value_parser = duration)]
    pub timeout: Option<Duration>,
    /// Also drive the run after each answer, as `run --wait` does
    #[arg(long)]
    pub drive: bool,
}

#[derive(Debug, Args)]
pub struct ReplyArgs {
    /// The run (a unique id prefix of at least 4 characters is enough)
    #[arg(add = ArgValueCandidates::new(runs))]
    pub run: String,
    /// The message; `-` reads it from stdin
    #[arg(value_parser = text)]
    pub message: String,
}

#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Delete finished runs last updated longer ago than this (`0s` for all)
    #[arg(long, value_name = "DUR", value_parser = duration)]
    pub older_than: Duration,
    /// Only runs in this state
    #[arg(long, value_name = "STATUS", value_parser = finished_status())]
    pub status: Option<StatusArg>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write the main page and one page per subcommand into this directory
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub out_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct PendingArgs {
    /// Only this run's items
    #[arg(long, value_name = "RUN", add = ArgValueCandidates::new(waiting_runs))]
    pub run: Option<String>,
    /// With --server: only this agent's items
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// One `RUN_ID TOOL_CALL_ID KIND` line per item (ids shell-quoted when they need it)
    #[arg(short, long)]
    pub quiet: bool,
}

// What every command that resolves an item takes: the run, the item, who, and whether to
// drive the run on.
#[derive(Clone, Debug, Args)]
pub struct ItemArgs {
    /// The run (a unique id prefix of at least 4 characters is enough)
    #[arg(add = ArgValueCandidates::new(waiting_runs))]
    pub run: Option<String>,
    /// Which item, when the run has several pending
    #[arg(long, value_name = "ID")]
    pub tool_call: Option<String>,
    /// Who resolves it [default: $MASTRA_ASK_USER, else the login name]
    #[arg(long = "as", value_name = "NAME")]
    pub as_: Option<String>,
    /// Only record it; do not drive the run on in this process
    #[arg(long)]
    pub no_resume: bool,
    /// While a live waiter or driver advances the run and nothing is pending yet, wait this
    /// long for its next item (then nothing waiting is a conflict, exit 4)
    #[arg(long, value_name = "DUR", value_parser = duration, default_value = "30s")]
    pub timeout: Duration,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("given").args(["answer", "multi", "json", "other"])))]
pub struct AnswerArgs {
    #[command(flatten)]
    pub item: ItemArgs,
    /// The answer: free text or one option's label; `-` reads stdin
    #[arg(value_parser = text)]
    pub answer: Option<String>,
    /// The chosen labels of a multi-select question
    #[arg(long, num_args = 1.., value_name = "LABEL", value_parser = text)]
    pub multi: Option<Vec<String>>,
    /// The answer as JSON: a string, or an array of labels (a Mastra server's `other`
    /// item: its resume data, sent as given)
    #[arg(long, value_name = "VALUE", value_parser = text)]
    pub json: Option<String>,
    /// Free text in place of the options, where the question takes it (a Claude Code
    /// question's "Other")
    #[arg(long, value_name = "TEXT", value_parser = text)]
    pub other: Option<String>,
    /// With --server: look for the run among this agent's runs only (no walk over every
    /// agent)
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("decision").args(["approve", "reject", "json"])))]
pub struct ReviewArgs {
    #[command(flatten)]
    pub item: ItemArgs,
    /// Approve the plan
    #[arg(long)]
    pub approve: bool,
    /// Reject the plan
    #[arg(long)]
    pub reject: bool,
    /// Feedback for the model with --reject (not empty)
    #[arg(
        long,
        value_name = "TEXT",
        requires = "reject",
        conflicts_with_all = ["feedback_file", "approve", "json"],
        value_parser = text
    )]
    pub feedback: Option<String>,
    /// Feedback read from a file (`-` for stdin) with --reject
    #[arg(
        long,
        value_name = "FILE",
        requires = "reject",
        conflicts_with_all = ["approve", "json"]
    )]
    pub feedback_file: Option<PathBuf>,
    /// The decision as JSON: {"action":"approved"|"rejected","feedback":"..."}
    #[arg(long, value_name = "VALUE", value_parser = text)]
    pub json: Option<String>,
    /// With --server: the directory the agent's plan paths are relative to [default: the
    /// current directory]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub plan_root: Option<PathBuf>,
    /// With --server: the plan's text, when its file cannot be read under --plan-root
    #[arg(long, value_name = "FILE", conflicts_with = "unseen")]
    pub plan_file: Option<PathBuf>,
    /// With --server: approve a plan whose file cannot be read, unseen
    #[arg(long)]
    pub unseen: bool,
    /// With --server: look for the run among this agent's runs only (no walk over every
    /// agent)
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
}

// What `approve` and `decline` take: the run (required: a shared store may hold others'
// approvals), the item, who, and whether to drive the run on.
#[derive(Clone, Debug, Args)]
pub struct ApproveArgs {
    /// The run (a unique id prefix of at least 4 characters is enough)
    #[arg(add = ArgValueCandidates::new(waiting_runs))]
    pub run: String,
    /// Which tool call, when the run has several waiting for approval
    #[arg(long, value_name = "ID")]
    pub tool_call: Option<String>,
    /// Who decides [default: $MASTRA_ASK_USER, else the login name]; a name, not
    /// authentication
    #[arg(long = "as", value_name = "NAME")]
    pub as_: Option<String>,
    /// Only record the decision; do not drive the run on in this process
    #[arg(long)]
    pub no_resume: bool,
    /// While a live waiter or driver advances the run and nothing is pending yet, wait this
    /// long for its next approval (then nothing waiting is a conflict, exit 4)
    #[arg(long, value_name = "DUR", value_parser = duration, default_value = "30s")]
    pub timeout: Duration,
    /// The decision as Mastra's resume data: {"approved":true|false,"reason"?:"..."}; it
    /// must agree with the command
    #[arg(long, value_name = "VALUE", value_parser = text)]
    pub json: Option<String>,
    /// With --server: look for the run among this agent's runs only (no walk over every
    /// agent)
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// Every approval of the run, in one decision (listed first; all or none)
    #[arg(long, conflicts_with_all = ["tool_call", "json"])]
    pub all: bool,
    /// With --all: do not ask to confirm (needed without a terminal)
    #[arg(long, requires = "all")]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ApproveCmdArgs {
    #[command(flatten)]
    pub decision: ApproveArgs,
    /// Approve with changes: run the tool with these arguments (JSON, checked against the
    /// tool's input schema) instead of the proposed ones
    #[arg(long, value_name = "JSON", conflicts_with_all = ["all", "json"], value_parser = text)]
    pub args: Option<String>,
}

#[derive(Debug, Args)]
pub struct DeclineArgs {
    #[command(flatten)]
    pub decision: ApproveArgs,
    /// Why; the model receives it [default: Tool call was not approved by the user]
    #[arg(long, value_name = "TEXT", conflicts_with = "json", value_parser = text)]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct RunRef {
    /// The run (a unique id prefix of at least 4 characters is enough)
    #[arg(add = ArgValueCandidates::new(runs))]
    pub run: String,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Only runs in this state
    #[arg(long, value_enum)]
    pub status: Option<StatusArg>,
    /// At most this many runs
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct ToolArgs {
    /// The tool: ask_user, submit_plan, or write_file (writes a file beneath the current
    /// directory, for an agent's command tool)
    pub name: String,
    /// The tool's input as JSON [default: read from stdin]
    #[arg(long, value_name = "INPUT", value_parser = text)]
    pub json: Option<String>,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// How long a tool call waits for a person before it returns "pending" (then the
    /// client calls await_answer)
    #[arg(long, value_name = "DUR", default_value = "50s", value_parser = duration)]
    pub wait: Duration,
    /// Pending items expire this long after they are created (the run then fails, unless
    /// --on-expiry says otherwise)
    #[arg(long, value_name = "DUR", value_parser = positive_duration)]
    pub expires_in: Option<Duration>,
    #[command(flatten)]
    pub review: ReviewFlags,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen; an address that is not loopback needs TLS (--tls-cert) or
    /// --behind-proxy
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:4180")]
    pub listen: std::net::SocketAddr,
    /// Serve HTTPS with this certificate chain (PEM)
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// The address people and links reach the inbox at (recorded in the store the first
    /// time) [default: the listen address]
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// Record --public-url in place of a different one recorded before
    #[arg(long, requires = "public_url")]
    pub replace_public_url: bool,
    /// A TLS-terminating proxy is in front: a non-loopback --listen is allowed without
    /// --tls-cert, --public-url must be https, and the client address is the last
    /// X-Forwarded-For hop
    #[arg(long, conflicts_with = "tls_cert")]
    pub behind_proxy: bool,
    /// After an answer, drive the runs this OS user started on this host (their model and
    /// command tools run with this process's environment and privileges); other runs are
    /// only recorded for their waiting process or `resume`
    #[arg(long)]
    pub drive: bool,
    /// Run `sh -c CMD` once per item whose --escalate-after has passed, in any run of the
    /// store, with its `pending -o json` line on stdin (once per item, whoever watches)
    #[arg(
        long,
        value_name = "CMD",
        env = "MASTRA_ASK_ON_ESCALATE",
        hide_env_values = true
    )]
    pub on_escalate: Option<String>,
    /// Access tokens for ntfy servers, lines `HOST[:PORT] TOKEN` (a private file): a
    /// reviewer's channel on such a server is private and gets the item's text
    #[arg(long, value_name = "FILE")]
    pub ntfy_token_file: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ReviewerCommand {
    /// Add a reviewer and print their token, once, on stdout
    Add(ReviewerAddArgs),
    /// List the reviewers
    List,
    /// Give a reviewer a new token (printed once); the old one and their sessions stop
    /// working
    Rotate(ReviewerName),
    /// Remove a reviewer: their token, sessions and links stop working
    Remove(ReviewerName),
    /// Print a single-use sign-in link for a reviewer, valid 15 minutes (for a phone)
    Link(ReviewerName),
    /// Set where serve tells a reviewer of new items (ntfy:https://HOST/TOPIC), or --none
    Notify(ReviewerNotifyArgs),
}

#[derive(Debug, Args)]
pub struct ReviewerAddArgs {
    /// The reviewer's name (letters, digits, `.`, `_`, `-`, `@`)
    pub name: String,
    /// A group the reviewer belongs to (repeat for more), for policies
    #[arg(long = "group", value_name = "G")]
    pub groups: Vec<String>,
    /// The local OS user who is this reviewer, for policies
    #[arg(long, value_name = "U")]
    pub os_user: Option<String>,
    /// The PostgreSQL role that is this reviewer, for policies
    #[arg(long, value_name = "R")]
    pub pg_role: Option<String>,
    /// Where serve tells the reviewer of new items: ntfy:https://HOST/TOPIC
    #[arg(long, value_name = "URL")]
    pub notify: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReviewerNotifyArgs {
    /// The reviewer's name
    pub name: String,
    /// The channel: ntfy:https://HOST/TOPIC (http only to this machine)
    #[arg(
        value_name = "URL",
        required_unless_present = "none",
        conflicts_with = "none"
    )]
    pub url: Option<String>,
    /// Tell the reviewer nothing
    #[arg(long)]
    pub none: bool,
}

#[derive(Debug, Args)]
pub struct ReviewerName {
    /// The reviewer's name
    pub name: String,
}

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Keep a policy by name, replacing one of that name; its reviewers and groups must
    /// exist now, and are resolved again when each run starts
    Set(PolicySetArgs),
    /// List the policies, with who may decide under each as of now
    List,
    /// Remove a policy; runs started under it keep the policy they stored
    Remove(PolicyName),
}

#[derive(Debug, Args)]
pub struct PolicySetArgs {
    /// The policy's name (letters, digits, `.`, `_`, `-`, `@`)
    pub name: String,
    /// A reviewer, or group:G for every member of a group (repeat for more)
    #[arg(long = "reviewer", value_name = "NAME|group:G", required = true)]
    pub reviewers: Vec<String>,
    /// How many distinct reviewers must approve a plan or a tool call
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub approvals: u32,
    /// The run's starter may answer and approve its own items too
    #[arg(long)]
    pub allow_self: bool,
    /// Keep it as the minimum for every run of this agent (e.g. claude-code): a run's own
    /// review may tighten it, never weaken it (one per agent)
    #[arg(long, value_name = "AGENT")]
    pub for_agent: Option<String>,
}

#[derive(Debug, Args)]
pub struct PolicyName {
    /// The policy's name
    pub name: String,
}

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// On a PostgreSQL store, as its owner: let each ROLE create and drive runs and read
    /// the store, deciding only as a run's policy allows its reviewer (with --serve: also
    /// sign reviewers in and decide as the one signed in, as serve does)
    Grant(StoreGrantArgs),
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Claude Code's PreToolUse command hook: each call it gates waits in this store for a
    /// decision, then is allowed (with any changes) or denied; in `claude -p` it is deferred
    /// until then
    ClaudeCode(ClaudeCodeHookArgs),
}

#[derive(Debug, Args)]
pub struct ClaudeCodeHookArgs {
    /// How long the hook itself waits for a decision before it answers (at most 9m; the
    /// settings' timeout must be 30s above it)
    #[arg(long, value_name = "DUR", default_value = "0s", value_parser = duration)]
    pub wait: Duration,
    /// Pending items expire this long after they are created (the session's run then fails,
    /// unless --on-expiry says otherwise)
    #[arg(long, value_name = "DUR", value_parser = positive_duration)]
    pub expires_in: Option<Duration>,
    #[command(flatten)]
    pub review: ReviewFlags,
    /// The Claude Code run whose calls this hook gates (written by `run` itself)
    #[arg(long, value_name = "RUN", hide = true)]
    pub run: Option<String>,
}

#[derive(Debug, Args)]
pub struct StoreGrantArgs {
    /// The PostgreSQL roles (they must exist)
    #[arg(required = true, value_name = "ROLE")]
    pub roles: Vec<String>,
    /// The roles run serve
    #[arg(long)]
    pub serve: bool,
}

/// Examples: for the main page (`""`) and each subcommand, what an example does and its
/// command line (`3f2c9a1b` stands for a run id prefix). They end each `--help` and fill each
/// man page's EXAMPLES section, and a test parses every line with this very definition.
pub const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "",
        &[
            (
                "Run the example agent (at a terminal it asks you right there)",
                "mastra-ask run --agent examples/release/agent.json --cwd examples/release \"Prepare the next release\"",
            ),
            ("See what waits for a person, with the commands that answer it", "mastra-ask pending"),
            ("Answer a multi-select question", "mastra-ask answer 3f2c9a1b --multi \"Add tests\" \"Update docs\""),
            ("Approve the plan; the run goes on in this process", "mastra-ask review 3f2c9a1b --approve"),
        ],
    ),
    (
        "run",
        &[
            (
                "Run an agent; at a terminal it asks each question inline",
                "mastra-ask run --agent examples/release/agent.json --cwd examples/release \"Prepare the next release\"",
            ),
            (
                "In a script: keep only the run id (the run suspends, exit 75)",
                "RUN=$(mastra-ask --no-input run -q --agent agent.json \"Prepare the next release\") || [ $? -eq 75 ]",
            ),
            (
                "Block until the run ends; give up on a person after 4 hours (exit 124)",
                "mastra-ask run --wait --timeout 4h --agent agent.json \"Prepare the next release\"",
            ),
            ("The built-in agent on a real model", "mastra-ask run --model openai/gpt-4o-mini \"Plan the database migration\""),
        ],
    ),
    (
        "pending",
        &[
            ("Everything that waits, oldest first, with the commands that resolve it", "mastra-ask pending"),
            ("One run's items as JSON lines", "mastra-ask pending --run 3f2c9a1b -o json"),
            ("Ids only, for a shell loop", "mastra-ask pending -q"),
            (
                "What waits on a Mastra server, every agent's suspended runs",
                "mastra-ask --server http://localhost:4111 pending",
            ),
        ],
    ),
    (
        "answer",
        &[
            (
                "Free text or a label; at a terminal it then asks what comes next",
                "mastra-ask answer 3f2c9a1b 2.0.0",
            ),
            ("Only this answer, never a prompt after it", "mastra-ask --no-input answer 3f2c9a1b 2.0.0"),
            ("Several labels of a multi-select question", "mastra-ask answer 3f2c9a1b --multi \"Add tests\" \"Update docs\""),
            ("The answer from stdin", "git log -1 --format=%s | mastra-ask answer 3f2c9a1b -"),
            ("In a set -e script: 75 (suspended again) is not a failure", "mastra-ask answer \"$RUN\" beta || [ $? -eq 75 ]"),
            ("At a terminal: pick a pending question and answer it in a menu", "mastra-ask answer"),
            (
                "A Mastra server's run: checked here, sent once, the leg streamed",
                "mastra-ask --server http://localhost:4111 answer 7c9e6679 --multi \"Add tests\" \"Update docs\"",
            ),
        ],
    ),
    (
        "review",
        &[
            ("Approve the plan", "mastra-ask review 3f2c9a1b --approve"),
            (
                "Reject it with feedback: the agent revises the plan",
                "mastra-ask review 3f2c9a1b --reject --feedback \"Tag only after the docs are published\"",
            ),
            ("Feedback from a file", "mastra-ask review 3f2c9a1b --reject --feedback-file review-notes.md"),
            ("At a terminal: read the plan, then choose in a menu", "mastra-ask review"),
            (
                "A Mastra server's plan, read where the agent wrote it",
                "mastra-ask --server http://localhost:4111 review 7c9e6679 --plan-root ~/app --approve",
            ),
        ],
    ),
    (
        "approve",
        &[
            ("Let the tool call run; the run goes on in this process, the tool first", "mastra-ask approve 3f2c9a1b"),
            ("Several tool calls wait: name one", "mastra-ask approve 3f2c9a1b --tool-call call_tag"),
            ("Only record it; the run's waiting process runs the tool", "mastra-ask approve 3f2c9a1b --no-resume"),
        ],
    ),
    (
        "decline",
        &[
            ("Refuse it; the model gets the reason", "mastra-ask decline 3f2c9a1b --reason \"Not on a Friday\""),
            (
                "Mastra's resume data as JSON",
                "mastra-ask decline 3f2c9a1b --json '{\"approved\":false,\"reason\":\"Not on a Friday\"}'",
            ),
        ],
    ),
    (
        "agents",
        &[
            ("The agents of a Mastra server", "mastra-ask --server http://localhost:4111 agents"),
            (
                "As JSON lines, from a server mounted under /mastra/api",
                "mastra-ask --server https://agents.example.com/mastra/api agents -o json",
            ),
        ],
    ),
    (
        "show",
        &[
            ("Status, transcript, who answered what and when, events", "mastra-ask show 3f2c9a1b"),
            ("The same as one JSON object", "mastra-ask show 3f2c9a1b -o json"),
        ],
    ),
    (
        "runs",
        &[
            ("The runs waiting for a person", "mastra-ask runs --status suspended"),
            ("The last 5 runs as JSON lines", "mastra-ask runs --limit 5 -o json"),
        ],
    ),
    ("cancel", &[("Cancel a run and close its pending items", "mastra-ask cancel 3f2c9a1b")]),
    (
        "resume",
        &[("Continue a failed run (its model server was down), or one whose driver died", "mastra-ask resume 3f2c9a1b")],
    ),
    (
        "tool",
        &[(
            "See the text a model gets for an ask_user call",
            "mastra-ask tool ask_user --json '{\"question\":\"Ship it?\",\"options\":[{\"label\":\"yes\"},{\"label\":\"no\"}]}'",
        )],
    ),
    (
        "ask",
        &[
            (
                "Ask and wait for the answer (on stdout); nobody in 10 minutes: exit 124",
                "mastra-ask ask \"Deploy build 512 to production?\" --option yes --option no --wait --timeout 10m",
            ),
            (
                "Several choices, one label per line on stdout",
                "mastra-ask ask \"Deploy to which environments?\" --option staging --option production --multi --wait",
            ),
            ("Ask without waiting: stdout is the run id, exit 75", "RUN=$(mastra-ask ask \"Who signs off the release?\") || [ $? -eq 75 ]"),
        ],
    ),
    (
        "plan",
        &[
            ("Wait for a person to review a plan: exit 0 approved, 5 rejected", "mastra-ask plan RELEASE_PLAN.md --wait --timeout 4h"),
            ("Leave it for review; it expires after a day", "mastra-ask plan RELEASE_PLAN.md --expires-in 1d"),
        ],
    ),
    (
        "wait",
        &[
            ("Block until the run ends; exit by how it ended", "mastra-ask wait 3f2c9a1b --timeout 10m"),
            ("Also drive the run after each answer, as run --wait does", "mastra-ask wait 3f2c9a1b --drive"),
        ],
    ),
    (
        "reply",
        &[(
            "Go on after a plan was rejected without feedback",
            "mastra-ask reply 3f2c9a1b \"Split the release into two steps\"",
        )],
    ),
    (
        "prune",
        &[
            ("Delete finished runs older than 30 days", "mastra-ask prune --older-than 30d"),
            ("Delete every cancelled run", "mastra-ask prune --older-than 0s --status cancelled"),
        ],
    ),
    (
        "serve",
        &[
            ("The inbox on this machine, at http://127.0.0.1:4180", "mastra-ask serve"),
            (
                "Behind a TLS-terminating proxy, with links that point at it",
                "mastra-ask serve --listen 0.0.0.0:4180 --behind-proxy --public-url https://inbox.example.com",
            ),
            (
                "HTTPS of its own, on a shared PostgreSQL store",
                "mastra-ask --db postgres://ci@db.example.com/agents serve --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem --public-url https://inbox.example.com:8443",
            ),
        ],
    ),
    (
        "mcp",
        &[
            (
                "What an MCP client's config runs: anyone at this store may answer",
                "mastra-ask mcp",
            ),
            (
                "Only alice may decide the calls' items; a call waits 30s, then says pending",
                "mastra-ask mcp --reviewer alice --wait 30s",
            ),
        ],
    ),
    (
        "reviewer",
        &[
            ("Add a reviewer; their token is printed once", "mastra-ask reviewer add alice --group release"),
            ("A sign-in link for a phone, valid 15 minutes", "mastra-ask reviewer link alice"),
            ("Tell alice of new items on her phone (serve publishes to ntfy)", "mastra-ask reviewer notify alice ntfy:https://ntfy.example.com/alice-inbox"),
            ("A new token; the old one and every session of alice end", "mastra-ask reviewer rotate alice"),
            ("Who may sign in", "mastra-ask reviewer list -o json"),
        ],
    ),
    (
        "policy",
        &[
            ("Two of the release group must approve; the job's author may not", "mastra-ask policy set release --reviewer group:release --approvals 2"),
            ("The policies, with who may decide under each", "mastra-ask policy list"),
        ],
    ),
    (
        "store",
        &[
            ("As the owner of a PostgreSQL store: a CI runner's role, and serve's", "mastra-ask store grant ci"),
            ("The role serve connects as", "mastra-ask store grant inbox --serve"),
        ],
    ),
    (
        "hook",
        &[
            (
                "The command of a PreToolUse hook in Claude Code's settings (timeout 60)",
                "mastra-ask hook claude-code --reviewer group:release || exit 2",
            ),
            (
                "Wait up to five minutes in the hook itself (timeout at least 330)",
                "mastra-ask hook claude-code --wait 5m || exit 2",
            ),
        ],
    ),
    (
        "completions",
        &[
            ("bash", "mastra-ask completions bash > ~/.local/share/bash-completion/completions/mastra-ask"),
            ("zsh (a directory in $fpath)", "mastra-ask completions zsh > ~/.zfunc/_mastra-ask"),
            ("fish", "mastra-ask completions fish > ~/.config/fish/completions/mastra-ask.fish"),
        ],
    ),
    (
        "man",
        &[
            (
                "Install the pages beside cargo's bin/, where man finds them",
                "mastra-ask man --out-dir ~/.cargo/share/man/man1",
            ),
            ("Read the main page without installing it", "mastra-ask man | man -l -"),
        ],
    ),
];

/// The environment variables mastra-ask reads (and sets for `--on-suspend`), for the man
/// page's ENVIRONMENT section: name and meaning.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    ("MASTRA_ASK_DB", "The store, as --db: a SQLite file or a postgres:// URL."),
    ("MASTRA_ASK_OUTPUT", "text or json, as -o."),
    ("MASTRA_ASK_ON_SUSPEND", "A command to run per new pending item, as --on-suspend."),
    ("MASTRA_ASK_ON_RESOLVE", "A command to run once per resolved item, as --on-resolve."),
    ("MASTRA_ASK_ON_ESCALATE", "A waiter's or serve's command to run per escalated item, as --on-escalate."),
    ("MASTRA_ASK_MODEL", "The model spec of run, as --model."),
    ("MASTRA_ASK_USER", "Who resolves items [default: the login name, $USER or $LOGNAME]."),
    ("MASTRA_ASK_RUN_ID", "Set for the --on-suspend and --on-resolve commands: the item's run id."),
    ("MASTRA_ASK_TOOL_CALL_ID", "Set for the --on-suspend and --on-resolve commands: the item's tool call id."),
    ("MASTRA_ASK_API_KEY", "The key for openai-compatible/ model servers (Authorization: Bearer)."),
    ("MASTRA_ASK_STREAM", "0 asks models for one JSON response instead of a stream [default: 1]."),
    ("MASTRA_ASK_CONNECT_TIMEOUT", "Longest wait to connect to a model server [default: 10s]."),
    (
        "MASTRA_ASK_READ_TIMEOUT",
        "Longest silence from a model server; the longest a command: model may run [default: 5m].",
    ),
    ("MASTRA_ASK_RETRY_DELAY", "The first retry's wait after a model server failure; each next one doubles [default: 500ms]."),
    ("MASTRA_ASK_BUSY_TIMEOUT", "How long to wait for a SQLite store locked by another process [default: 10s]."),
    (
        "MASTRA_ASK_HOST_ID",
        "This machine's identity in driver leases [default: /etc/machine-id or the boot id, with the pid namespace]; set it per machine when machines share a cloned machine id.",
    ),
    (
        "MASTRA_SERVER_URL",
        "The Mastra server the commands work on, as --server.",
    ),
    ("MASTRA_SERVER_TOKEN", "The token for that Mastra server."),
    (
        "MASTRA_ASK_SERVER_IDLE_TIMEOUT",
        "Longest silence of a Mastra server: before a stream starts, between its events, and the cap of a JSON request when under 60s [default: 200s, at most 1d].",
    ),
    ("OPENAI_API_KEY", "The key for openai/ models."),
    ("OPENAI_BASE_URL", "Where openai/ models are served [default: https://api.openai.com/v1]."),
    ("OLLAMA_BASE_URL", "Where ollama/ models are served [default: http://localhost:11434/v1]."),
    ("OPENROUTER_API_KEY", "The key for openrouter/ models."),
    ("OPENROUTER_BASE_URL", "Where openrouter/ models are served [default: https://openrouter.ai/api/v1]."),
    ("HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY", "Proxies for model and Mastra servers."),
    ("SSL_CERT_FILE", "PEM certificates to trust for a Mastra server."),
    ("NO_COLOR", "When set and not empty, no colours (as --color never)."),
    ("XDG_DATA_HOME, HOME", "Where the default store lives (see FILES)."),
    ("VISUAL, EDITOR", "The editor for feedback written in an editor [default: vi]."),
    ("PAGER, LESS", "The pager for plans longer than the screen [default: less, with LESS=FRX unless LESS is set]."),
];
