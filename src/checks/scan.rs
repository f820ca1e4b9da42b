//! A narrow, allocation-free reader of the three progress fields the rules
//! need (token, progress, total), for frames the store already validated.
//!
//! Why not serde: the store has parsed every frame once on ingest; a second
//! full parse per notification would double the cost of checking a flood.
//! This walks the top-level object once, skipping values it does not need.
//! Anything unusual (escaped keys, `null` numbers, odd layout) returns `None`
//! and the caller falls back to the serde-based `ProgressView`.

use memchr::memchr2;

pub struct FastProgress<'a> {
    /// The token's raw JSON text.
    pub token: &'a [u8],
    pub progress: f64,
    pub total: Option<f64>,
}

struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    fn ws(&mut self) {
        while let Some(c) = self.b.get(self.i) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        if self.peek()? == c {
            self.i += 1;
            Some(())
        } else {
            None
        }
    }

    /// At an opening quote: skip the string, return its raw contents.
    fn string(&mut self) -> Option<&'a [u8]> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.i + 1;
        let mut j = start;
        loop {
            let k = memchr2(b'"', b'\\', self.b.get(j..)?)?;
            if self.b[j + k] == b'\\' {
                j += k + 2;
            } else {
                self.i = j + k + 1;
                return Some(&self.b[start..j + k]);
            }
        }
    }

    /// Skip one value, return its raw text.
    fn value(&mut self) -> Option<&'a [u8]> {
        self.ws();
        let start = self.i;
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.i += 1;
                }
            }
        }
        Some(&self.b[start..self.i])
    }

    /// Walk an object, calling `f(key, cursor)` at each value; `f` must
    /// consume the value.
    fn object(&mut self, mut f: impl FnMut(&'a [u8], &mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            self.ws();
            let key = self.string()?;
            self.eat(b':')?;
            self.ws();
            f(key, self)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

fn number(raw: &[u8]) -> Option<f64> {
    if !raw.is_empty() && raw.len() <= 15 && raw.iter().all(u8::is_ascii_digit) {
        let mut n: u64 = 0;
        for d in raw {
            n = n * 10 + u64::from(d - b'0');
        }
        return Some(n as f64);
    }
    std::str::from_utf8(raw).ok()?.parse::<f64>().ok()
}

/// Token, progress and total of a `notifications/progress` frame.
pub fn progress(bytes: &[u8]) -> Option<FastProgress<'_>> {
    let mut cur = Cur { b: bytes, i: 0 };
    let mut found: Option<FastProgress<'_>> = None;
    cur.object(|key, c| {
        if key != b"params" {
            return c.value().map(drop);
        }
        let (mut token, mut progress, mut total) = (None, None, None);
        c.object(|k, c| {
            let v = c.value()?;
            match k {
                b"progressToken" => token = Some(v),
                b"progress" => progress = Some(number(v)?),
                b"total" => total = Some(number(v)?),
                _ => {}
            }
            Some(())
        })?;
        found = Some(FastProgress {
            token: token?,
            progress: progress?,
            total,
        });
        Some(())
    })?;
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_or_declines() {
        let p = progress(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a\"b","progress":12,"total":1.5e2,"message":"x}\"{"}}"#).unwrap();
        assert_eq!(p.token, br#""a\"b""#);
        assert_eq!(p.progress, 12.0);
        assert_eq!(p.total, Some(150.0));
        let p = progress(br#"{ "params" : { "progress" : -0.5 , "progressToken" : 7, "extra": {"a":[1,{"b":"]"}]} } , "method":"notifications/progress","jsonrpc":"2.0"}"#).unwrap();
        assert_eq!(p.token, b"7");
        assert_eq!(p.progress, -0.5);
        assert_eq!(p.total, None);
        assert!(
            progress(br#"{"params":{"progressToken":"a","progress":1,"total":null}}"#).is_none()
        );
        assert!(progress(br#"{"params":{"progressToken":"a"}}"#).is_none());
        assert!(progress(br#"{"params":{"progressToken":"a","progress":1"#).is_none());
        assert!(progress(b"garbage").is_none());
    }
}
