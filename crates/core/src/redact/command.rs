//! A server's command line with its secrets masked: the values of secret-looking options
//! (`--api-key=S`, `--token S`, `API_KEY=S node server.js`, `--header "Authorization: Bearer S"`),
//! URLs' passwords and secret parameters, known secrets and credential shapes. Words are split
//! as a POSIX shell splits them (the `shlex` crate), so a quoted or tab-separated secret is
//! masked whole. A line that holds no secret is shown as written; one that did is written again
//! word by word, each quoted as the shell needs it.

use super::{Replace, names, url_with};

/// [`command_with`] with each secret masked.
pub fn command(line: &str) -> String {
    command_with(line, &mut super::masked)
}

/// `line` with each secret replaced by what `replace` gives for `(name, value)`. A word that
/// comes to hold a `${VAR}` is double-quoted, so the value it expands to stays one word.
pub fn command_with(line: &str, replace: Replace) -> String {
    let words = split(line);
    let shown = words_with(&words, replace);
    if shown == words {
        return line.to_string();
    }
    shown.iter().map(|word| quote(word)).collect::<Vec<_>>().join(" ")
}

/// A command's arguments, already split into words (a config file's `args`), each with its
/// secrets masked by the same rule as [`command`]: `--token S` is two words, the second masked.
pub fn args(words: &[String]) -> Vec<String> {
    words_with(words, &mut super::masked)
}

fn words_with(words: &[String], replace: Replace) -> Vec<String> {
    let mut hide_next: Option<String> = None;
    let mut shown = Vec::with_capacity(words.len());
    for word in words {
        let redacted = match hide_next.take() {
            Some(option) if !super::is_mask(word) && !super::is_placeholder(word) => replace(&option, word),
            Some(_) => word.clone(),
            None => {
                if word.starts_with('-') && !word.contains('=') && names::is_secret_name(word) {
                    hide_next = Some(word.clone());
                }
                redact_word(word, replace)
            }
        };
        shown.push(redacted);
    }
    shown
}

/// The words of `line` as a shell reads them; an unclosed quote runs to the end of the line.
fn split(line: &str) -> Vec<String> {
    ["", "'", "\""]
        .iter()
        .find_map(|close| shlex::split(&format!("{line}{close}")))
        .unwrap_or_else(|| line.split_whitespace().map(str::to_string).collect())
}

/// One word with its secrets replaced: a URL, an option or variable's value (`NAME=VALUE`), a
/// header (`X-Api-Key: S`), known secrets and credential shapes anywhere in it.
fn redact_word(word: &str, replace: Replace) -> String {
    // A URL first (its query may hold `api_key=`), unless it is an option's value.
    let url_first = word.find("://").is_some_and(|at| word.find('=').is_none_or(|eq| at < eq));
    if url_first {
        return url_with(word, replace);
    }
    if let Some((name, value)) = word.split_once('=') {
        if names::is_secret_name(name) && !value.is_empty() {
            let value = if super::is_mask(value) || super::is_placeholder(value) {
                value.to_string()
            } else {
                replace(name, value)
            };
            return format!("{name}={value}");
        }
        if value.contains("://") {
            return format!("{name}={}", url_with(value, replace));
        }
    }
    if let Some((name, value)) = word.split_once(':') {
        // A header (`X-Api-Key: S`), not a Rust path (`keys::test`) or a port (`key:8080`).
        let header = !name.contains(char::is_whitespace)
            && names::is_secret_name(name)
            && !value.starts_with(':')
            && !value.trim().is_empty();
        if header {
            return format!("{name}: {}", super::header_value_with(name, value.trim(), replace));
        }
    }
    super::text_with(word, replace).into_owned()
}

/// A word as the shell reads it back: a `${VAR}` in double quotes (so it expands), a plain word
/// or a mask as it is, anything else quoted by `shlex`.
fn quote(word: &str) -> String {
    if word.contains("${") {
        let escaped = word.replace('\\', "\\\\").replace('"', "\\\"").replace('`', "\\`");
        return format!("\"{escaped}\"");
    }
    let plain = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+%~•".contains(c));
    if plain {
        return word.to_string();
    }
    shlex::try_quote(word).map_or_else(|_| word.to_string(), |quoted| quoted.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_lose_secret_options() {
        assert_eq!(command("server --api-key=S --port 1"), "server --api-key=•••• --port 1");
        assert_eq!(command("server --token S --port 1"), "server --token •••• --port 1");
        assert_eq!(command("API_KEY=S node s.js"), "API_KEY=•••• node s.js");
        assert_eq!(command("node s.js http://u:p@h/"), "node s.js http://u:••••@h/");
        assert_eq!(command("http://u:p@h/?api_key=k"), "'http://u:••••@h/?api_key=••••'");
        assert_eq!(command("node build/index.js /tmp"), "node build/index.js /tmp");
        assert_eq!(command("server --max-tokens 5 --author me"), "server --max-tokens 5 --author me");
        assert_eq!(command("server --key-name k --code 7"), "server --key-name k --code 7");
    }

    #[test]
    fn commands_are_split_as_a_shell_would() {
        assert_eq!(command("srv --password 'A B' --port 1"), "srv --password •••• --port 1");
        assert_eq!(command("srv --secret=\"A B\" -v"), "srv --secret=•••• -v");
        assert_eq!(command("srv --token\tS3CR3T -v"), "srv --token •••• -v");
        assert_eq!(command("srv --api-key=S\t--x"), "srv --api-key=•••• --x");
        assert_eq!(command("srv --token A\\ B"), "srv --token ••••");
        assert_eq!(command("srv --password 'unclosed and more"), "srv --password ••••");
        assert_eq!(command("srv --header 'X-Api-Key: S' -q"), "srv --header 'X-Api-Key: ••••' -q");
        assert_eq!(command("srv --url='http://u:p@h/'"), "srv --url=http://u:••••@h/");
        assert_eq!(command("srv 'a b'  \"c\""), "srv 'a b'  \"c\"", "no secret: shown as written");
        assert_eq!(command("srv --token ••••"), "srv --token ••••", "a mask is not masked again");
        for line in ["srv --password 'A B'", "srv --secret=\"A B\"", "srv --token\tAB", "PASSWORD='A B' srv"] {
            let shown = command(line);
            assert!(!shown.contains('A') || !shown.contains('B'), "{line:?} → {shown:?}");
        }
    }

    #[test]
    fn a_path_with_a_secret_word_is_not_a_header() {
        assert_eq!(command("test --exact keys_pty::hello"), "test --exact keys_pty::hello");
        assert_eq!(command("curl -H 'X-Api-Key: abc'"), "curl -H 'X-Api-Key: ••••'");
    }

    #[test]
    fn credential_shapes_in_any_word_are_masked() {
        assert_eq!(command("srv --openai sk-a1B2c3D4e5F6g7H8i9J0kL"), "srv --openai ••••");
        assert_eq!(command("srv --task task-12345678901234567890x"), "srv --task task-12345678901234567890x");
    }

    #[test]
    fn arguments_already_split_are_masked_word_by_word() {
        let args: Vec<String> =
            ["--token", "S3", "--api-key=S4", "a b", "--max-tokens", "9"].map(String::from).to_vec();
        assert_eq!(super::args(&args), ["--token", "••••", "--api-key=••••", "a b", "--max-tokens", "9"]);
    }

    #[test]
    fn placeholders_stay_one_word() {
        let mut named = |name: &str, _: &str| format!("${{{}}}", name.trim_start_matches('-').to_ascii_uppercase());
        let written = command_with("node s.js --password 'A B' --port 1", &mut named);
        assert_eq!(written, r#"node s.js --password "${PASSWORD}" --port 1"#);
    }
}
