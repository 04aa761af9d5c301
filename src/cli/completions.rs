//! The shell completion scripts `completions SHELL` prints (and completions/ holds, kept
//! current by a test): the few lines of clap_complete's dynamic completion that make the
//! shell ask this program what to offer on each TAB (`crate::completion` answers), so a
//! script never goes stale for commands, options or run ids.

use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Zsh};

use super::BIN;
use crate::completion::VAR;

/// The script that hooks `shell` to this program's completion.
pub fn completion_script(shell: clap_complete::Shell) -> String {
    let adapter: &dyn EnvCompleter = match shell {
        clap_complete::Shell::Bash => &Bash,
        clap_complete::Shell::Zsh => &Zsh,
        clap_complete::Shell::Fish => &Fish,
        clap_complete::Shell::PowerShell => &Powershell,
        clap_complete::Shell::Elvish => &Elvish,
        // `Shell` is non-exhaustive; every shell it has today is above.
        _ => &Bash,
    };
    let mut buf = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = adapter.write_registration(VAR, BIN, BIN, BIN, &mut buf);
    let mut text = String::from_utf8_lossy(&buf).into_owned();
    if shell == clap_complete::Shell::Zsh {
        // From $fpath, zsh runs this file as the function `_mastra-ask` on the first TAB:
        // it then only defines the completer, so it completes right away too.
        text.push_str(
            "\n# Loaded from $fpath as _mastra-ask (the first TAB): complete now as well.\n\
             if [[ ${funcstack[1]-} == _mastra-ask ]]; then\n  \
             _clap_dynamic_completer_mastra_ask \"$@\"\nfi\n",
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_script_calls_this_program_back() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
            clap_complete::Shell::PowerShell,
            clap_complete::Shell::Elvish,
        ] {
            let text = completion_script(shell);
            assert!(text.contains(VAR), "{shell}: {text}");
            assert!(text.contains("mastra-ask"), "{shell}: {text}");
        }
        assert!(completion_script(clap_complete::Shell::Zsh).starts_with("#compdef mastra-ask"));
    }
}
