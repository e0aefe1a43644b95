//! Sizes for people.

/// A byte count for people: `512 B`, `1.5 KiB`, `32.0 MiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut size = bytes as f64 / 1024.0;
    let mut unit = 0;
    while size >= 1024.0 && unit < UNITS.len() - 1 {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// A size on a command line that cannot be taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("{0:?} is not a size: write a number and a unit, such as 512KB, 100MB, 1GiB")]
    NotASize(String),
    #[error("a size of 0 would keep nothing: give one such as 64KB or 100MB")]
    Nothing,
}

/// A size as a person writes it on a command line: `512`, `200KB`, `100MB`, `1.5GB` (powers of
/// 1000, as disks are sold) or `64KiB`, `1GiB` (powers of 1024); `K`, `M`, `G`, `T` alone are
/// the powers of 1000 too. Case and a space before the unit do not matter. The error says what
/// is accepted.
pub fn parse_bytes(text: &str) -> Result<u64, SizeError> {
    const UNITS: [(&str, u64); 14] = [
        ("", 1),
        ("b", 1),
        ("k", 1_000),
        ("kb", 1_000),
        ("kib", 1 << 10),
        ("m", 1_000_000),
        ("mb", 1_000_000),
        ("mib", 1 << 20),
        ("g", 1_000_000_000),
        ("gb", 1_000_000_000),
        ("gib", 1 << 30),
        ("t", 1_000_000_000_000),
        ("tb", 1_000_000_000_000),
        ("tib", 1 << 40),
    ];
    let refused = || SizeError::NotASize(text.to_string());
    let text_lower = text.trim().to_ascii_lowercase();
    let split = text_lower.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text_lower.len());
    let (number, unit) = text_lower.split_at(split);
    let unit = unit.trim_start();
    let &(_, scale) = UNITS.iter().find(|(name, _)| *name == unit).ok_or_else(refused)?;
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return Err(refused());
    }
    // Whole and fraction apart, in integers: `1.5GB` is exactly 1,500,000,000 bytes.
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| refused())? };
    let mut bytes = whole.checked_mul(scale).ok_or_else(refused)?;
    if !fraction.is_empty() {
        if fraction.len() > 9 || !fraction.chars().all(|c| c.is_ascii_digit()) {
            return Err(refused());
        }
        let digits: u128 = fraction.parse().map_err(|_| refused())?;
        let part = u128::from(scale) * digits / 10u128.pow(u32::try_from(fraction.len()).unwrap_or(9));
        bytes = bytes.checked_add(u64::try_from(part).map_err(|_| refused())?).ok_or_else(refused)?;
    }
    Ok(bytes)
}

/// `n` and `word`, in the plural unless `n` is 1 ("1 tool", "3 tools"): the one rule for
/// counts in messages (words whose plural is not `s` say so where they are written).
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(32 * 1024 * 1024), "32.0 MiB");
    }

    #[test]
    fn sizes_as_people_write_them() {
        assert_eq!(parse_bytes("512"), Ok(512));
        assert_eq!(parse_bytes("200KB"), Ok(200_000));
        assert_eq!(parse_bytes("100MB"), Ok(100_000_000));
        assert_eq!(parse_bytes("100 mb"), Ok(100_000_000));
        assert_eq!(parse_bytes("1GiB"), Ok(1 << 30));
        assert_eq!(parse_bytes("64KiB"), Ok(65_536));
        assert_eq!(parse_bytes("1.5GB"), Ok(1_500_000_000));
        assert_eq!(parse_bytes("0.5KiB"), Ok(512));
        assert_eq!(parse_bytes("2T"), Ok(2_000_000_000_000));
        assert_eq!(parse_bytes("3M"), Ok(3_000_000));
        for bad in ["", "MB", "ten MB", "1.2.3MB", "5 parsecs", "-1MB", "99999999999999999999GB", "."] {
            let said = parse_bytes(bad).unwrap_err().to_string();
            assert!(said.contains("not a size") && said.contains("100MB"), "{bad}: {said}");
        }
    }
}
