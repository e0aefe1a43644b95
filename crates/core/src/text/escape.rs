//! Text from definitions and servers made safe to print: a tool's description must never be
//! able to move the cursor or change the terminal. Also the one quoting for a POSIX shell.

use std::borrow::Cow;

/// Control characters replaced by visible stand-ins: `\n` → `↵`, tab → `→`, ESC → `␛`, other C0
/// controls by their Control Pictures (`␀`...), DEL → `␡`, C1 controls and bidi overrides as
/// `<U+XXXX>`.
pub fn visible(text: &str) -> Cow<'_, str> {
    if super::wrap::printable_ascii(text) || !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push('↵'),
            '\t' => out.push('→'),
            '\u{00}'..='\u{1F}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
            '\u{7F}' => out.push('␡'),
            c if needs_escape(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Quoted for a POSIX shell, for commands a person copies (curl, a `tooldeck call` that
/// reproduces a finding); a NUL cannot be passed on a command line at all, so it is dropped.
pub fn shell_quote(text: &str) -> String {
    shlex::try_quote(&text.replace('\0', "")).unwrap_or_default().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_cannot_reach_the_terminal() {
        assert_eq!(visible("a\u{1b}[2Jb"), "a␛[2Jb");
        assert_eq!(visible("x\u{9b}31m\u{202E}"), "x<U+009B>31m<U+202E>");
        assert_eq!(visible("line\nnext\ttab"), "line↵next→tab");
        assert!(matches!(visible("plain ♠ text"), Cow::Borrowed(_)));
    }

    #[test]
    fn shell_quotes_survive_a_shell_split() {
        for word in ["plain", "it's", "a b", "$HOME `x`", "nul\0in"] {
            let quoted = shell_quote(word);
            assert_eq!(shlex::split(&quoted).unwrap(), [word.replace('\0', "")], "{quoted}");
        }
    }
}
