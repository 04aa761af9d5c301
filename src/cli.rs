//! The command line, as clap types only. Doc comments here are the `--help` text.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

use crate::limits::text_value as text;

/// A duration of at most a year (`crate::limits::MAX_FLAG_DURATION`).
fn duration(s: &str) -> Result<Duration, String> {
    crate::duration::parse(s)
}

/// A duration of more than zero and at most a year.
fn positive_duration(s: &str) -> Result<Duration, String> {
    crate::duration::parse_positive(s)
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
    /// The store: a SQLite file [default: $XDG_DATA_HOME/mastra-ask/mastra-ask.db]
    #[arg(long, global = true, value_name = "PATH", env = "MASTRA_ASK_DB")]
    pub db: Option<String>,

    /// Output format: text for people, json for programs (JSON lines)
    #[arg(
        short = 'o',
        long,
        global = true,
        value_enum,
        default_value_t = OutputFormat::Text,
        env = "MASTRA_ASK_OUTPUT"
    )]
    pub output: OutputFormat,

    /// Never prompt; a missing answer is a usage error
    #[arg(long, global = true)]
    pub no_input: bool,

    /// When to use colours (NO_COLOR is honoured)
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Run `sh -c CMD` once per new pending item, with its `pending -o json` line on stdin
    #[arg(long, global = true, value_name = "CMD", env = "MASTRA_ASK_ON_SUSPEND")]
    pub on_suspend: Option<String>,

    /// Work on the runs of a Mastra server (its path is the API prefix, default /api):
    /// agents, pending, answer, review, approve, decline, run and wait. The token comes from
    /// MASTRA_SERVER_TOKEN or --server-token-file
    #[arg(long, global = true, value_name = "URL", env = "MASTRA_SERVER_URL")]
    pub server: Option<String>,

    /// With --server: read the token from this file (one line) instead of
    /// MASTRA_SERVER_TOKEN
    #[arg(long, global = true, value_name = "FILE")]
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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start a run of an agent on a prompt
    Run(RunArgs),
    /// List pending items (questions and plans waiting for a person), oldest first
    Pending(PendingArgs),
    /// Answer an ask_user question
    Answer(AnswerArgs),
    /// Approve or reject a plan submitted with submit_plan
    Review(ReviewArgs),
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
}

/// Waiting for the outcome, for `run`, `ask` and `plan`.
#[derive(Clone, Debug, Args)]
pub struct WaitFlags {
    /// Block until the run ends; this process drives it after each answer
    #[arg(long)]
    pub wait: bool,
    /// With --wait: at this deadline, close the pending items as expired and exit 124
    #[arg(long, value_name = "DUR", requires = "wait", value_parser = duration)]
    pub timeout: Option<Duration>,
    /// Pending items expire this long after they are created (the run then fails)
    #[arg(long, value_name = "DUR", value_parser = positive_duration)]
    pub expires_in: Option<Duration>,
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
    #[arg(long, value_name = "SPEC", env = "MASTRA_ASK_MODEL")]
    pub model: Option<String>,
    /// Model calls allowed per leg [default: the agent's maxSteps, else 5]
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u32>,
    /// The run's working directory (plan paths resolve against it)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Print only the run id on stdout, as soon as the run exists (not the agent's text)
    #[arg(short, long, conflicts_with = "wait")]
    pub quiet: bool,
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
    /// Only runs in this state (completed, failed or cancelled)
    #[arg(long, value_enum)]
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
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct PendingArgs {
    /// Only this run's items
    #[arg(long, value_name = "RUN")]
    pub run: Option<String>,
    /// With --server: only this agent's items
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// One `RUN_ID TOOL_CALL_ID KIND` line per item (ids shell-quoted when they need it)
    #[arg(short, long)]
    pub quiet: bool,
}

/// What every command that resolves an item takes: the run, the item, who, and whether to
/// drive the run on.
#[derive(Clone, Debug, Args)]
pub struct ItemArgs {
    /// The run (a unique id prefix of at least 4 characters is enough)
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
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("given").args(["answer", "multi", "json"])))]
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
    #[arg(long, value_name = "DIR")]
    pub plan_root: Option<PathBuf>,
    /// With --server: the plan's text, when its file cannot be read under --plan-root
    #[arg(long, value_name = "FILE", conflicts_with = "unseen")]
    pub plan_file: Option<PathBuf>,
    /// With --server: approve a plan whose file cannot be read, unseen
    #[arg(long)]
    pub unseen: bool,
}

#[derive(Debug, Args)]
pub struct RunRef {
    /// The run (a unique id prefix of at least 4 characters is enough)
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
    /// The tool: ask_user or submit_plan
    pub name: String,
    /// The tool's input as JSON
    #[arg(long, value_name = "INPUT", value_parser = text)]
    pub json: String,
}
