//! Shell completion that knows the store: the shell asks this program what to offer
//! (clap_complete's dynamic completion: `_MASTRA_ASK_COMPLETE=bash mastra-ask -- WORDS`),
//! so a RUN argument completes to the ids of the store's runs, a directory to `dir/`, and
//! everything else from the clap definition. `completions SHELL` prints the few lines that
//! hook a shell to it (`cli::completions`).
//!
//! Completing must never get in the way of typing: it never prompts, never creates or
//! changes a store (it only reads one that exists), prints nothing but candidates (stderr is
//! silenced: a store's warning would garble the command line), and offers nothing on any
//! error or when the store has not answered within a short deadline.

use std::ffi::OsString;
use std::sync::mpsc;
use std::time::Duration;

use clap_complete::CompletionCandidate;

use crate::domain::ItemKind;
use crate::output::sanitize;
use crate::store::{self, Access, Location, RunFilter};

/// The variable that makes a process answer a completion request. Not clap's default
/// `COMPLETE`: a name that general would turn an ordinary run into a completion by chance.
pub const VAR: &str = "_MASTRA_ASK_COMPLETE";

/// The program's name, as the shells complete it and call it back.
use crate::cli::BIN;

/// How long the store may take to list the runs (a remote PostgreSQL, say) before the
/// completion offers none.
const DEADLINE: Duration = Duration::from_millis(1500);

/// At most this many runs are offered.
const MAX_RUNS: usize = 100;

/// When this process is a shell's completion request, answers it and exits; otherwise
/// returns at once (one environment lookup).
pub fn complete_if_asked(command: fn() -> clap::Command) {
    if std::env::var_os(VAR).is_none_or(|v| v.is_empty()) {
        return;
    }
    crate::sys::silence_stderr();
    let empty = current_word(std::env::args_os()).is_empty();
    let factory = move || match empty {
        true => options_in_reserve(command()),
        false => command(),
    };
    clap_complete::CompleteEnv::with_factory(factory)
        .var(VAR)
        .bin(BIN)
        .completer(BIN)
        .complete();
}

/// The word under the cursor: the one at `_CLAP_COMPLETE_INDEX` of the words after `--`
/// (bash, zsh), else the last (fish, elvish, PowerShell pass it last).
fn current_word(args: impl Iterator<Item = OsString>) -> String {
    let words: Vec<OsString> = args.skip_while(|a| a != "--").skip(1).collect();
    let index = std::env::var("_CLAP_COMPLETE_INDEX")
        .ok()
        .and_then(|i| i.parse::<usize>().ok())
        .unwrap_or(words.len().saturating_sub(1));
    words
        .get(index)
        .map(|w| w.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The command with every option hidden, for completing an empty word: the engine then
/// offers the options only when nothing else fits, so `answer <TAB>` offers the runs (and
/// completes the only one) instead of inserting the `--` that all the options share, and
/// `-<TAB>` still offers every option.
fn options_in_reserve(mut cmd: clap::Command) -> clap::Command {
    // Built first: the subcommands' arguments (deferred until then) and the help and
    // version flags exist once it is.
    cmd.build();
    hide_options(cmd)
}

fn hide_options(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| if a.is_positional() { a } else { a.hide(true) })
        .mut_subcommands(hide_options)
}

/// Candidates for a RUN of `answer`, `review`, `approve`, `decline` and `pending --run`:
/// the runs that wait for an item of the command's kind (each oldest item first, as
/// `pending` lists them), or, when none does, every run that waits; never a finished one,
/// so `answer <TAB>` completes the one run that waits for an answer.
pub fn waiting_runs() -> Vec<CompletionCandidate> {
    candidates(true)
}

/// Candidates for any other RUN: the runs, newest first.
pub fn runs() -> Vec<CompletionCandidate> {
    candidates(false)
}

fn candidates(waiting_first: bool) -> Vec<CompletionCandidate> {
    let location = Location::resolve(store_flag(std::env::args_os()).as_deref());
    let kind = kind_of_command(std::env::args_os());
    let (tx, rx) = mpsc::channel();
    // A store that does not answer in time is left behind: the process exits once the
    // candidates are printed.
    std::thread::spawn(move || {
        let _ = tx.send(listed(
            &location,
            waiting_first.then_some(kind).flatten(),
            waiting_first,
        ));
    });
    rx.recv_timeout(DEADLINE)
        .ok()
        .flatten()
        .unwrap_or_default()
        .into_iter()
        .map(|(id, help)| CompletionCandidate::new(id).help(Some(help.into())))
        .collect()
}

/// The store the words being completed name (`--db PATH` or `--db=PATH`), else
/// `MASTRA_ASK_DB`, as the command itself would choose it.
fn store_flag(args: impl Iterator<Item = OsString>) -> Option<String> {
    let words: Vec<String> = args
        .skip_while(|a| a != "--")
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut given = None;
    for (i, word) in words.iter().enumerate() {
        if word == "--db" {
            given = words.get(i + 1).cloned();
        } else if let Some(value) = word.strip_prefix("--db=") {
            given = Some(value.to_string());
        }
    }
    given
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("MASTRA_ASK_DB").ok())
}

/// The kind of item the command being completed decides (`answer`: questions, `review`:
/// plans, `approve` and `decline`: approvals), from its words.
fn kind_of_command(args: impl Iterator<Item = OsString>) -> Option<ItemKind> {
    args.skip_while(|a| a != "--").skip(2).find_map(|w| {
        let w = w.to_str()?;
        // The first kind a verb resolves (`answer` also answers a server's `other`).
        ItemKind::ALL
            .into_iter()
            .find(|k| crate::items::of(*k).verbs().contains(&w))
    })
}

/// The runs to offer, each with its one-line description; `None` on any error. With
/// `waiting_first`, only the runs with pending items: those with an item of `kind`, or all
/// of them when none has.
fn listed(
    location: &Location,
    kind: Option<ItemKind>,
    waiting_first: bool,
) -> Option<Vec<(String, String)>> {
    let store = store::open(location, Access::Existing).ok()??;
    let runs = store
        .list_runs(&RunFilter {
            status: None,
            limit: MAX_RUNS,
        })
        .ok()?;
    let pending = store.pending(None).ok()?;
    let mut offered: Vec<(String, String)> = Vec::new();
    let describe = |id: &str| {
        let run = runs.iter().find(|r| r.id == id);
        let waits = pending
            .iter()
            .filter(|p| p.call.run_id == id)
            .min_by_key(|p| kind.is_some_and(|k| p.call.kind() != k));
        let mut text = match run {
            Some(r) => format!("{} {}", r.status.as_str(), sanitize::one_line(&r.agent_id)),
            None => "suspended".to_string(),
        };
        if let Some(item) = waits {
            text.push_str(&format!(": {}", item_text(item)));
        }
        shortened(&text)
    };
    if waiting_first {
        // Only runs that wait can be decided: those with an item of this kind, else any.
        let (first, then): (Vec<_>, Vec<_>) = pending
            .iter()
            .partition(|p| kind.is_none_or(|k| p.call.kind() == k));
        let waiting = if first.is_empty() { then } else { first };
        for item in waiting {
            let id = &item.call.run_id;
            if !offered.iter().any(|(o, _)| o == id) {
                offered.push((id.clone(), describe(id)));
            }
        }
    } else {
        for run in &runs {
            offered.push((run.id.clone(), describe(&run.id)));
        }
    }
    offered.retain(|(id, _)| is_plain_id(id));
    offered.truncate(MAX_RUNS);
    Some(offered)
}

/// What a pending item asks, in a few words.
fn item_text(item: &crate::store::PendingItem) -> String {
    let view = crate::items::ItemView::pending(item);
    let h = crate::items::of(view.kind).headline(&view);
    format!("{} {}", view.kind.noun(), sanitize::one_line(&h.text))
}

fn shortened(text: &str) -> String {
    const WIDTH: usize = 70;
    match text.char_indices().nth(WIDTH) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// Whether an id can be offered to a shell as it is (a stored id is a UUID; a damaged row
/// must not put shell syntax or control characters on the command line).
fn is_plain_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> impl Iterator<Item = OsString> {
        w.iter().map(OsString::from).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn the_store_comes_from_the_words_being_completed() {
        let flag = |w: &[&str]| store_flag(words(w));
        assert_eq!(
            flag(&[
                "mastra-ask",
                "--",
                "mastra-ask",
                "--db",
                "/x.db",
                "answer",
                ""
            ]),
            Some("/x.db".into())
        );
        assert_eq!(
            flag(&["mastra-ask", "--", "mastra-ask", "show", "--db=/y.db", ""]),
            Some("/y.db".into())
        );
        // Before the `--`, the words are the completer's own.
        let unset = std::env::var("MASTRA_ASK_DB").ok();
        assert_eq!(
            flag(&["mastra-ask", "--db", "/z", "--", "mastra-ask", "show", ""]),
            unset
        );
    }

    #[test]
    fn the_command_decides_which_waiting_runs_come_first() {
        let kind = |w: &[&str]| kind_of_command(words(w));
        assert_eq!(
            kind(&["mastra-ask", "--", "mastra-ask", "--db", "x", "answer", ""]),
            Some(ItemKind::Question)
        );
        assert_eq!(
            kind(&["mastra-ask", "--", "mastra-ask", "review", ""]),
            Some(ItemKind::Plan)
        );
        assert_eq!(
            kind(&["mastra-ask", "--", "mastra-ask", "decline", ""]),
            Some(ItemKind::Approval)
        );
        assert_eq!(
            kind(&["mastra-ask", "--", "mastra-ask", "pending", "--run", ""]),
            None
        );
        assert_eq!(
            kind(&["mastra-ask", "--", "answer"]),
            None,
            "the program's own name"
        );
    }

    #[test]
    fn the_word_under_the_cursor() {
        // Without _CLAP_COMPLETE_INDEX (fish, elvish, PowerShell), the last word.
        if std::env::var_os("_CLAP_COMPLETE_INDEX").is_none() {
            assert_eq!(
                current_word(words(&["c", "--", "mastra-ask", "answer", ""])),
                ""
            );
            assert_eq!(
                current_word(words(&["c", "--", "mastra-ask", "ans"])),
                "ans"
            );
        }
    }

    #[test]
    fn options_wait_in_reserve_for_an_empty_word() {
        let mut cmd = options_in_reserve(crate::cli::command());
        cmd.build();
        let answer = cmd.find_subcommand("answer").unwrap();
        for arg in answer.get_arguments() {
            assert_eq!(arg.is_hide_set(), !arg.is_positional(), "{}", arg.get_id());
        }
        assert!(answer.get_arguments().any(|a| a.get_long() == Some("help")));
        assert!(answer.get_arguments().any(|a| a.get_long() == Some("db")));
    }

    #[test]
    fn only_plain_ids_and_short_descriptions_are_offered() {
        assert!(is_plain_id("0197a0b2-7c3e-7d2a-9b1e-3f0c2d4e5a6b"));
        for bad in ["", "a b", "x;rm", "id\n", "$(x)", "é"] {
            assert!(!is_plain_id(bad), "{bad:?}");
        }
        assert_eq!(shortened("short"), "short");
        let long = "x".repeat(100);
        assert_eq!(shortened(&long).chars().count(), 73);
    }
}
