//! Numbers, durations, byte sizes and rates as mcpscope writes them. Times
//! are microseconds (`us`) unless a name says otherwise, like the trace's.

/// A JSON number the way a person writes it: `5242880`, `2.5`. Whole values
/// print without a fraction; huge ones keep f64's own form, since `as i64`
/// would saturate.
pub fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A count with thousands separators: `1,927,097`.
pub fn thousands(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// Milliseconds relative to the session start to the microsecond, computed
/// in integers so a recorded trace and the live store print the same text:
/// `1503.250`.
pub fn millis_exact(t_us: u64) -> String {
    format!("{}.{:03}", t_us / 1000, t_us % 1000)
}

/// A duration for people: `850ms`, `4.2s`, `3m07s`, `1h02m`.
pub fn duration(us: u64) -> String {
    let ms = us / 1000;
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    } else {
        format!("{}h{:02}m", ms / 3_600_000, (ms / 60_000) % 60)
    }
}

/// Like [`duration`], with a tenth of a millisecond below 10 ms: gaps
/// between flooding notifications are sub-millisecond.
pub fn duration_fine(us: u64) -> String {
    if us < 10_000 {
        format!("{:.1}ms", us as f64 / 1000.0)
    } else {
        duration(us)
    }
}

/// A duration inside a sentence (findings): `12 s`, `1.5 s`, `850 ms`.
pub fn duration_prose(us: u64) -> String {
    let s = us as f64 / 1e6;
    if s >= 10.0 {
        format!("{s:.0} s")
    } else if s >= 1.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.0} ms", us as f64 / 1e3)
    }
}

/// A timeout setting in whole seconds: `30s`, `5m`, or `off` for none.
pub fn timeout_secs(s: Option<u64>) -> String {
    match s {
        None => "off".into(),
        Some(s) if s >= 60 && s % 60 == 0 => format!("{}m", s / 60),
        Some(s) => format!("{s}s"),
    }
}

/// Byte counts in binary units: `512 B`, `1.5 KiB`, `50.0 MiB`.
pub fn bytes(v: f64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if !v.is_finite() || v.abs() < 1024.0 {
        return format!("{} B", num(v.trunc()));
    }
    let mut x = v / 1024.0;
    let mut unit = UNITS[0];
    for u in &UNITS[1..] {
        if x.abs() < 1024.0 {
            break;
        }
        x /= 1024.0;
        unit = u;
    }
    format!("{x:.1} {unit}")
}

/// A rate per second with a sensible precision: `250`, `12.5`, `0.25`.
pub fn rate(v: f64) -> String {
    if !v.is_finite() {
        "–".into()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A duration as people type it — `100us`, `250ms`, `2s`, `1.5m`, `1h`, or
/// a bare number of seconds — in microseconds; `None` for anything else
/// (a negative, an unknown unit). The filter language's `time` and the
/// proxy's fault presets read durations with it.
pub fn parse_duration_us(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = if let Some(n) = s.strip_suffix("us") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix("ms") {
        (n, 1e3)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1e6)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60e6)
    } else if let Some(n) = s.strip_suffix('h') {
        (n, 3600e6)
    } else {
        (s, 1e6)
    };
    let v: f64 = num.trim().parse().ok()?;
    let us = v * mult;
    (us.is_finite() && us >= 0.0 && us < u64::MAX as f64).then(|| us.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_type_them() {
        assert_eq!(parse_duration_us("100us"), Some(100));
        assert_eq!(parse_duration_us("250ms"), Some(250_000));
        assert_eq!(parse_duration_us(" 1.5s "), Some(1_500_000));
        assert_eq!(parse_duration_us("2m"), Some(120_000_000));
        assert_eq!(parse_duration_us("1h"), Some(3_600_000_000));
        assert_eq!(parse_duration_us("3"), Some(3_000_000));
        assert_eq!(parse_duration_us("-1s"), None);
        assert_eq!(parse_duration_us("5x"), None);
        assert_eq!(parse_duration_us("inf"), None);
        assert_eq!(parse_duration_us(""), None);
    }

    #[test]
    fn numbers() {
        assert_eq!(num(5_242_880.0), "5242880");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(1e20), "100000000000000000000");
        assert_eq!(num(f64::NAN), "NaN");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_927_097), "1,927,097");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(rate(250.4), "250");
        assert_eq!(rate(12.53), "12.5");
        assert_eq!(rate(0.254), "0.25");
        assert_eq!(rate(f64::INFINITY), "–");
        assert_eq!(bytes(-5.7), "-5 B");
        assert_eq!(bytes(3.0 * 1024.0 * 1024.0 * 1024.0), "3.0 GiB");
        assert_eq!(bytes(f64::NAN), "NaN B");
    }

    #[test]
    fn formats() {
        assert_eq!(duration(850_000), "850ms");
        assert_eq!(duration(4_200_000), "4.2s");
        assert_eq!(duration(187_000_000), "3m07s");
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(1536.0), "1.5 KiB");
        assert_eq!(bytes(52_428_800.0), "50.0 MiB");
    }

    #[test]
    fn durations() {
        assert_eq!(duration(999_999), "999ms");
        assert_eq!(duration(59_999_000), "60.0s");
        assert_eq!(duration(3_720_000_000), "1h02m");
        assert_eq!(duration_fine(260), "0.3ms");
        assert_eq!(duration_fine(9_900), "9.9ms");
        assert_eq!(duration_fine(10_000), "10ms");
        assert_eq!(duration_prose(12_400_000), "12 s");
        assert_eq!(duration_prose(1_500_000), "1.5 s");
        assert_eq!(duration_prose(850_000), "850 ms");
        assert_eq!(timeout_secs(None), "off");
        assert_eq!(timeout_secs(Some(300)), "5m");
        assert_eq!(timeout_secs(Some(90)), "90s");
        assert_eq!(millis_exact(1_503_250), "1503.250");
        assert_eq!(millis_exact(7), "0.007");
    }
}
