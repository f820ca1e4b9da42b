//! Byte sizes as people write them: `64MiB`, `2GiB`, `500MB`, `1048576`.

/// The smallest bound that still leaves room for a chunk of events and
/// their indexes; anything lower would evict on every frame.
pub const MIN_STORE: usize = 16 << 20;

/// Parse a size: a number with an optional unit (B, KB/MB/GB/TB in powers
/// of 1000, KiB/MiB/GiB/TiB or K/M/G/T in powers of 1024), case-insensitive.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{text:?} is not a size (e.g. 64MiB, 2GiB, 500MB)"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "unknown size unit {other:?} in {text:?} (use KiB, MiB, GiB, KB, MB, GB)"
            ));
        }
    };
    let bytes = n * mult;
    if !bytes.is_finite() || bytes >= usize::MAX as f64 {
        return Err(format!("{text:?} is too large"));
    }
    Ok(bytes as usize)
}

/// A store bound: a size no smaller than `MIN_STORE`.
pub fn parse_store_size(text: &str) -> Result<usize, String> {
    let n = parse_size(text)?;
    if n < MIN_STORE {
        return Err(format!(
            "{text:?} is below the smallest store bound, {} MiB",
            MIN_STORE >> 20
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert_eq!(parse_size("500MB"), Ok(500_000_000));
        assert_eq!(parse_size("1.5 GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert!(parse_size("64 parsecs").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("1e400").is_err());
        assert!(parse_store_size("1MiB").unwrap_err().contains("smallest"));
        assert_eq!(parse_store_size("16MiB"), Ok(16 << 20));
    }
}
