//! OpenAI's o200k_base tokenizer, built from a compact copy of its table.
//!
//! tiktoken-rs embeds the table as 3.6 MB of base64 text lines (`TOKEN_B64 RANK`); we keep the
//! same 199,998 tokens as `assets/o200k_base.bin`: in rank order, each its length (one byte, the
//! longest is 128) then its raw bytes, deflated (about a third of the size). The table is
//! OpenAI's, from <https://github.com/openai/tiktoken> (MIT licence), as tiktoken-rs 0.12 ships
//! it; `tests::regenerate_table` writes the file again from tiktoken-rs's own encoder, and the
//! other tests prove that both encoders hold the same tokens and count every sample tool alike.

use std::sync::LazyLock;

use tiktoken_rs::{CoreBPE, Rank};

#[cfg(test)]
mod tests;

/// The tokens in rank order, length-prefixed, deflated.
static TABLE: &[u8] = include_bytes!("../../../assets/o200k_base.bin");

/// Not in the table: texts such as `<|endoftext|>` only become these when a caller asks for
/// special tokens (we count with `encode_ordinary`, which never does), as in tiktoken-rs.
const SPECIAL_TOKENS: [(&str, Rank); 2] = [("<|endoftext|>", 199_999), ("<|endofprompt|>", 200_018)];

static ENCODER: LazyLock<CoreBPE> = LazyLock::new(build);

/// The encoder, built on first use (the table inflated and hashed, the regex compiled).
pub fn encoder() -> &'static CoreBPE {
    &ENCODER
}

/// A new encoder; [`encoder`] keeps one for the process.
pub fn build() -> CoreBPE {
    let tokens = tokens(TABLE).expect("the o200k table built into tooldeck is well formed");
    let ranks = tokens.into_iter().zip(0..);
    let special = SPECIAL_TOKENS.iter().map(|&(text, rank)| (text.to_owned(), rank));
    CoreBPE::new(ranks.collect(), special.collect(), tiktoken_rs::O200K_BASE_PAT_STR).expect("o200k's pattern compiles")
}

/// The tokens of a compact table, in rank order.
fn tokens(table: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let raw = miniz_oxide::inflate::decompress_to_vec(table).map_err(|e| format!("inflate: {e}"))?;
    let mut tokens = Vec::with_capacity(200_000);
    let mut rest = raw.as_slice();
    while let Some((&len, after)) = rest.split_first() {
        let len = usize::from(len);
        if len == 0 || after.len() < len {
            return Err(format!("token {} is cut short", tokens.len()));
        }
        let (token, after) = after.split_at(len);
        tokens.push(token.to_vec());
        rest = after;
    }
    Ok(tokens)
}

/// The compact table of `tokens` (in rank order), as [`tokens`] reads it.
#[cfg(test)]
fn compact(tokens: &[Vec<u8>]) -> Vec<u8> {
    let mut raw = Vec::new();
    for token in tokens {
        let len = u8::try_from(token.len()).expect("a token is at most 255 bytes");
        assert!(len > 0, "a token is never empty");
        raw.push(len);
        raw.extend_from_slice(token);
    }
    // 10: miniz's slowest, smallest level; the table is made once, by a maintainer.
    miniz_oxide::deflate::compress_to_vec(&raw, 10)
}
