//! `completions` and `man`: generated from the clap definitions (src/cli.rs). The committed
//! files in completions/ and man/ come from here (a test keeps them current).

use std::path::Path;

use anyhow::{Context, Result};
use clap::CommandFactory;

use super::Ctx;
use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::exit::Exit;

/// The command line definition with the exit codes in its long help.
pub fn command() -> clap::Command {
    let mut codes = String::from("Exit codes:\n");
    for (_, code, meaning) in crate::exit::TABLE {
        codes.push_str(&format!("  {code:>3}  {}\n", meaning.replace('`', "")));
    }
    Cli::command().after_long_help(codes)
}

pub fn completions(ctx: &Ctx, args: CompletionsArgs) -> Result<Exit> {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut command(), "mastra-ask", &mut buf);
    ctx.out.write(&String::from_utf8_lossy(&buf));
    Ok(Exit::Success)
}

pub fn man(ctx: &Ctx, args: ManArgs) -> Result<Exit> {
    let cmd = command();
    match args.out_dir {
        None => ctx.out.write(&render(&cmd)?),
        Some(dir) => write_all(&cmd, &dir)?,
    }
    Ok(Exit::Success)
}

fn render(cmd: &clap::Command) -> Result<String> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// `mastra-ask.1` and one `mastra-ask-<subcommand>.1` per subcommand.
fn write_all(cmd: &clap::Command, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut pages = vec![("mastra-ask.1".to_string(), render(cmd)?)];
    for sub in cmd.get_subcommands() {
        let name = format!("mastra-ask-{}", sub.get_name());
        let page = sub.clone().name(name.clone()).display_name(name.clone());
        pages.push((format!("{name}.1"), render(&page)?));
    }
    for (file, text) in pages {
        let path = dir.join(file);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
