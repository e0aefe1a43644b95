//! The variables clients allow in a server's command, arguments, environment and headers:
//! `${VAR}` and `${VAR:-default}` (Claude Code, Cursor), `${env:VAR}`, `${workspaceFolder}`
//! and `${userHome}` (VS Code, Cursor). `${input:ID}` asks VS Code's person for a value, which
//! tooldeck cannot do.

use std::path::Path;

/// Why a value could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    #[error("environment variable {0} is not set")]
    Unset(String),
    #[error("${{input:{0}}} is a value VS Code asks for; set it in the config or give the server with --mcp")]
    Input(String),
    #[error("an unclosed ${{ in a value")]
    Unclosed,
}

/// Where `${workspaceFolder}` and `${userHome}` point, and how the environment is read.
pub struct Vars<'a> {
    pub project: Option<&'a Path>,
    pub home: Option<&'a Path>,
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

impl Vars<'_> {
    pub fn expand(&self, text: &str) -> Result<String, ExpandError> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let Some(end) = rest[start..].find('}') else { return Err(ExpandError::Unclosed) };
            out.push_str(&self.value(&rest[start + 2..start + end])?);
            rest = &rest[start + end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn value(&self, name: &str) -> Result<String, ExpandError> {
        let folder = |path: Option<&Path>| path.map(|p| p.display().to_string());
        let (name, default) = match name.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (name, None),
        };
        let found = match name {
            "workspaceFolder" | "workspaceRoot" => folder(self.project),
            "userHome" => folder(self.home),
            _ => match name.split_once(':') {
                Some(("env", variable)) => (self.env)(variable),
                Some(("input", id)) => return Err(ExpandError::Input(id.to_string())),
                _ => (self.env)(name),
            },
        };
        found.or(default.map(str::to_string)).ok_or_else(|| ExpandError::Unset(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_clients_variables() {
        let env = |name: &str| (name == "TOKEN").then(|| "t0k".to_string());
        let vars = Vars { project: Some(Path::new("/p")), home: Some(Path::new("/h")), env: &env };
        assert_eq!(vars.expand("Bearer ${TOKEN}").unwrap(), "Bearer t0k");
        assert_eq!(vars.expand("${env:TOKEN}@${workspaceFolder}/x ${userHome}").unwrap(), "t0k@/p/x /h");
        assert_eq!(vars.expand("${PORT:-8080}").unwrap(), "8080");
        assert_eq!(vars.expand("${MISSING}").unwrap_err(), ExpandError::Unset("MISSING".into()));
        assert!(vars.expand("${input:key}").unwrap_err().to_string().contains("VS Code asks for"));
        assert_eq!(vars.expand("${oops").unwrap_err(), ExpandError::Unclosed);
        assert_eq!(vars.expand("plain $HOME").unwrap(), "plain $HOME");
    }
}
