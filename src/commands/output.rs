//! A command's one output file, or standard output: `--out FILE` goes
//! through the output rule (`results::dest`): it may not be one of the
//! command's inputs; a regular file is written under a temporary name
//! beside it and renamed only by [`Output::commit`], when everything was
//! written, so that a failure or an interrupt leaves no half file under the
//! final name; a FIFO or a device is written through.

use crate::results::dest::{Guard, Pending};
use anyhow::Context;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub struct Output {
    pending: Option<(Pending, PathBuf)>,
}

impl Output {
    /// Opens `out` (standard output when `None`), refusing it when it is
    /// one of `inputs` (each named for the message, e.g. "the dataset").
    pub fn open(
        out: Option<&Path>,
        inputs: &[(&str, &Path)],
    ) -> anyhow::Result<(Output, Box<dyn Write + Send>)> {
        let Some(path) = out else {
            return Ok((
                Output { pending: None },
                Box::new(BufWriter::new(std::io::stdout())),
            ));
        };
        let mut guard = Guard::new();
        for (what, f) in inputs {
            guard.reads_file(what, f);
        }
        let pending = guard
            .file("--out", path)?
            .create()
            .with_context(|| format!("cannot create {}", path.display()))?;
        let handle = pending
            .file()
            .try_clone()
            .with_context(|| format!("cannot create {}", path.display()))?;
        Ok((
            Output {
                pending: Some((pending, path.to_path_buf())),
            },
            Box::new(BufWriter::new(handle)),
        ))
    }

    /// Gives the finished file its final name (after its writer was
    /// flushed and dropped).
    pub fn commit(self) -> anyhow::Result<()> {
        if let Some((pending, path)) = self.pending {
            pending
                .commit()
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }
}
