//! A latency histogram of bounded size whatever the number of samples: the
//! OpenTelemetry MCP conventions' buckets for `mcp.client.operation.duration`
//! (seconds: 0.01 … 300) for the table and the chart, and log-spaced fine
//! buckets (1 % wide) for the percentiles, which are therefore within 1 %
//! of the exact value (the maximum is exact).

/// Upper bounds, in seconds, of the buckets the OpenTelemetry semantic
/// conventions recommend for `mcp.client.operation.duration` (a histogram
/// in seconds); a last bucket holds what is above 300 s.
pub const OTEL_BOUNDS_S: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// Growth of one fine bucket to the next.
const RATIO: f64 = 1.01;
/// Fine buckets: 1 µs · 1.01^2100 is about 20 minutes; beyond, the last one.
const FINE: usize = 2100;

#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    otel: [u64; OTEL_BOUNDS_S.len() + 1],
    fine: Vec<u64>,
    count: u64,
    sum_us: u128,
    max_us: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            otel: [0; OTEL_BOUNDS_S.len() + 1],
            fine: vec![0; FINE + 1],
            count: 0,
            sum_us: 0,
            max_us: 0,
        }
    }
}

fn fine_index(us: u64) -> usize {
    if us <= 1 {
        return 0;
    }
    ((us as f64).ln() / RATIO.ln()).ceil().min(FINE as f64) as usize
}

impl Histogram {
    pub fn record(&mut self, us: u64) {
        let secs = us as f64 / 1e6;
        let i = OTEL_BOUNDS_S
            .iter()
            .position(|b| secs <= *b)
            .unwrap_or(OTEL_BOUNDS_S.len());
        self.otel[i] += 1;
        self.fine[fine_index(us)] += 1;
        self.count += 1;
        self.sum_us += u128::from(us);
        self.max_us = self.max_us.max(us);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max_us(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max_us)
    }

    pub fn mean_us(&self) -> Option<u64> {
        (self.count > 0).then(|| (self.sum_us / u128::from(self.count)) as u64)
    }

    /// The nearest-rank percentile (`p` in 0..=100), in µs: the upper bound
    /// of the fine bucket holding it, never above the maximum.
    pub fn percentile_us(&self, p: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((p / 100.0) * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, n) in self.fine.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let upper = if i == 0 {
                    1
                } else {
                    RATIO.powi(i as i32) as u64
                };
                return Some(upper.min(self.max_us));
            }
        }
        Some(self.max_us)
    }

    /// `(upper bound in seconds, None for the last, count)` per OpenTelemetry bucket.
    pub fn buckets(&self) -> impl Iterator<Item = (Option<f64>, u64)> + '_ {
        self.otel
            .iter()
            .enumerate()
            .map(|(i, n)| (OTEL_BOUNDS_S.get(i).copied(), *n))
    }

    pub fn merge(&mut self, o: &Histogram) {
        for (a, b) in self.otel.iter_mut().zip(o.otel.iter()) {
            *a += b;
        }
        for (a, b) in self.fine.iter_mut().zip(o.fine.iter()) {
            *a += b;
        }
        self.count += o.count;
        self.sum_us += o.sum_us;
        self.max_us = self.max_us.max(o.max_us);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_hold_values_up_to_their_bound() {
        let mut h = Histogram::default();
        for us in [10_000, 10_001, 300_000_000, 300_000_001] {
            h.record(us);
        }
        let b: Vec<(Option<f64>, u64)> = h.buckets().collect();
        assert_eq!(b[0], (Some(0.01), 1));
        assert_eq!(b[1], (Some(0.02), 1));
        assert_eq!(b[13], (Some(300.0), 1));
        assert_eq!(b[14], (None, 1));
    }

    #[test]
    fn percentiles_are_within_one_percent() {
        let mut h = Histogram::default();
        for us in 1..=10_000u64 {
            h.record(us * 100);
        }
        for (p, exact) in [(50.0, 500_000.0), (95.0, 950_000.0), (99.0, 990_000.0)] {
            let got = h.percentile_us(p).unwrap() as f64;
            assert!(
                (got - exact).abs() / exact <= 0.0101,
                "p{p}: {got} for {exact}"
            );
        }
        assert_eq!(h.percentile_us(100.0), Some(1_000_000));
        assert_eq!(h.max_us(), Some(1_000_000));
        assert_eq!(Histogram::default().percentile_us(50.0), None);
    }
}
