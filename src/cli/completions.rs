//! The shell completion scripts, generated from the command line as the binary builds it
//! (`cli::command()`), with the fixes clap_complete still needs. `completions` prints them;
//! the committed files in completions/ come from here (a test keeps them current).

use super::{command, BIN};

/// The completion script of a shell.
pub fn completion_script(shell: clap_complete::Shell) -> String {
    let mut cmd = command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN, &mut buf);
    let script = String::from_utf8_lossy(&buf).into_owned();
    match shell {
        clap_complete::Shell::Bash => fix_bash_dispatch(&script),
        clap_complete::Shell::Fish => script + &fish_positional_values(&cmd),
        _ => script,
    }
}

/// Works around clap_complete's bug with hyphenated binary names in bash
/// (clap-rs/clap#6421, still open in clap_complete 4.6): the script's dispatch loop spells
/// the state of `mastra-ask runs` as `mastra__ask__subcmd__runs`, its case arms as
/// `mastra__subcmd__ask__subcmd__runs`, so nothing completes below the first word. The arms
/// are respelled the way the loop builds the state; once clap_complete is fixed, the wrong
/// spelling no longer occurs and this changes nothing (the completion tests hold either way).
fn fix_bash_dispatch(script: &str) -> String {
    script.replace("mastra__subcmd__ask", "mastra__ask")
}

/// clap_complete's fish script offers nothing for positional arguments (clap-rs/clap#6295,
/// still open), so `completions <TAB>` would list files: this adds the values of each
/// subcommand's positional arguments that have a fixed set of them.
fn fish_positional_values(cmd: &clap::Command) -> String {
    let mut lines = String::new();
    for sub in cmd.get_subcommands() {
        for arg in sub.get_positionals() {
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            if !values.is_empty() {
                lines.push_str(&format!(
                    "complete -c {BIN} -n \"__fish_mastra_ask_using_subcommand {}\" -f -a \"{}\"\n",
                    sub.get_name(),
                    values.join(" ")
                ));
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bash_dispatch_fix_respells_only_the_broken_arms() {
        let broken = "    mastra__ask,runs)\n        cmd=\"mastra__ask__subcmd__runs\"\n        mastra__subcmd__ask__subcmd__runs)\n";
        assert_eq!(
            fix_bash_dispatch(broken),
            "    mastra__ask,runs)\n        cmd=\"mastra__ask__subcmd__runs\"\n        mastra__ask__subcmd__runs)\n"
        );
    }
}
