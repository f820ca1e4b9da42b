//! The progress line every view prints for a `notifications/progress`:
//! `3/5 (60%) message`. The numbers never need sanitising; the message comes
//! from the server, so each caller passes it already made safe for where it
//! goes (a terminal row, a stderr line, a clipped column).

use super::num;

/// `progress/total (pct%)` when the total is positive (the percentage
/// rounded down, so 100% means done), `progress/total` for any other total,
/// `progress` without one; then ` message` when there is one.
pub fn progress(progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let mut s = match total {
        Some(t) if t > 0.0 => format!(
            "{}/{} ({}%)",
            num(progress),
            num(t),
            num((progress / t * 100.0).floor())
        ),
        Some(t) => format!("{}/{}", num(progress), num(t)),
        None => num(progress),
    };
    if let Some(m) = message {
        s.push(' ');
        s.push_str(m);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        assert_eq!(
            progress(1_048_576.0, Some(5_242_880.0), Some("Read")),
            "1048576/5242880 (20%) Read"
        );
        assert_eq!(progress(2.0, Some(3.0), None), "2/3 (66%)");
        assert_eq!(progress(3.0, Some(0.0), None), "3/0");
        assert_eq!(progress(1.0, Some(-2.0), Some("x")), "1/-2 x");
        assert_eq!(progress(1.0, Some(f64::NAN), None), "1/NaN");
        assert_eq!(progress(2.5, None, None), "2.5");
        assert_eq!(progress(7.0, None, Some("")), "7 ");
    }
}
