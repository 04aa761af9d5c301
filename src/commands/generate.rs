//! `completions` and `man`: print the shell completion script or the main man page, or write
//! every man page to a directory. What they print is generated in `cli` (`cli::completions`,
//! `cli::man`), from the same definition as `--help`, so the three never disagree.

use std::path::Path;

use anyhow::{Context, Result};

use crate::cli::{completions::completion_script, man::man_pages, CompletionsArgs, ManArgs};
use crate::context::Ctx;
use crate::exit::Exit;

pub fn completions(ctx: &Ctx, args: CompletionsArgs) -> Result<Exit> {
    ctx.out.write(&completion_script(args.shell));
    Ok(Exit::Success)
}

pub fn man(ctx: &Ctx, args: ManArgs) -> Result<Exit> {
    let pages = man_pages()?;
    match args.out_dir {
        None => {
            if let Some((_, main)) = pages.first() {
                ctx.out.write(main);
            }
        }
        Some(dir) => {
            write_all(&pages, &dir)?;
            ctx.out.info(&format!(
                "wrote {} man pages to {}",
                pages.len(),
                dir.display()
            ));
        }
    }
    Ok(Exit::Success)
}

fn write_all(pages: &[(String, String)], dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (file, text) in pages {
        let path = dir.join(file);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
