//! Byte-counting transfers: `upload_file` (read the file while preparing the
//! upload, as the GitLab MCP server reports it) and `publish_package` (stream
//! a package to a registry). Both report bytes done against a known total.

use serde_json::json;

use super::{Args, MAX_MS, Outcome, ToolResult, object_schema, pause, string_prop, uint_prop};
use crate::demo::call::Call;

const MAX_BYTES: u64 = 1 << 40;

pub struct Transfer {
    kind: Kind,
    size_bytes: u64,
    chunk_bytes: u64,
    delay_ms: u64,
}

enum Kind {
    Upload,
    Publish,
}

enum Subject {
    File(String),
    Package { name: String, version: String },
}

pub const UPLOAD: Transfer = Transfer {
    kind: Kind::Upload,
    size_bytes: 5_242_880,
    chunk_bytes: 524_288,
    delay_ms: 250,
};

pub const PUBLISH: Transfer = Transfer {
    kind: Kind::Publish,
    size_bytes: 8_388_608,
    chunk_bytes: 1_048_576,
    delay_ms: 300,
};

const DEFAULT_PATH: &str = "./release.tar.gz";
const DEFAULT_NAME: &str = "mcpscope-demo";
const DEFAULT_VERSION: &str = "1.0.0";

impl Transfer {
    pub fn schema(&self) -> serde_json::Value {
        let mut props = vec![
            (
                "size_bytes",
                uint_prop("Total size in bytes.", self.size_bytes, 0, MAX_BYTES),
            ),
            (
                "chunk_bytes",
                uint_prop(
                    "Bytes per chunk (one progress update each).",
                    self.chunk_bytes,
                    1,
                    MAX_BYTES,
                ),
            ),
            (
                "delay_ms",
                uint_prop("Time per chunk in milliseconds.", self.delay_ms, 0, MAX_MS),
            ),
        ];
        match self.kind {
            Kind::Upload => props.push(("path", string_prop("File to upload.", DEFAULT_PATH))),
            Kind::Publish => {
                props.push(("name", string_prop("Package name.", DEFAULT_NAME)));
                props.push(("version", string_prop("Package version.", DEFAULT_VERSION)));
            }
        }
        object_schema(props)
    }

    pub async fn run(&self, call: &Call, args: &Args<'_>) -> ToolResult {
        let size = args.uint("size_bytes", self.size_bytes, 0, MAX_BYTES)?;
        let chunk = args.uint("chunk_bytes", self.chunk_bytes, 1, MAX_BYTES)?;
        let delay = args.uint("delay_ms", self.delay_ms, 0, MAX_MS)?;
        // Parsed before any work so a bad argument fails fast.
        let subject = match self.kind {
            Kind::Upload => Subject::File(args.string("path", DEFAULT_PATH)?),
            Kind::Publish => Subject::Package {
                name: args.string("name", DEFAULT_NAME)?,
                version: args.string("version", DEFAULT_VERSION)?,
            },
        };
        let mut done: u64 = 0;
        loop {
            pause(delay).await;
            done = size.min(done.saturating_add(chunk));
            let message = match self.kind {
                Kind::Upload => format!("Read {done} / {size} bytes, preparing the upload"),
                Kind::Publish => format!("Streaming package to registry: {done} / {size} bytes"),
            };
            call.progress(done, Some(size), message);
            if done >= size {
                break;
            }
        }
        Ok(match subject {
            Subject::File(path) => uploaded(&path, size),
            Subject::Package { name, version } => published(&name, &version, size),
        })
    }
}

fn uploaded(path: &str, size: u64) -> Outcome {
    let file = path
        .rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or("upload.bin");
    let url = format!("/uploads/{}/{file}", hex_digest(&[path, &size.to_string()]));
    Outcome::ok(
        format!("Uploaded {file} ({size} bytes) as {url}"),
        json!({
            "path": path,
            "size_bytes": size,
            "url": url,
            "markdown": format!("[{file}]({url})"),
        }),
    )
}

fn published(name: &str, version: &str, size: u64) -> Outcome {
    let digest = hex_digest(&[name, version, &size.to_string()]);
    Outcome::ok(
        format!(
            "Published {name}@{version} ({size} bytes) to the registry, digest sha256:{digest}"
        ),
        json!({
            "name": name,
            "version": version,
            "size_bytes": size,
            "digest": format!("sha256:{digest}"),
        }),
    )
}

/// A stable, hash-looking 32-hex-digit id (two FNV-1a passes) so repeated
/// demo runs produce the same URLs.
fn hex_digest(parts: &[&str]) -> String {
    let fnv = |seed: u64| {
        let mut h = seed;
        for part in parts {
            for b in part.bytes().chain([0]) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        h
    };
    format!(
        "{:016x}{:016x}",
        fnv(0xcbf2_9ce4_8422_2325),
        fnv(0x8422_2325_cbf2_9ce4)
    )
}
