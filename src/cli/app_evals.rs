//! The app's eval options: `--evals FILE` (the eval file whose cases the eval key runs for the
//! selected tool) and `--eval-report FILE` (a report `tooldeck eval --report` wrote, open in the
//! eval pane from the start). Both are read before the first frame: a file with a problem is
//! said here, and the app does not start (exit 2), as `tooldeck eval` would not run it.

use std::path::{Path, PathBuf};

use clap::Args;
use tooldeck_evals::file::EvalFile;
use tooldeck_evals::report::EvalReport;

use super::failure::Failure;

#[derive(Debug, Args, Clone, Default)]
pub struct AppEvalArgs {
    /// An eval file (`tooldeck eval`'s): E on a tool, or F12 in its form, runs the cases that
    /// expect a call to it, with the file's model, on the app's server (the file's server when
    /// the app names none); the eval pane shows the progress and the results.
    #[arg(long = "evals", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// A report `tooldeck eval --report FILE` wrote: open in the eval pane, to read each case,
    /// iteration and trajectory.
    #[arg(long, value_name = "FILE")]
    pub eval_report: Option<PathBuf>,
}

/// What the app starts with, read.
#[derive(Debug, Default)]
pub struct AppEvals {
    pub file: Option<EvalFile>,
    /// The report, and its path as given.
    pub report: Option<(String, EvalReport)>,
}

impl AppEvalArgs {
    pub fn given(&self) -> bool {
        self.file.is_some() || self.eval_report.is_some()
    }

    /// Reads both files; a problem in either is a usage error naming it.
    pub fn load(&self) -> Result<AppEvals, Failure> {
        let file = self.file.as_deref().map(eval_file).transpose()?;
        let report = self.eval_report.as_deref().map(|path| report(path).map(|r| (path.display().to_string(), r)));
        let report = report.transpose()?;
        Ok(AppEvals { file, report })
    }
}

fn eval_file(path: &Path) -> Result<EvalFile, Failure> {
    let file = tooldeck_evals::file::load(path);
    if file.problems.is_empty() {
        return Ok(file);
    }
    let lines: Vec<String> = file.problems.iter().map(|p| crate::text::visible(&p.to_string()).into_owned()).collect();
    Err(Failure::usage(format!("{}\nthe eval file has problems (above); the app did not start", lines.join("\n"))))
}

fn report(path: &Path) -> Result<EvalReport, Failure> {
    let text =
        crate::files::read_text(path).map_err(|e| Failure::usage(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        Failure::usage(format!(
            "{} is not an eval report (`tooldeck eval --report FILE` writes one): {e}",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that is not a report, or an eval file with a problem, stops the app before it
    /// starts, naming the file.
    #[test]
    fn a_bad_file_is_said_before_the_app_starts() {
        let dir = tempfile::tempdir().unwrap();
        let not_a_report = dir.path().join("r.json");
        std::fs::write(&not_a_report, r#"{"cases": 3}"#).unwrap();
        let args = AppEvalArgs { eval_report: Some(not_a_report), ..AppEvalArgs::default() };
        let failure = args.load().unwrap_err();
        assert!(failure.message.contains("r.json is not an eval report"), "{}", failure.message);
        let evals = dir.path().join("evals.yaml");
        std::fs::write(&evals, "model: {url: http://127.0.0.1:1/v1, name: m}\ncases: []\nbogus: 1\n").unwrap();
        let args = AppEvalArgs { file: Some(evals), ..AppEvalArgs::default() };
        let failure = args.load().unwrap_err();
        assert!(failure.message.contains("bogus") && failure.message.contains("did not start"), "{}", failure.message);
    }
}
