//! Artifacts: fetched over http(s) only, with progress, previewed by content type, saved to a
//! file. The preview is pure so the screen and the tests share it.

use std::time::Duration;

use serde_json::Value;

use super::mcp::content::Inline;
use super::thumbnail::{Thumbnail, ThumbnailError};
use super::{InvokeError, MAX_BODY_BYTES};
use crate::text::{human_bytes, visible};

/// What a fetch brought back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fetched {
    pub bytes: Vec<u8>,
    pub content_type: Option<String>,
    pub truncated: bool,
    /// A picture of a PNG (or why it cannot be drawn), made off the UI thread after the fetch.
    pub thumbnail: Option<Result<Thumbnail, ThumbnailError>>,
    /// Content that came inline, whole: what a save writes when `bytes` were cut off.
    pub whole: Option<Inline>,
    /// Lines to show before the preview (what else the server said).
    pub notes: Vec<String>,
}

/// Why inline content cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InlineError {
    #[error("the inline content is not valid base64")]
    NotBase64,
}

/// Content that came inline in an answer (MCP image, audio, embedded or read resources), decoded
/// (at most its first [`MAX_BODY_BYTES`]: a preview is bounded, a save decodes it whole), with its
/// picture made. Off the UI thread: a large blob takes a while.
pub fn decode_inline(data: &Inline, content_type: Option<String>) -> Result<Fetched, InlineError> {
    let (bytes, truncated) = match data {
        Inline::Base64(text) => decode_base64_prefix(text, MAX_BODY_BYTES).ok_or(InlineError::NotBase64)?,
        Inline::Text(text) => {
            let mut end = text.len().min(MAX_BODY_BYTES);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            (text.as_bytes()[..end].to_vec(), end < text.len())
        }
    };
    let thumbnail = if truncated { None } else { picture(&bytes) };
    Ok(Fetched { bytes, content_type, truncated, thumbnail, whole: Some(data.clone()), notes: Vec::new() })
}

/// Downloads `url`, calling `progress(received, total)` as chunks arrive. Only http(s): an
/// artifact URL comes from a server and must not make us read local files.
pub async fn fetch(
    url: &str,
    timeout: Duration,
    mut progress: impl FnMut(u64, Option<u64>),
) -> Result<Fetched, InvokeError> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(InvokeError::NotSent(format!("only http(s) artifacts are fetched, not {}", visible(url))));
    }
    let client = super::http::client_builder().timeout(timeout).build().map_err(InvokeError::setup)?;
    let mut response = client.get(url).send().await.map_err(|e| InvokeError::from_reqwest(e, url))?;
    let status = response.status();
    if let Some(redirect) = super::http::refused_redirect(&response) {
        return Err(InvokeError::Http { url: url.to_string(), status, redirect: Some(redirect) });
    }
    if !status.is_success() {
        return Err(InvokeError::Http { url: url.to_string(), status, redirect: None });
    }
    let total = response.content_length();
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).map(str::to_string);
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| InvokeError::from_reqwest(e, url))? {
        if bytes.len() + chunk.len() > MAX_BODY_BYTES {
            bytes.extend_from_slice(&chunk[..MAX_BODY_BYTES - bytes.len()]);
            return Ok(Fetched { bytes, content_type, truncated: true, ..Fetched::default() });
        }
        bytes.extend_from_slice(&chunk);
        progress(bytes.len() as u64, total);
    }
    Ok(Fetched { bytes, content_type, ..Fetched::default() })
}

/// Thumbnails are at most this many pixels (columns, and twice the rows they take).
pub const THUMBNAIL_WIDTH: usize = 64;
pub const THUMBNAIL_HEIGHT: usize = 32;

/// A picture of the content when it is a PNG (by its signature, whatever it was declared as).
pub fn picture(bytes: &[u8]) -> Option<Result<Thumbnail, ThumbnailError>> {
    let png = bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]);
    png.then(|| super::thumbnail::thumbnail(bytes, THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT))
}

/// A preview shows at most this many lines (the screen shows no more).
pub const PREVIEW_LINES: usize = 2000;
/// JSON larger than this is previewed as text, not parsed and pretty-printed.
const PRETTY_JSON_BYTES: usize = 4 << 20;

/// Lines to show for an artifact's content (at most [`PREVIEW_LINES`] and a note).
pub fn preview(bytes: &[u8], content_type: Option<&str>, declared_size: Option<u64>) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(declared) = declared_size
        && declared != bytes.len() as u64
    {
        lines.push(format!(
            "⚠ declared size {} ({declared} bytes), received {} ({} bytes)",
            human_bytes(declared),
            human_bytes(bytes.len() as u64),
            bytes.len()
        ));
    }
    let kind = content_type.unwrap_or_default().split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let text = std::str::from_utf8(bytes).ok();
    let text_lines = |text: &str| text.lines().take(PREVIEW_LINES + 1).map(|l| visible(l).into_owned()).collect();
    let shown: Vec<String> = match (kind.as_str(), text) {
        ("image/png", _) => vec![png_summary(bytes)],
        (k, _) if k.starts_with("image/") => vec![format!("{k} image, {}", human_bytes(bytes.len() as u64))],
        // Pretty-printing is for what a person reads: a huge document is shown as it came.
        ("application/json", Some(text)) | (_, Some(text))
            if (kind.ends_with("json") || kind == "application/json") && text.len() <= PRETTY_JSON_BYTES =>
        {
            match serde_json::from_str::<Value>(text) {
                Ok(value) => {
                    crate::form::value::pretty(&value).lines().take(PREVIEW_LINES + 1).map(str::to_string).collect()
                }
                Err(e) => {
                    lines.push(format!("⚠ not valid JSON: {e}"));
                    text_lines(text)
                }
            }
        }
        ("text/csv", Some(text)) => csv_table(text),
        (_, Some(text)) => text_lines(text),
        (_, None) => hex_dump(bytes),
    };
    let more = shown.len() > PREVIEW_LINES;
    lines.extend(shown.into_iter().take(PREVIEW_LINES));
    lines.extend(
        more.then(|| format!("… the preview stops after {PREVIEW_LINES} lines; saving the artifact keeps it whole")),
    );
    lines
}

/// A PNG's size from its IHDR chunk.
fn png_summary(bytes: &[u8]) -> String {
    let signature = bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]);
    if signature && bytes.len() >= 24 && &bytes[12..16] == b"IHDR" {
        let width = u32::from_be_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]);
        let height = u32::from_be_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
        format!("PNG image, {width}×{height} pixels, {}", human_bytes(bytes.len() as u64))
    } else {
        format!("⚠ declared image/png, but this is not a PNG ({})", human_bytes(bytes.len() as u64))
    }
}

/// CSV as aligned columns (simple quoting understood), at most 200 rows.
fn csv_table(text: &str) -> Vec<String> {
    let rows: Vec<Vec<String>> = text.lines().take(200).map(split_csv_line).collect();
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|cell| crate::text::width(cell).min(30)).max().unwrap_or(0))
        .collect();
    rows.iter()
        .map(|row| {
            row.iter()
                .enumerate()
                .map(|(c, cell)| {
                    let cell = crate::text::truncate(&visible(cell), 30).into_owned();
                    format!("{cell:<w$}", w = widths[c])
                })
                .collect::<Vec<_>>()
                .join(" │ ")
        })
        .collect()
}

fn split_csv_line(line: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => cells.push(std::mem::take(&mut cell)),
            (c, _) => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// Bytes as hex with a printable column, at most 64 lines.
fn hex_dump(bytes: &[u8]) -> Vec<String> {
    bytes
        .chunks(16)
        .take(64)
        .enumerate()
        .map(|(i, chunk)| {
            let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
            let ascii: String =
                chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }).collect();
            format!("{:08x}  {:<48} {ascii}", i * 16, hex.join(" "))
        })
        .collect()
}

/// Base64 as servers send it, for artifacts that came inline: standard or URL-safe digits (even
/// mixed), padded or not, wrapped over lines or not. Only the padding at the end is skipped: an
/// `=` in the middle means two texts were glued together, and their bytes would be wrong.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::RequireNone)
            .with_decode_allow_trailing_bits(true),
    );
    let digits: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| match b {
            b'-' => b'+',
            b'_' => b'/',
            b => b,
        })
        .collect();
    let end = digits.iter().rposition(|&b| b != b'=').map_or(0, |last| last + 1);
    LENIENT.decode(&digits[..end]).ok()
}

/// The bytes of at most the first `max` bytes' worth of `text` (base64 read as [`decode_base64`]
/// does), and whether there was more.
pub fn decode_base64_prefix(text: &str, max: usize) -> Option<(Vec<u8>, bool)> {
    // Four digits make three bytes: the prefix ends on a whole group, so it decodes on its own.
    let digits = max.div_ceil(3) * 4;
    let mut kept = 0;
    let mut cut = text.len();
    for (at, b) in text.bytes().enumerate() {
        if b.is_ascii_whitespace() {
            continue;
        }
        if kept == digits {
            cut = at;
            break;
        }
        kept += 1;
    }
    let rest = text[cut..].bytes().any(|b| !b.is_ascii_whitespace() && b != b'=');
    let mut bytes = decode_base64(&text[..cut])?;
    bytes.truncate(max);
    Some((bytes, rest))
}

/// Inline content whole, for a save (off the UI thread: it may be large).
pub fn inline_bytes(data: &Inline) -> Result<Vec<u8>, InlineError> {
    match data {
        Inline::Base64(text) => decode_base64(text).ok_or(InlineError::NotBase64),
        Inline::Text(text) => Ok(text.as_bytes().to_vec()),
    }
}

/// A file name for saving: the URL's last segment, made safe.
pub fn file_name(url: &str) -> String {
    let last = url.split(['?', '#']).next().unwrap_or(url).rsplit('/').next().unwrap_or_default();
    let safe: String = last.chars().map(|c| if c.is_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    // No leading dot: a server must not be able to suggest `.bashrc` or `.ssh`-like names.
    let safe = safe.trim_start_matches('.');
    if safe.trim_matches(['.', '_']).is_empty() { "artifact.bin".into() } else { safe.to_string() }
}

#[cfg(test)]
mod tests {

    #[test]
    fn inline_content_is_decoded_with_its_picture() {
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
        let base64 = |text: &str| Inline::Base64(std::sync::Arc::from(text));
        let fetched = decode_inline(&base64(png), Some("image/png".into())).expect("decodes");
        assert!(fetched.bytes.starts_with(b"\x89PNG"));
        assert!(matches!(fetched.thumbnail, Some(Ok(_))), "a picture is made with it");
        assert!(!fetched.truncated);
        assert!(decode_inline(&base64("not base64!"), None).unwrap_err().to_string().contains("not valid base64"));
        let text = decode_inline(&Inline::Text("héllo".into()), None).unwrap();
        assert_eq!(text.bytes, "héllo".as_bytes());
    }

    #[test]
    fn a_huge_inline_blob_is_decoded_only_as_far_as_the_preview_goes() {
        let data: std::sync::Arc<str> = "QUJD".repeat(10 << 20).into(); // 40 MiB of base64, 30 MiB of bytes
        let inline = Inline::Base64(std::sync::Arc::clone(&data));
        let fetched = decode_inline(&inline, Some("application/octet-stream".into())).unwrap();
        assert_eq!((fetched.bytes.len(), fetched.truncated, fetched.thumbnail.is_none()), (MAX_BODY_BYTES, true, true));
        let Some(Inline::Base64(whole)) = &fetched.whole else { panic!() };
        assert!(std::sync::Arc::ptr_eq(whole, &data), "kept for a save, not copied");
        let lines = preview(&fetched.bytes, None, None);
        assert!(lines.len() <= PREVIEW_LINES + 1, "{}", lines.len());
    }

    #[test]
    fn a_large_blob_is_previewed_by_its_start_only() {
        let whole: Vec<u8> = (0..100u32).map(|i| i as u8).collect();
        let encoded = crate::invoke::envelope::base64(&whole);
        for max in [1, 2, 3, 4, 30, 99] {
            let (start, more) = decode_base64_prefix(&encoded, max).unwrap();
            assert_eq!((start.as_slice(), more), (&whole[..max], true), "{max}");
        }
        assert_eq!(decode_base64_prefix(&encoded, 100), Some((whole.clone(), false)));
        assert_eq!(decode_base64_prefix(&encoded, 1000), Some((whole.clone(), false)));
        let wrapped =
            encoded.as_bytes().chunks(7).map(|c| std::str::from_utf8(c).unwrap()).collect::<Vec<_>>().join("\n");
        assert_eq!(decode_base64_prefix(&wrapped, 10).unwrap().0, &whole[..10]);
    }

    use super::*;

    #[test]
    fn suggested_names_have_no_path_and_no_leading_dot() {
        assert_eq!(file_name("http://x/a/.bashrc"), "bashrc");
        assert_eq!(file_name("http://x/../../etc/passwd"), "passwd");
        assert_eq!(file_name("http://x/..."), "artifact.bin");
        assert_eq!(file_name("http://x/report.csv?sig=1"), "report.csv");
    }

    #[test]
    fn csv_becomes_a_table() {
        let lines = preview(b"day,total\n2025-01-01,\"1,200\"\n", Some("text/csv"), None);
        assert_eq!(lines, vec!["day        │ total", "2025-01-01 │ 1,200"]);
    }

    #[test]
    fn json_is_pretty_and_bad_json_says_so() {
        assert_eq!(preview(br#"{"a":1}"#, Some("application/json"), None), vec!["{", "  \"a\": 1", "}"]);
        assert!(preview(b"{oops", Some("application/json"), None)[0].starts_with("⚠ not valid JSON"));
    }

    #[test]
    fn png_size_and_size_mismatch() {
        let png = crate::invoke::mock::png::encode_rgb(3, 2, |_, _| [0, 0, 0]);
        let lines = preview(&png, Some("image/png"), Some(png.len() as u64 + 1));
        assert!(lines[0].contains("declared size"), "{lines:?}");
        assert!(lines[1].starts_with("PNG image, 3×2 pixels"), "{lines:?}");
        assert!(preview(b"nope", Some("image/png"), None)[0].contains("not a PNG"));
    }

    #[test]
    fn bytes_as_hex_and_text_made_visible() {
        assert!(preview(&[0, 159, 255], Some("application/octet-stream"), None)[0].starts_with("00000000  00 9f ff"));
        assert_eq!(preview(b"a\x1b[2Jb", Some("text/plain"), None), vec!["a␛[2Jb"]);
    }

    #[test]
    fn base64_round_trips() {
        for bytes in [&b""[..], b"a", b"ab", b"abc", b"\x00\xff\x10tooldeck"] {
            let encoded = crate::invoke::envelope::base64(bytes);
            assert_eq!(decode_base64(&encoded).as_deref(), Some(bytes), "{encoded}");
        }
        assert_eq!(decode_base64("not*base64"), None);
    }

    #[test]
    fn base64_is_read_leniently() {
        let hello = Some(b"hello?>".to_vec());
        assert_eq!(decode_base64("aGVsbG8/Pg=="), hello);
        assert_eq!(decode_base64("aGVsbG8/Pg"), hello, "no padding");
        assert_eq!(decode_base64("aGVsbG8/Pg="), hello, "short padding");
        assert_eq!(decode_base64("aGVsbG8_Pg"), hello, "URL-safe");
        assert_eq!(decode_base64(" aGVs\r\nbG8/\n Pg==\n"), hello, "wrapped over lines");
        assert_eq!(decode_base64("+-/_"), decode_base64("++//"), "mixed alphabets");
        assert_eq!(decode_base64("YR=="), Some(b"a".to_vec()), "leftover bits are ignored");
        assert_eq!(decode_base64(""), Some(Vec::new()));
        assert_eq!(decode_base64("===="), Some(Vec::new()));
        assert_eq!(decode_base64("YWJjZ"), None, "one digit alone encodes no byte");
        assert_eq!(decode_base64("YQ==YQ=="), None, "padding in the middle");
    }

    #[test]
    fn safe_file_names() {
        assert_eq!(file_name("http://x/artifacts/abc.csv?x=1"), "abc.csv");
        assert_eq!(file_name("http://x/a/../"), "artifact.bin");
        assert_eq!(file_name("http://x/r%20p;rm -rf.txt"), "r_20p_rm_-rf.txt");
    }

    #[tokio::test]
    async fn only_http_urls_are_fetched() {
        let error = fetch("file:///etc/passwd", Duration::from_secs(1), |_, _| {}).await.unwrap_err();
        assert!(error.to_string().contains("only http(s)"));
    }
}
