//! JSON for a terminal: what every `--json` output and `list`'s catalog are written with. JSON
//! escapes only C0 controls, so a server's U+009B (CSI) would reach a terminal that honours C1
//! controls, and a U+202E would reorder the line; here both are written as `\u` escapes, which any
//! JSON reader reads back as the same characters.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

/// `value` as pretty JSON, C1 controls and bidi marks escaped.
pub fn write_pretty<W: Write, T: Serialize + ?Sized>(writer: W, value: &T) -> serde_json::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(writer, SafeFormatter(PrettyFormatter::new()));
    value.serialize(&mut serializer)
}

/// `value` as one line of JSON, C1 controls and bidi marks escaped.
pub fn to_line<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, SafeFormatter(serde_json::ser::CompactFormatter));
    value.serialize(&mut serializer)?;
    // The formatter writes only what serde_json gave it (UTF-8) and ASCII escapes.
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Characters a terminal may obey or that reorder text: C1 controls, the bidi marks, embeddings,
/// overrides and isolates.
fn unsafe_for_terminals(c: char) -> bool {
    matches!(c, '\u{80}'..='\u{9F}' | '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

struct SafeFormatter<F>(F);

impl<F: Formatter> Formatter for SafeFormatter<F> {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if unsafe_for_terminals(c) {
                writer.write_all(&fragment.as_bytes()[start..at])?;
                write!(writer, "\\u{:04x}", c as u32)?;
                start = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }
    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }
    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }
    fn end_object_key<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_key(writer)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c1_controls_and_bidi_marks_are_escaped_and_read_back_the_same() {
        let value = serde_json::json!({"t\u{202E}": "a\u{9B}31mb\u{202E}c\u{2067}é\n"});
        let mut out = Vec::new();
        write_pretty(&mut out, &value).expect("written");
        let written = String::from_utf8(out).expect("UTF-8");
        assert!(written.contains(r"a\u009b31mb\u202ec\u2067é\n"), "{written}");
        assert!(written.contains(r#""t\u202e""#), "{written}");
        assert!(!written.chars().any(unsafe_for_terminals), "{written}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&written).expect("JSON"), value);
        let line = to_line(&value).expect("written");
        assert!(!line.contains('\n') && !line.chars().any(unsafe_for_terminals), "{line}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&line).expect("JSON"), value);
    }
}
