//! The docs and the help tell the truth: every `mastra-ask …` command line shown in README.md,
//! docs/*.md and the help's examples parses with the real clap definition; the exit-code table
//! is the program's; every page is linked from the README and every link lands; every
//! environment variable the program reads is documented; `--help` keeps global options apart.

use std::path::{Path, PathBuf};

use mastra_ask::cli;
use mastra_ask::exit::TABLE;

use crate::common::Env;

/// A run id that placeholders (`$RUN`, `<run>`) stand for.
const SAMPLE_RUN: &str = "3f2c9a1b";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md: (path relative to the repository, text).
fn pages() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("a docs/ directory")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(root().join(&n)).unwrap();
            (n, text)
        })
        .collect()
}

/// A command line found in a page: where, and its text from `mastra-ask` to its end.
#[derive(Debug)]
struct Shown {
    line: usize,
    command: String,
}

/// The lines inside fenced code blocks, with their 1-based line numbers; a line ending in
/// `\` is joined with the next (numbered as its first line).
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((i + 1, String::new()));
        joined.push_str(line.trim_end());
        match joined.strip_suffix('\\') {
            Some(head) => pending = Some((start, format!("{head} "))),
            None => out.push((start, joined)),
        }
    }
    out
}

/// What may stand right before a command: nothing, a prompt, a list dash, a YAML `run:`, or
/// a shell operator.
fn at_command_position(before: &str) -> bool {
    let before = before.trim_end();
    before.is_empty()
        || [
            "$", "$(", "(", "|", "||", "&&", ";", "-", "run:", "!", "{", "then", "do",
        ]
        .iter()
        .any(|p| before.ends_with(p))
}

/// Every `mastra-ask …` command in a code line, each cut where the shell would end it (an
/// operator, a redirection, a comment, the `)` of `$(…)`), quotes respected.
fn commands_in(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find("mastra-ask ") {
        let start = from + at;
        from = start + 1;
        if !at_command_position(&line[..start]) {
            continue;
        }
        found.push(cut(&line[start..]));
    }
    found
}

/// The command at the start of `s`, up to where the shell would end it.
fn cut(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut quote: Option<char> = None;
    let mut end = chars.len();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some('\'') if c == '\'' => quote = None,
            Some('"') if c == '"' => quote = None,
            Some('"') if c == '\\' => i += 1,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '\\' => i += 1,
                '|' | '&' | ';' | ')' | '>' | '`' => {
                    end = i;
                    break;
                }
                '#' if i == 0 || chars[i - 1] == ' ' => {
                    end = i;
                    break;
                }
                // `<word>` is a placeholder; any other `<` a redirection.
                '<' => {
                    let rest: String = chars[i + 1..].iter().collect();
                    let word: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                        .collect();
                    if word.is_empty() || !rest[word.len()..].starts_with('>') {
                        end = i;
                        break;
                    }
                    i += word.len() + 1;
                }
                _ => {}
            },
        }
        i += 1;
    }
    let mut command: String = chars[..end].iter().collect();
    // `2>/dev/null`: the descriptor belongs to the redirection.
    if chars.get(end) == Some(&'>') {
        let trimmed = command.trim_end_matches(|c: char| c.is_ascii_digit());
        if trimmed.len() < command.len() && trimmed.ends_with(' ') {
            command = trimmed.to_string();
        }
    }
    command.trim().to_string()
}

/// The words of a shown command as the program would get them, placeholders filled in.
fn words(command: &str) -> Result<Vec<String>, String> {
    let words = shell_words::split(command).map_err(|e| format!("cannot split: {e}"))?;
    Ok(words
        .into_iter()
        .map(|w| match w.as_str() {
            "$RUN" | "${RUN}" | "<run>" | "<RUN>" => SAMPLE_RUN.to_string(),
            "<answer>" => "2.0.0".to_string(),
            "<label>" => "beta".to_string(),
            w if w.starts_with('<') && w.ends_with('>') && w.len() > 2 => "x".to_string(),
            _ => w,
        })
        .collect())
}

/// Why a shown command does not parse, if it does not.
fn parse_error(command: &str) -> Option<String> {
    let words = match words(command) {
        Ok(w) => w,
        Err(e) => return Some(e),
    };
    match cli::parse_from(&words) {
        Ok(_) => None,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            None
        }
        Err(e) => Some(e.to_string().lines().next().unwrap_or_default().to_string()),
    }
}

/// Every command shown in a page's code blocks.
fn shown(text: &str) -> Vec<Shown> {
    code_lines(text)
        .into_iter()
        .flat_map(|(line, code)| {
            commands_in(&code)
                .into_iter()
                .map(move |command| Shown { line, command })
        })
        .collect()
}

/// `file:line: command: error` for each shown command that does not parse.
fn failures(file: &str, text: &str) -> Vec<String> {
    shown(text)
        .into_iter()
        .filter_map(|s| {
            parse_error(&s.command).map(|e| format!("{file}:{}: {}\n    {e}", s.line, s.command))
        })
        .collect()
}

#[test]
fn every_command_line_in_the_docs_parses() {
    let mut bad = Vec::new();
    let mut count = 0;
    for (file, text) in pages() {
        count += shown(&text).len();
        bad.extend(failures(&file, &text));
    }
    assert!(count >= 40, "only {count} command lines found in the docs");
    assert!(
        bad.is_empty(),
        "command lines that do not parse:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_example_in_the_help_parses() {
    let mut bad = Vec::new();
    for (name, examples) in mastra_ask::cli::EXAMPLES {
        for (what, line) in *examples {
            let commands = commands_in(line);
            assert!(
                !commands.is_empty(),
                "{name}: no command in the example {what:?}"
            );
            for command in commands {
                if !name.is_empty() {
                    assert!(
                        words(&command).unwrap().contains(&name.to_string()),
                        "the example {line:?} of `{name}` does not run `{name}`"
                    );
                }
                if let Some(e) = parse_error(&command) {
                    bad.push(format!("{name}: {command}\n    {e}"));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "examples that do not parse:\n{}",
        bad.join("\n")
    );
}

#[test]
fn a_command_line_that_does_not_parse_is_reported_with_its_file_and_line() {
    let page = "intro\n\n```console\n$ mastra-ask pending\n$ mastra-ask answer 3f2c --multi\n$ mastra-ask review \\\n    3f2c --aprove   # typo\n```\n\n`mastra-ask nosuch` in prose is not a code line\n";
    let found: Vec<(usize, String)> = shown(page)
        .into_iter()
        .map(|s| (s.line, s.command))
        .collect();
    assert_eq!(
        found,
        [
            (4, "mastra-ask pending".to_string()),
            (5, "mastra-ask answer 3f2c --multi".to_string()),
            (6, "mastra-ask review      3f2c --aprove".to_string()),
        ]
    );
    let bad = failures("page.md", page);
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(
        bad[0].starts_with("page.md:5: mastra-ask answer 3f2c --multi\n"),
        "{bad:?}"
    );
    assert!(
        bad[1].starts_with("page.md:6: mastra-ask review"),
        "{bad:?}"
    );
    assert!(bad[1].contains("--aprove"), "{bad:?}");
}

#[test]
fn commands_are_cut_where_the_shell_ends_them() {
    let cases: [(&str, &[&str]); 7] = [
        (
            r#"RUN=$(mastra-ask --no-input run -q --agent a.json "Go (now)") || [ $? -eq 75 ]"#,
            &[r#"mastra-ask --no-input run -q --agent a.json "Go (now)""#],
        ),
        (
            "git log -1 --format=%s | mastra-ask answer 3f2c -",
            &["mastra-ask answer 3f2c -"],
        ),
        (
            "mastra-ask completions zsh > ~/.zfunc/_mastra-ask",
            &["mastra-ask completions zsh"],
        ),
        (
            "mastra-ask pending 2>/dev/null && mastra-ask runs",
            &["mastra-ask pending", "mastra-ask runs"],
        ),
        (
            "    mastra-ask answer 01a2 <answer>",
            &["mastra-ask answer 01a2 <answer>"],
        ),
        (
            "- mastra-ask plan P.md --wait   # comment",
            &["mastra-ask plan P.md --wait"],
        ),
        ("echo 'use mastra-ask pending'; cat /srv/mastra-ask/x", &[]),
    ];
    for (line, expected) in cases {
        assert_eq!(commands_in(line), expected, "{line}");
    }
    assert_eq!(
        words("mastra-ask answer \"$RUN\" <answer> --tool-call <id>").unwrap(),
        [
            "mastra-ask",
            "answer",
            SAMPLE_RUN,
            "2.0.0",
            "--tool-call",
            "x"
        ]
    );
}

/// The rows `| N | meaning |` of a page's tables whose first cell is a number.
fn exit_rows(text: &str) -> Vec<(i32, String)> {
    text.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l
                .trim()
                .trim_matches('|')
                .split(" | ")
                .map(str::trim)
                .collect();
            let code = cells.first()?.parse::<i32>().ok()?;
            Some((code, cells.get(1)?.to_string()))
        })
        .collect()
}

#[test]
fn the_reference_exit_code_table_matches_the_code() {
    let reference = std::fs::read_to_string(root().join("docs/reference.md")).unwrap();
    let expected: Vec<(i32, String)> = TABLE.iter().map(|(_, c, m)| (*c, m.to_string())).collect();
    assert_eq!(exit_rows(&reference), expected);
    for (file, text) in pages() {
        if file != "docs/reference.md" {
            assert!(
                exit_rows(&text).is_empty(),
                "{file} has its own exit-code table: link to docs/reference.md#exit-codes"
            );
        }
    }
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The relative link targets of a page, outside code blocks.
fn links(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        for piece in line.split("](").skip(1) {
            if let Some(target) = piece.split(')').next() {
                if !target.contains("://") && !target.starts_with("mailto:") {
                    out.push(target.to_string());
                }
            }
        }
    }
    out
}

#[test]
fn the_readme_links_every_page_and_every_link_lands() {
    let pages = pages();
    let readme = &pages[0].1;
    let readme_links = links(readme);
    for (file, _) in &pages[1..] {
        assert!(
            readme_links
                .iter()
                .any(|l| l.split('#').next() == Some(file.as_str())),
            "README.md does not link {file}"
        );
    }
    let mut broken = Vec::new();
    for (file, text) in &pages {
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        for link in links(text) {
            let (path, fragment) = match link.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (link.as_str(), None),
            };
            let target = if path.is_empty() {
                root().join(file)
            } else {
                root().join(dir).join(path)
            };
            if !target.exists() {
                broken.push(format!("{file}: {link}: no such file"));
                continue;
            }
            if let Some(fragment) = fragment {
                let text = std::fs::read_to_string(&target).unwrap_or_default();
                if !anchors(&text).iter().any(|a| a == fragment) {
                    broken.push(format!("{file}: {link}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_front_page() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines < 400, "README.md has {lines} lines");
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("a rust-version")
        .trim_matches('"');
    assert!(
        readme.contains(&format!("Rust {version} or newer")),
        "the README's prerequisites do not name Rust {version}"
    );
}

#[test]
fn the_reference_names_every_environment_variable() {
    let reference = std::fs::read_to_string(root().join("docs/reference.md")).unwrap();
    for name in crate::generated::program_env_vars() {
        assert!(
            reference.contains(&format!("`{name}`")),
            "{name} is read by the program but not in docs/reference.md"
        );
    }
}

#[test]
fn help_keeps_global_options_apart_and_ends_with_examples() {
    let env = Env::new();
    let mut cmd = cli::command();
    let names: Vec<String> = cmd
        .get_subcommands_mut()
        .map(|s| s.get_name().to_string())
        .filter(|n| n != "help")
        .collect();
    for name in names {
        let out = env.cmd(&[&name, "--help"]).code(0);
        let help = &out.stdout;
        let own = help.find("\nOptions:\n").expect("an Options section");
        let global = help
            .find("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("`{name} --help` has no Global options section"));
        let examples = help
            .find("\nExamples:\n")
            .unwrap_or_else(|| panic!("`{name} --help` has no examples"));
        assert!(own < global && global < examples, "{name}: {help}");
        let own_section = &help[own..global];
        for flag in ["--db", "--output", "--no-input", "--color", "--on-suspend"] {
            assert!(
                !own_section.contains(flag),
                "{name}: {flag} among its own options"
            );
            assert!(
                help[global..examples].contains(flag),
                "{name}: {flag} missing"
            );
        }
    }
    let review = env.run(&["review", "--help"]).stdout;
    assert!(
        review.contains("a SQLite file or a postgres:// URL"),
        "{review}"
    );
    let prune = env.run(&["prune", "--help"]).stdout;
    assert!(
        prune.contains("[possible values: completed, failed, cancelled]"),
        "{prune}"
    );
}

#[test]
fn usage_lines_do_not_demand_what_the_environment_gives() {
    // The harness gives every command its store through MASTRA_ASK_DB.
    let env = Env::new();
    let out = env.cmd(&["review", "--feedback", "a", "3f2c9a1b"]).code(2);
    assert!(
        out.stderr
            .contains("Usage: mastra-ask review --reject --feedback <TEXT> <RUN>\n"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("--db"), "{}", out.stderr);
    let mut bad = env.command(&["runs"]);
    bad.env("MASTRA_ASK_OUTPUT", "xml");
    let out = env.run_with(bad);
    out.assert_code(2);
    assert!(
        out.stderr.contains("invalid value 'xml' for '--output"),
        "{}",
        out.stderr
    );
}
