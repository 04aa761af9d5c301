//! Hostile input through the real binary (issue #10; SPEC §1 ids, §5.6 escaping, §8
//! `command:` process groups, §9 limits): model-chosen tool-call ids, durations past their
//! maximum, plan files raced by a swapping tree, inputs that never end, and the parser's
//! own errors. Each case fails on a build without its fix.

use std::fs::File;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::sleep;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::assert_shown;
use crate::common::{
    alive, assert_one_line_error, assert_same_store, finish_within, poll, poll_for, Env, Out, BIN,
    PATIENCE,
};
use crate::steps::{ask, plan, say};

/// The first character that must never reach a terminal raw: a control character other
/// than a newline or tab, a bidi control, or an invisible one (SPEC §5.6).
fn raw_control(s: &str) -> Option<char> {
    s.chars().find(|&c| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c,
                '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}'
                | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{e0000}'..='\u{e007f}')
    })
}

/// `Out::assert_code` for outputs too long to show whole (100 KiB ids).
#[track_caller]
fn assert_code(out: &Out, code: i32) {
    let cut = |s: &str| s.chars().take(3000).collect::<String>();
    assert_eq!(
        out.code,
        code,
        "stdout: {}\nstderr: {}",
        cut(&out.stdout),
        cut(&out.stderr)
    );
}

#[track_caller]
fn assert_clean(what: &str, out: &Out) {
    for (stream, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if let Some(c) = raw_control(text) {
            let what: String = what.chars().take(200).collect();
            let text: String = text.chars().take(3000).collect();
            panic!("{what}: raw {c:?} on {stream}: {text:?}");
        }
    }
}

/// Ids a model (or a server) might choose to attack the terminal or the command line.
fn hostile_ids() -> Vec<String> {
    vec![
        "esc\u{1b}[2Jcleared".into(),
        "osc\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]0;PWNED\u{7}".into(),
        "c1\u{9b}31mred".into(),
        "rlo\u{202e}gnp.exe".into(),
        "nul\u{0}byte".into(),
        "cr\roverwritten".into(),
        "zw\u{200b}\u{feff}\u{2060}\u{e0041}tag".into(),
        "-rf".into(),
        "L".repeat(100 * 1024),
    ]
}

/// One step asking one free-text question per id, then a closing text.
fn questions(env: &Env, ids: &[String]) -> String {
    let calls: Vec<Value> = ids
        .iter()
        .enumerate()
        .map(
            |(i, id)| json!({"id": id, "name": "ask_user", "args": {"question": format!("Q{i}?")}}),
        )
        .collect();
    env.agent(json!([{ "toolCalls": calls }, {"text": "done"}]))
}

/// The commands `pending` prints, one per item.
fn printed_commands(out: &Out) -> Vec<String> {
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("    "))
        .map(str::to_string)
        .collect()
}

/// Runs a printed command as a person pasting it into bash would (placeholders filled).
fn paste(env: &Env, command: &str, answer: &str) -> Out {
    let rest = command
        .strip_prefix("mastra-ask ")
        .unwrap_or_else(|| panic!("not a command: {command}"));
    let line = format!("'{BIN}' {}", rest.replace("<answer>", answer));
    env.run_with(env.command_of(Path::new("bash"), &["-c", &line]))
}

#[test]
fn model_chosen_ids_are_replaced_and_no_output_carries_them_raw() {
    let env = Env::new();
    let ids = hostile_ids();
    let agent = questions(&env, &ids);
    let (out, run) = env.start(&agent, &["--on-suspend", "exit 3"]);
    assert_code(&out, 75);
    assert_clean("run", &out);
    assert_eq!(
        out.stderr.matches("--on-suspend command for").count(),
        ids.len()
    );

    // Every stored id is typable: 1-64 printable ASCII characters, none of the model's.
    let items = env.run(&["-o", "json", "pending"]).json_lines();
    assert_eq!(items.len(), ids.len());
    for item in &items {
        let id = item["toolCallId"].as_str().unwrap();
        assert!(
            (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_graphic()),
            "{id:?}"
        );
        assert!(!ids.iter().any(|h| h == id) || id == "-rf", "{id:?} kept");
    }
    // The history the model gets back names the same ids as the items.
    let messages = env.messages(&run);
    let in_history: Vec<&str> = messages[1]["toolCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let listed: Vec<&str> = items
        .iter()
        .map(|i| i["toolCallId"].as_str().unwrap())
        .collect();
    assert_eq!(in_history, listed);

    for args in [&["pending"][..], &["pending", "-q"], &["answer", &run, "x"]] {
        assert_clean(&args.join(" "), &env.run(args));
    }
    // Each item is answered by pasting the command `pending` printed for it.
    let commands = printed_commands(&env.run(&["pending"]));
    assert_eq!(commands.len(), ids.len());
    for (i, command) in commands.iter().enumerate() {
        let out = paste(&env, command, "ok");
        assert_clean(command, &out);
        assert_code(&out, if i + 1 == commands.len() { 0 } else { 75 });
    }
    assert_eq!(env.status(&run), "completed");
}

/// Replaces a stored tool-call id, as a Mastra server's verbatim ids would be stored.
fn store_id(env: &Env, run: &str, from: &str, to: &str) {
    for table in ["calls", "events", "messages"] {
        env.exec(
            &format!(
                "UPDATE {table} SET call_id = ?3 WHERE call_id = ?2 AND {}",
                env.of_run()
            ),
            &[run, from, to],
        );
    }
}

#[test]
fn verbatim_hostile_ids_print_escaped_and_paste_back_exactly() {
    let env = Env::sqlite();
    env.write("work/plan.md", "# Plan\n\nShip it.\n");
    // NUL cannot travel in argv, so a verbatim NUL id is only shown, never typed.
    let ids: Vec<String> = hostile_ids()
        .into_iter()
        .filter(|id| !id.contains('\0'))
        .collect();
    let placeholders: Vec<String> = (0..ids.len()).map(|i| format!("q{i}")).collect();
    let mut calls: Vec<Value> = placeholders
        .iter()
        .map(|id| json!({"id": id, "name": "ask_user", "args": {"question": "Q?"}}))
        .collect();
    calls.push(json!({"id": "p", "name": "submit_plan", "args": {"path": "plan.md"}}));
    let agent = env.agent(json!([{ "toolCalls": calls }, {"text": "done"}]));
    let (out, run) = env.start(&agent, &[]);
    assert_code(&out, 75);
    for (from, to) in placeholders.iter().zip(&ids) {
        store_id(&env, &run, from, to);
    }
    let plan_id = "\u{1b}]52;c;cGxhbg==\u{7}-plan";
    store_id(&env, &run, "p", plan_id);

    let pending = env.run(&["pending"]);
    assert_clean("pending", &pending);
    for (args, code) in [
        (&["answer", &run, "x"][..], 4),
        (&["review", &run, "--tool-call", &ids[0], "--approve"], 2),
        (&["answer", &run, "--tool-call", plan_id, "x"], 2),
    ] {
        let out = env.run(args);
        assert_clean(&args.join(" "), &out);
        assert_code(&out, code);
    }

    // `pending -q`: words that a shell reads back as exactly the run, the id and the kind.
    let quiet = env.run(&["pending", "-q"]);
    assert_clean("pending -q", &quiet);
    let mut read_back = Vec::new();
    for line in quiet.stdout.lines() {
        let words = env.run_with(env.command_of(
            Path::new("bash"),
            &["-c", &format!("printf '%s\\0' {line}")],
        ));
        let words: Vec<&str> = words.stdout.trim_end_matches('\0').split('\0').collect();
        assert_eq!(words.len(), 3, "{line}");
        assert_eq!(words[0], run);
        read_back.push((words[1].to_string(), words[2].to_string()));
    }
    let mut expected: Vec<(String, String)> = ids
        .iter()
        .map(|id| (id.clone(), "question".to_string()))
        .chain([(plan_id.to_string(), "plan".to_string())])
        .collect();
    expected.sort();
    read_back.sort();
    assert_eq!(read_back, expected);

    // Every printed command, pasted, resolves its item.
    // (A plan shows two commands; its approval is the one pasted here.)
    let commands: Vec<String> = printed_commands(&pending)
        .into_iter()
        .filter(|c| !c.contains("--reject"))
        .collect();
    assert_eq!(commands.len(), ids.len() + 1);
    for (i, command) in commands.iter().enumerate() {
        let out = paste(&env, command, "ok");
        assert_clean(command, &out);
        assert_code(&out, if i + 1 == commands.len() { 0 } else { 75 });
    }
    assert_eq!(env.status(&run), "completed");
    assert_eq!(env.run(&["pending", "-q"]).stdout, "");
}

#[test]
fn a_duration_past_its_maximum_is_refused_and_pending_keeps_working() {
    let env = Env::new();
    env.run(&["ask", "first?"]).assert_code(75);
    let before = env.dump();
    let huge = "9223372036854775807ms";
    for args in [
        &["ask", "q", "--expires-in", huge][..],
        &["ask", "q", "--expires-in", "366d"],
        &["ask", "q", "--expires-in", "0s"],
        &["ask", "q", "--wait", "--timeout", "99999999999d"],
        &["plan", "plan.md", "--expires-in", huge],
        &["run", "--expires-in", huge, "hi"],
        &["prune", "--older-than", "18446744073709551616s"],
        &["wait", "0000abcd", "--timeout", huge],
    ] {
        let out = env.cmd(args).code(2);
        assert!(
            out.stderr.contains("is longer than the maximum, 365d")
                || out.stderr.contains("must be more than 0"),
            "{args:?}: {}",
            out.stderr
        );
        assert_same_store(&env.dump(), &before);
    }
    let json = env
        .cmd(&["-o", "json", "ask", "q", "--expires-in", huge])
        .code(2);
    let line: Value = serde_json::from_str(json.stderr.trim()).unwrap();
    assert_eq!(line["error"]["code"], "USAGE");
    assert_same_store(&env.dump(), &before);

    // Environment durations and a script's delay: refused before anything is stored.
    let agent = env.agent(json!([{"delayMs": 99_999_999_999_999u64, "text": "x"}]));
    let out = env.cmd(&["run", "--agent", &agent, "go"]).code(2);
    assert_shown!(env, out.stderr, @"error: script [DIR]/work/script.json: step 1 has a delayMs longer than the maximum, 3600000 ms");
    for var in [
        "MASTRA_ASK_RETRY_DELAY",
        "MASTRA_ASK_READ_TIMEOUT",
        "MASTRA_ASK_CONNECT_TIMEOUT",
    ] {
        let mut c = env.command(&[
            "run",
            "--model",
            "openai-compatible/m@http://127.0.0.1:1/v1",
            "hi",
        ]);
        c.env(var, "99999999999d");
        let out = env.run_with(c);
        out.assert_code(2);
        assert_one_line_error(&out, &format!("{var}: duration \"99999999999d\" is longer"));
    }
    assert_same_store(&env.dump(), &before);
    let pending = env.cmd(&["pending"]).code(0);
    assert_eq!(pending.stdout.matches("first?").count(), 1);
}

/// Swaps two names in `dir` (renameat2 RENAME_EXCHANGE) in a loop until `stop`.
fn swapper(dir: &Path, a: &str, b: &str, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let cstr = |p: &Path| std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    let (a, b) = (cstr(&dir.join(a)), cstr(&dir.join(b)));
    std::thread::spawn(move || {
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            // SAFETY: renameat2 with two valid C strings.
            let r = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    a.as_ptr(),
                    libc::AT_FDCWD,
                    b.as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            };
            assert_eq!(r, 0, "renameat2: {}", std::io::Error::last_os_error());
            swaps += 1;
        }
        swaps
    })
}

/// Runs `args` and waits at most a generous deadline; past it the process is killed and
/// the test fails: a hang.
#[track_caller]
fn run_within(env: &Env, args: &[&str], limit: Duration) -> Out {
    finish_within(env.spawn(args), &format!("{args:?} hangs"), limit)
}

/// Submits `path` `per_run` times in one step, over `runs` runs, while `swap` races; returns
/// the titles of every plan that was suspended and the failures the model was given.
fn race(env: &Env, path: &str, runs: usize, per_run: usize) -> (Vec<String>, Vec<String>) {
    let calls: Vec<Value> = (0..per_run)
        .map(|_| json!({"name": "submit_plan", "args": {"path": path}}))
        .collect();
    let agent = env.agent(json!([{ "toolCalls": calls }, {"text": "done"}]));
    for _ in 0..runs {
        let out = run_within(
            env,
            &["run", "--agent", &agent, "--cwd", "w", "go"],
            Duration::from_secs(60),
        );
        assert!([0, 75].contains(&out.code), "{out:?}");
    }
    let mut titles = Vec::new();
    for item in env.run(&["-o", "json", "pending"]).json_lines() {
        titles.push(
            item["suspendPayload"]["title"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    // A failed submission is a tool message of a finished run, or the stored result of a
    // call in a suspended step (its message is written when the step resumes).
    let mut results: Vec<Value> = Vec::new();
    for run in env.rows("SELECT id FROM runs", &[]) {
        let run = run[0].clone().unwrap();
        results.extend(env.tool_results(&run).into_iter().map(|(_, r)| r));
        let sql = format!(
            "SELECT result FROM calls WHERE state = 'done' AND {}",
            env.of_run()
        );
        for row in env.rows(&sql, &[&run]) {
            results.push(serde_json::from_str(row[0].as_deref().unwrap()).unwrap());
        }
    }
    let failures = results
        .iter()
        .filter(|r| r["isError"] == true)
        .map(|r| r["content"].as_str().unwrap().to_string())
        .collect();
    (titles, failures)
}

#[test]
fn a_symlink_swapped_in_never_lets_a_plan_escape() {
    let env = Env::new();
    std::fs::create_dir_all(env.path("work/w/d")).unwrap();
    env.write("work/w/d/plan.md", "# Inside\n\nok\n");
    env.write("work/out/plan.md", "# ESCAPED\n\nsecret\n");
    symlink("../out", env.path("work/w/dlink")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(&env.path("work/w"), "d", "dlink", stop.clone());
    let (titles, failures) = race(&env, "d/plan.md", 20, 20);
    stop.store(true, Ordering::Relaxed);
    assert!(swaps.join().unwrap() > 0);
    assert_eq!(titles.len() + failures.len(), 400);
    assert!(titles.iter().all(|t| t == "Inside"), "escaped: {titles:?}");
    for f in &failures {
        assert!(
            f.ends_with("is outside the working directory")
                || f.ends_with("does not exist")
                || f.ends_with("kept changing while it was opened"),
            "{f}"
        );
    }
}

#[test]
fn a_fifo_swapped_in_never_hangs_the_driver() {
    let env = Env::new();
    std::fs::create_dir_all(env.path("work/w")).unwrap();
    env.write("work/w/plan.md", "# Regular\n\nok\n");
    let fifo =
        std::ffi::CString::new(env.path("work/w/fifo.md").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(&env.path("work/w"), "plan.md", "fifo.md", stop.clone());
    let (titles, failures) = race(&env, "plan.md", 15, 20);
    stop.store(true, Ordering::Relaxed);
    assert!(swaps.join().unwrap() > 0);
    assert_eq!(titles.len() + failures.len(), 300);
    assert!(titles.iter().all(|t| t == "Regular"), "{titles:?}");
    assert!(
        failures
            .iter()
            .all(|f| f.ends_with("is not a regular file")),
        "{failures:?}"
    );
}

#[test]
fn pseudo_files_and_hard_links_are_refused_as_plans() {
    let env = Env::new();
    std::fs::create_dir_all(env.path("work/w")).unwrap();
    env.write("work/outside/secret.md", "# Secret\n\nkey\n");
    std::fs::hard_link(env.path("work/outside/secret.md"), env.path("work/w/h.md")).unwrap();
    let agent = env.agent(json!([
        {"toolCalls": [
            {"id": "env", "name": "submit_plan", "args": {"path": "proc/self/environ"}},
            {"id": "abs", "name": "submit_plan", "args": {"path": "/proc/self/status"}}
        ]},
        say("done")
    ]));
    let mut c = env.command(&["run", "--agent", &agent, "--cwd", "/", "go"]);
    c.env("OPENAI_API_KEY", "sk-must-not-be-stored");
    let out = env.run_with(c);
    out.assert_code(0);
    let run = env.latest_run().unwrap();
    let results = env.tool_results(&run);
    // Not Markdown, so never opened (procfs itself is refused on the open file: the unit
    // tests of `tools::beneath`).
    assert_eq!(
        results[0].1["content"],
        "Failed to submit plan: proc/self/environ cannot be a plan: it is not a Markdown file (.md or .markdown)"
    );
    assert_eq!(
        results[1].1["content"],
        "Failed to submit plan: /proc/self/status cannot be a plan: it is not a Markdown file (.md or .markdown)"
    );
    assert!(!env.show(&run).to_string().contains("sk-must-not-be-stored"));
    let before = env.dump();
    let out = env.cmd(&["plan", "/proc/self/environ"]).code(2);
    assert_shown!(env, out.stderr, @"error: plan file /proc/self/environ: environ cannot be a plan: it is not a Markdown file (.md or .markdown)");
    assert_same_store(&env.dump(), &before);

    let agent = env.agent(json!([plan("h", "h.md"), say("done")]));
    env.cmd(&["run", "--agent", &agent, "--cwd", "w", "go"])
        .code(0);
    let run = env.latest_run().unwrap();
    assert_eq!(
        env.tool_results(&run)[0].1["content"],
        "Failed to submit plan: h.md has 2 hard links; submit a file with one (a copy, not a link)"
    );
    let before = env.dump();
    let out = env.cmd(&["plan", "w/h.md"]).code(2);
    assert_shown!(env, out.stderr, @"error: plan file w/h.md: h.md has 2 hard links; submit a file with one (a copy, not a link)");
    assert_same_store(&env.dump(), &before);
}

/// The most memory a command may use on the inputs below.
const MAX_RSS_KIB: u64 = 100 * 1024;

/// Runs a command with stdin from `stdin`, within a generous deadline (a hang fails with a
/// message), and returns its output and its peak resident memory in KiB: `VmHWM` of
/// `/proc/<pid>/status`, polled until the process ends (its `rusage` would count the
/// memory of the forked test process too). A process past [`MAX_RSS_KIB`] is killed at
/// once (and the caller's assertion fails), so a regression cannot eat the machine.
fn run_measured(env: &Env, args: &[&str], stdin: Stdio) -> (Out, u64) {
    let mut child = env
        .command(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut peak = 0;
    // Polling stops when the process exits (a zombie has no VmHWM line); output is small
    // (an error line), so the pipes cannot fill.
    loop {
        let hwm = std::fs::read_to_string(&status).ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        });
        match hwm {
            Some(kib) => peak = peak.max(kib),
            None => break,
        }
        if peak >= MAX_RSS_KIB {
            let _ = child.kill();
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{args:?} still ran after 60s");
        }
        sleep(Duration::from_millis(2));
    }
    (crate::common::finish(child), peak)
}

fn dev_zero() -> Stdio {
    Stdio::from(File::open("/dev/zero").unwrap())
}

#[test]
fn endless_and_oversized_inputs_end_in_a_clear_error_with_bounded_memory() {
    let env = Env::new();
    let agent = env.agent(json!([ask("q", "Q?"), plan("p", "plan.md"), say("done")]));
    env.write("work/plan.md", "# Plan\n\nok\n");
    let run = env.suspended(&agent);
    // Sparse files: gigabytes to read, no disk used.
    for name in ["big-agent.json", "big-script.json"] {
        File::create(env.path(&format!("work/{name}")))
            .unwrap()
            .set_len(1 << 30)
            .unwrap();
    }
    let fifo =
        std::ffi::CString::new(env.path("work/fifo.json").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let before = env.dump();
    let cases: Vec<(Vec<&str>, bool, &str)> = vec![
        (
            vec!["run", "--agent", "/dev/zero", "x"],
            false,
            "agent file /dev/zero is not a regular file",
        ),
        (
            vec!["run", "--agent", "fifo.json", "x"],
            false,
            "agent file fifo.json is not a regular file",
        ),
        (
            vec!["run", "--agent", "big-agent.json", "x"],
            false,
            "agent file big-agent.json is larger than 1 MiB",
        ),
        (
            vec!["run", "--model", "script:/dev/zero", "x"],
            false,
            "script /dev/zero is not a regular file",
        ),
        (
            vec!["run", "--model", "script:big-script.json", "x"],
            false,
            "is larger than 16 MiB",
        ),
        (
            vec!["run", "-"],
            true,
            "the prompt on stdin is larger than 1 MiB",
        ),
        (
            vec!["answer", &run, "-"],
            true,
            "the answer on stdin is larger than 1 MiB",
        ),
        (
            vec!["reply", &run, "-"],
            true,
            "the message on stdin is larger than 1 MiB",
        ),
    ];
    for (args, stdin, message) in cases {
        let (out, rss_kib) =
            run_measured(&env, &args, if stdin { dev_zero() } else { Stdio::null() });
        assert!(rss_kib < MAX_RSS_KIB, "{args:?} peaked at {rss_kib} KiB");
        out.assert_code(2);
        assert_one_line_error(&out, message);
        assert_same_store(&env.dump(), &before);
    }
    env.run(&["answer", &run, "yes"]).assert_code(75);
    let before = env.dump();
    // A device is refused at once (SPEC §9: files named by flags are opened non-blocking,
    // regular files only); a regular file past the cap is read up to it, no further.
    let big = env.write("work/big-feedback.txt", &"f".repeat(1024 * 1024 + 1));
    for (file, message) in [
        (
            "/dev/zero",
            "feedback file /dev/zero is not a regular file".to_string(),
        ),
        (
            big.to_str().unwrap(),
            format!("feedback file {} is larger than 1 MiB", big.display()),
        ),
    ] {
        let (out, rss_kib) = run_measured(
            &env,
            &["review", &run, "--reject", "--feedback-file", file],
            Stdio::null(),
        );
        assert!(rss_kib < MAX_RSS_KIB, "review peaked at {rss_kib} KiB");
        out.assert_code(2);
        assert_one_line_error(&out, &message);
        assert_same_store(&env.dump(), &before);
    }
}

#[track_caller]
fn wait_gone(pid: i32) {
    poll(
        &format!("process {pid} outlived the model"),
        PATIENCE,
        || !alive(pid),
    );
}

/// A `command:` model that starts a grandchild (`sleep 30`), writes its pid, and hangs.
fn hanging_model(env: &Env) -> (String, std::path::PathBuf) {
    let pidfile = env.path("grandchild.pid");
    env.write(
        "work/model.sh",
        &format!(
            "sleep 30 &\necho $! > {}.tmp\nmv {0}.tmp {0}\nsleep 30\n",
            pidfile.display()
        ),
    );
    ("command:sh model.sh".to_string(), pidfile)
}

#[track_caller]
fn read_pid(pidfile: &Path) -> i32 {
    let pid = poll_for("the model never started", PATIENCE, || {
        std::fs::read_to_string(pidfile).ok()
    });
    pid.trim().parse().unwrap()
}

#[test]
fn a_command_models_whole_process_group_ends_at_its_timeout() {
    let env = Env::new();
    let (model, pidfile) = hanging_model(&env);
    let mut c = env.command(&["run", "--model", &model, "go"]);
    c.env("MASTRA_ASK_READ_TIMEOUT", "1s");
    let out = env.run_with(c);
    out.assert_code(1);
    assert_shown!(env, out.stderr, @"
        error: run [RUN] failed: model command sh model.sh did not answer within 1s (raise MASTRA_ASK_READ_TIMEOUT)
        hint: retry it with: mastra-ask resume [RUN]
        ");
    wait_gone(read_pid(&pidfile));
}

#[test]
fn an_interrupt_ends_a_command_models_whole_process_group() {
    let env = Env::new();
    let (model, pidfile) = hanging_model(&env);
    let mut child = env.spawn(&["run", "--model", &model, "go"]);
    let grandchild = read_pid(&pidfile);
    assert!(alive(grandchild));
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    wait_gone(grandchild);
}

#[test]
fn invisible_characters_and_parser_errors_are_escaped() {
    let env = Env::new();
    let question = "zero\u{200b}width bom\u{feff} joiner\u{2060} tag\u{e0041}\u{e007f} ok";
    let (out, run) = env.start(
        &env.agent(json!([
            {"toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": question}}]}
        ])),
        &[],
    );
    out.assert_code(75);
    let escaped = "zero\\u{200b}width bom\\u{feff} joiner\\u{2060} tag\\u{e0041}\\u{e007f} ok";
    for out in [out, env.run(&["pending"]), env.run(&["show", &run])] {
        assert_clean("question", &out);
        assert!(
            out.stdout.contains(escaped) || out.stderr.contains(escaped),
            "{out:?}"
        );
    }
    // JSON keeps the text byte for byte.
    assert_eq!(
        env.run(&["-o", "json", "pending"]).json_lines()[0]["suspendPayload"]["question"],
        question
    );

    let hostile = "x\u{9b}31m\rCR\u{202e}\u{200b}\u{1b}[2J";
    let out = env.cmd(&["runs", "--status", hostile]).code(2);
    assert_clean("parser error", &out);
    // (The parser itself drops the escape sequence; the rest is escaped.)
    assert!(
        out.stderr
            .starts_with("error: invalid value 'x\\u{9b}31m\\rCR\\u{202e}\\u{200b}"),
        "{}",
        out.stderr
    );
    let out = env
        .cmd(&["-o", "json", "runs", "--status", hostile])
        .code(2);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    let line: Value = serde_json::from_str(&out.stderr).unwrap();
    assert_eq!(line["error"]["code"], "USAGE");
    assert!(line["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("invalid value 'x\\u{9b}31m"));
}

#[test]
fn feedback_must_go_with_a_rejection_and_must_not_be_empty() {
    let env = Env::new();
    env.write("work/plan.md", "# Plan\n\nok\n");
    env.write("work/empty.txt", " \n");
    let run = env.run(&["plan", "plan.md"]).stdout.trim().to_string();
    let before = env.dump();
    for (args, needle) in [
        (
            &["review", &run, "--approve", "--feedback", "hi"][..],
            "cannot be used with",
        ),
        (
            &["review", &run, "--approve", "--feedback-file", "empty.txt"],
            "cannot be used with",
        ),
        (
            &[
                "review",
                &run,
                "--json",
                "{\"action\":\"approved\"}",
                "--feedback",
                "hi",
            ],
            "cannot be used with",
        ),
        (
            &[
                "review",
                &run,
                "--json",
                "{\"action\":\"approved\",\"feedback\":\"x\"}",
            ],
            "--json: feedback is for a rejection; an approval carries none",
        ),
        (
            &["review", &run, "--reject", "--feedback", ""],
            "the feedback is empty",
        ),
        (
            &["review", &run, "--reject", "--feedback", "  "],
            "the feedback is empty",
        ),
        (
            &["review", &run, "--reject", "--feedback-file", "empty.txt"],
            "the feedback is empty",
        ),
    ] {
        let out = env.cmd(args).code(2);
        assert!(
            out.stderr.starts_with("error: ") && out.stderr.contains(needle),
            "{args:?}: {}",
            out.stderr
        );
        assert_same_store(&env.dump(), &before);
    }
    env.run(&["review", &run, "--reject", "--feedback", "Smaller."])
        .assert_code(0);
}
