//! The CI examples in the docs hold up in a real job: every GitHub job shown has a
//! `timeout-minutes` above the longest `--timeout` of its steps (else GitHub's job limit,
//! not the deadline, ends it and leaves the run without its waiter), and the pages name
//! package registries by what they are, not by host name.

use std::path::PathBuf;

fn pages() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut names = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "md") {
            names.push(path);
        }
    }
    names
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

/// The ```yaml blocks of `text`.
fn yaml_blocks(text: &str) -> Vec<String> {
    text.split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("```").map(|(block, _)| block.to_string()))
        .collect()
}

/// Minutes of a `DUR` (`4h`, `30m`, `90s`, `2d`), rounded up.
fn minutes(dur: &str) -> Option<u64> {
    let split = dur.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = dur.split_at(split);
    let n: u64 = n.parse().ok()?;
    Some(match unit {
        "s" => n.div_ceil(60),
        "m" => n,
        "h" => n * 60,
        "d" => n * 1440,
        _ => return None,
    })
}

#[test]
fn every_github_job_in_the_docs_outlives_its_deadlines() {
    let mut jobs = 0;
    for (page, text) in pages() {
        for block in yaml_blocks(&text).iter().filter(|b| b.contains("runs-on:")) {
            jobs += 1;
            let limit: Option<u64> = block
                .lines()
                .filter_map(|l| l.trim().strip_prefix("timeout-minutes:"))
                .filter_map(|v| v.trim().parse().ok())
                .min();
            let words: Vec<&str> = block.split_whitespace().collect();
            let longest = words
                .windows(2)
                .filter(|w| w[0] == "--timeout")
                .filter_map(|w| minutes(w[1]))
                .max()
                .unwrap_or(0);
            let Some(limit) = limit else {
                panic!("{page}: a job without timeout-minutes:\n{block}");
            };
            assert!(
                limit > longest,
                "{page}: timeout-minutes {limit} is not above the --timeout of {longest} minutes:\n{block}"
            );
        }
    }
    assert!(jobs >= 3, "the docs show {jobs} GitHub jobs");
}

#[test]
fn the_docs_name_registries_by_what_they_are() {
    for (page, text) in pages() {
        for host in ["crates.io", "npmjs.", "pypi.org", "static.rust-lang"] {
            assert!(!text.contains(host), "{page} names {host}");
        }
    }
}

#[test]
fn durations_read_as_minutes() {
    assert_eq!(minutes("4h"), Some(240));
    assert_eq!(minutes("90s"), Some(2));
    assert_eq!(minutes("30m"), Some(30));
    assert_eq!(minutes("soon"), None);
}
