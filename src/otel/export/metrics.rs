//! The conventions' duration histograms, aggregated as the session goes:
//! `mcp.client.operation.duration` per request kind (method, tool or
//! prompt, error type, protocol version) and `mcp.client.session.duration`,
//! with the bucket boundaries the conventions give. Series are bounded:
//! kinds past [`MAX_SERIES`] are counted under `mcp.method.name=_OTHER`.

use super::attrs;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::metrics::v1::{
    AggregationTemporality, Histogram, HistogramDataPoint, Metric, ResourceMetrics, ScopeMetrics,
    metric,
};
use std::collections::BTreeMap;

/// `[ 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300 ]`
/// seconds: the conventions' boundaries for both histograms.
pub const BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];
/// Distinct operation series kept.
pub const MAX_SERIES: usize = 256;

pub const OPERATION: &str = "mcp.client.operation.duration";
pub const SESSION: &str = "mcp.client.session.duration";

#[derive(Debug, Clone, Default)]
struct Series {
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
    buckets: [u64; BUCKETS.len() + 1],
}

impl Series {
    fn record(&mut self, v: f64) {
        if self.count == 0 || v < self.min {
            self.min = v;
        }
        if self.count == 0 || v > self.max {
            self.max = v;
        }
        self.count += 1;
        self.sum += v;
        // Buckets are upper-inclusive (OTLP explicit bounds).
        let i = BUCKETS.partition_point(|b| *b < v);
        self.buckets[i] += 1;
    }
}

/// (method, tool, prompt, error type, protocol version).
type Labels = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

#[derive(Debug, Clone)]
pub struct Durations {
    transport: &'static str,
    operations: BTreeMap<Labels, Series>,
    session: Option<(Series, Option<String>)>,
    /// Something was recorded since the last export.
    pub changed: bool,
}

impl Durations {
    pub fn new(transport: &'static str) -> Durations {
        Durations {
            transport,
            operations: BTreeMap::new(),
            session: None,
            changed: false,
        }
    }

    pub fn operation(
        &mut self,
        method: &str,
        target: Option<&str>,
        error_type: Option<&str>,
        protocol: Option<&str>,
        secs: f64,
    ) {
        let tool = (method == "tools/call")
            .then(|| target.map(str::to_string))
            .flatten();
        let prompt = (method == "prompts/get")
            .then(|| target.map(str::to_string))
            .flatten();
        let mut labels: Labels = (
            method.to_string(),
            tool,
            prompt,
            error_type.map(str::to_string),
            protocol.map(str::to_string),
        );
        if !self.operations.contains_key(&labels) && self.operations.len() >= MAX_SERIES {
            labels = ("_OTHER".into(), None, None, None, None);
        }
        self.operations.entry(labels).or_default().record(secs);
        self.changed = true;
    }

    pub fn session(&mut self, secs: f64, protocol: Option<&str>) {
        let mut s = Series::default();
        s.record(secs);
        self.session = Some((s, protocol.map(str::to_string)));
        self.changed = true;
    }

    /// Requests recorded.
    pub fn operations(&self) -> u64 {
        self.operations.values().map(|s| s.count).sum()
    }

    /// The histograms as an export (cumulative since `start_ns`), with the
    /// resource mcpscope's spans carry.
    pub fn export(
        &self,
        resource: opentelemetry_proto::tonic::resource::v1::Resource,
        start_ns: u64,
        now_ns: u64,
    ) -> ExportMetricsServiceRequest {
        let point = |s: &Series, attributes: Vec<KeyValue>| HistogramDataPoint {
            attributes,
            start_time_unix_nano: start_ns,
            time_unix_nano: now_ns,
            count: s.count,
            sum: Some(s.sum),
            bucket_counts: s.buckets.to_vec(),
            explicit_bounds: BUCKETS.to_vec(),
            min: Some(s.min),
            max: Some(s.max),
            ..Default::default()
        };
        let transport = attrs::string("network.transport", self.transport);
        let ops: Vec<HistogramDataPoint> = self
            .operations
            .iter()
            .map(|((m, tool, prompt, err, proto), s)| {
                let mut a = vec![attrs::string("mcp.method.name", m), transport.clone()];
                if let Some(t) = tool {
                    a.push(attrs::string("gen_ai.tool.name", t));
                    a.push(attrs::string("gen_ai.operation.name", "execute_tool"));
                }
                if let Some(p) = prompt {
                    a.push(attrs::string("gen_ai.prompt.name", p));
                }
                if let Some(e) = err {
                    a.push(attrs::string("error.type", e));
                }
                if let Some(p) = proto {
                    a.push(attrs::string("mcp.protocol.version", p));
                }
                point(s, a)
            })
            .collect();
        let histogram = |name: &str, description: &str, points: Vec<HistogramDataPoint>| Metric {
            name: name.into(),
            description: description.into(),
            unit: "s".into(),
            data: Some(metric::Data::Histogram(Histogram {
                data_points: points,
                aggregation_temporality: AggregationTemporality::Cumulative as i32,
            })),
            ..Default::default()
        };
        let mut metrics = Vec::new();
        if !ops.is_empty() {
            metrics.push(histogram(
                OPERATION,
                "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
                ops,
            ));
        }
        if let Some((s, proto)) = &self.session {
            let mut a = vec![transport.clone()];
            if let Some(p) = proto {
                a.push(attrs::string("mcp.protocol.version", p));
            }
            metrics.push(histogram(
                SESSION,
                "The duration of the MCP session as observed on the MCP client.",
                vec![point(s, a)],
            ));
        }
        ExportMetricsServiceRequest {
            resource_metrics: vec![ResourceMetrics {
                resource: Some(resource),
                scope_metrics: vec![ScopeMetrics {
                    scope: Some(attrs::scope()),
                    metrics,
                    ..Default::default()
                }],
                ..Default::default()
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_fall_in_the_conventions_buckets_and_series_are_bounded() {
        let mut d = Durations::new("pipe");
        d.operation("tools/call", Some("slow"), None, Some("2025-11-25"), 0.01);
        d.operation("tools/call", Some("slow"), None, Some("2025-11-25"), 0.015);
        d.operation("tools/call", Some("slow"), None, Some("2025-11-25"), 400.0);
        let s = d.operations.values().next().unwrap();
        // 0.01 is in the first bucket (bounds are inclusive), 400 past the last.
        assert_eq!(s.buckets[0], 1);
        assert_eq!(s.buckets[1], 1);
        assert_eq!(s.buckets[BUCKETS.len()], 1);
        assert_eq!((s.min, s.max, s.count), (0.01, 400.0, 3));
        for i in 0..MAX_SERIES + 10 {
            d.operation("tools/call", Some(&format!("t{i}")), None, None, 1.0);
        }
        assert_eq!(d.operations.len(), MAX_SERIES + 1);
        assert_eq!(d.operations(), 3 + MAX_SERIES as u64 + 10);
        let req = d.export(Default::default(), 1, 2);
        let m = &req.resource_metrics[0].scope_metrics[0].metrics;
        assert_eq!(m[0].name, OPERATION);
        assert_eq!(m[0].unit, "s");
    }
}
