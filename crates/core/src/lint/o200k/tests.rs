//! The compact table against tiktoken-rs's own o200k_base: the same tokens and ranks, the same
//! tokens for every sample tool and for texts that stress the pattern. Only this test binary
//! carries tiktoken-rs's 3.6 MB table.

use tiktoken_rs::{CoreBPE, Rank};

use super::{SPECIAL_TOKENS, TABLE, build, compact, tokens};
use crate::catalog::{LoadOptions, load_samples};
use crate::lint::cost::definition_text;

/// How many ordinary tokens o200k_base has; ranks 0 to 199,997.
const TOKEN_COUNT: usize = 199_998;

fn reference() -> &'static CoreBPE {
    tiktoken_rs::o200k_base_singleton()
}

/// tiktoken-rs's tokens in rank order: its decoder is the inverse of its encoder (`CoreBPE::new`
/// checks they are the same size), so these are its whole (bytes, rank) map.
fn reference_tokens() -> Vec<Vec<u8>> {
    let reference = reference();
    let tokens: Vec<Vec<u8>> =
        (0..).map_while(|rank: Rank| reference.decode_bytes(&[rank]).ok()).take(TOKEN_COUNT + 1).collect();
    assert_eq!(tokens.len(), TOKEN_COUNT, "o200k's ordinary ranks are 0 to {}", TOKEN_COUNT - 1);
    tokens
}

#[test]
fn table_holds_tiktokens_tokens_and_ranks() {
    let ours = tokens(TABLE).unwrap();
    let theirs = reference_tokens();
    assert_eq!(ours.len(), theirs.len());
    for (rank, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "token of rank {rank}");
    }
    // The built encoder, special tokens included, maps every rank the way tiktoken-rs's does,
    // and no rank past the last special one.
    let built = build();
    let last = SPECIAL_TOKENS.iter().map(|&(_, rank)| rank).max().unwrap();
    for rank in 0..=last + 1 {
        assert_eq!(built.decode_bytes(&[rank]).ok(), reference().decode_bytes(&[rank]).ok(), "rank {rank}");
    }
    assert_eq!(built.special_tokens(), reference().special_tokens());
}

#[test]
fn counts_every_sample_tool_as_tiktoken_does() {
    let loaded = load_samples(&LoadOptions::default());
    let tools = loaded.catalog.tools();
    assert!(tools.len() >= 30, "the samples load: {} tools", tools.len());
    let ours = super::encoder();
    for tool in tools {
        // As `lint` counts it, and indented (runs of spaces and newlines).
        let pretty = serde_json::to_string_pretty(&tool.input_schema).unwrap();
        for text in [definition_text(tool), pretty] {
            assert_eq!(ours.encode_ordinary(&text), reference().encode_ordinary(&text), "{}", tool.id);
        }
    }
}

#[test]
fn counts_tricky_texts_as_tiktoken_does() {
    let long_spaces = format!("a{}b\n{}\t\t  \r\n", " ".repeat(300), " ".repeat(17));
    let texts = [
        "",
        "hello world",
        "<|endoftext|>",
        "before <|endoftext|> after <|endofprompt|>",
        "😀👍🏽👨‍👩‍👧‍👦🇫🇷 emoji in a row😀😀😀",
        "東京都の天気を調べる。中文工具描述，包含标点。한국어 설명",
        "Здравствуйте, мир! Ελληνικά. עברית. العربية. हिन्दी",
        &long_spaces,
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\",\"items\":[]}},\"required\":[\"a\"]}",
        "}}]]],,,::\"\"\\\\//**&&||!!??",
        "It's they'll we've I'M YOU'RE don't",
        "1234567890 3.14159 1e-10 0x7fffffff 1,000,000",
        "CamelCaseName snake_case_name kebab-case-name SCREAMING_CASE",
        "line one\r\nline two\n\n\n   \n\tindented",
        "\u{0}\u{1}\u{7f}\u{200b}\u{feff}\u{10ffff}",
        "e\u{301}\u{308} a\u{20dd} \u{fe0f}",
    ];
    let ours = super::encoder();
    for text in texts {
        assert_eq!(ours.encode_ordinary(text), reference().encode_ordinary(text), "{text:?}");
    }
    let every_byte: String = (0..=0x2ffu32).filter_map(char::from_u32).collect();
    assert_eq!(ours.encode_ordinary(&every_byte), reference().encode_ordinary(&every_byte));
}

#[test]
fn a_cut_table_is_an_error_not_a_panic() {
    let table = compact(&[b"ab".to_vec(), b"c".to_vec()]);
    assert_eq!(tokens(&table).unwrap(), [b"ab".to_vec(), b"c".to_vec()]);
    let mut raw = miniz_oxide::inflate::decompress_to_vec(&table).unwrap();
    raw.pop();
    let cut = miniz_oxide::deflate::compress_to_vec(&raw, 6);
    assert_eq!(tokens(&cut).unwrap_err(), "token 1 is cut short");
    assert!(tokens(b"not deflate").is_err());
}

/// Writes `assets/o200k_base.bin` from tiktoken-rs's table. After a tiktoken-rs update:
/// `cargo test -p tooldeck-core regenerate_table -- --ignored`, then the tests above.
#[test]
#[ignore = "writes the table file; run by hand after updating tiktoken-rs"]
fn regenerate_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/o200k_base.bin");
    std::fs::write(path, compact(&reference_tokens())).unwrap();
}
