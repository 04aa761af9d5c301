//! Test-only generators for the property tests of every parser of outside input (agent
//! and script files, `--json` answers and decisions, tool arguments, model responses,
//! durations, stored rows): a fixed-seed generator, arbitrary JSON and text, and
//! mutations of valid examples (which reach deeper than pure noise).
//!
//! Compiled for tests only: the unit tests, and the integration tests, which include this
//! file by path (`tests/cli/main.rs`). `MASTRA_ASK_TEST_SEED` replays another seed.

use serde_json::{json, Map, Value};

/// How many inputs each property test tries.
pub const CASES: usize = 3000;

/// splitmix64 with a fixed seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(stream: u64) -> Rng {
        let seed = std::env::var("MASTRA_ASK_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x6d61_7374_7261u64);
        Rng(seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Keys the parsers know, so that generated objects hit real fields.
const KEYS: &[&str] = &[
    "question",
    "options",
    "label",
    "description",
    "selectionMode",
    "action",
    "feedback",
    "path",
    "title",
    "plan",
    "toolId",
    "steps",
    "toolCalls",
    "text",
    "delayMs",
    "id",
    "name",
    "args",
    "instructions",
    "model",
    "tools",
    "maxSteps",
    "content",
    "isError",
    "role",
    "toolCallId",
    "toolName",
    "resumeSchema",
    "finishReason",
    "usage",
    "error",
    "",
];

/// Pieces that break naive code: control characters, escapes, bidi overrides, wide and
/// combining characters, path tricks, JSON and SQL syntax, numbers with units.
const NASTY: &[&str] = &[
    "",
    " ",
    "\n",
    "\r\n",
    "\t",
    "\0",
    "\u{1b}[31m",
    "\u{7f}",
    "\u{85}",
    "\u{202e}",
    "\u{2066}",
    "\u{2028}",
    "\u{feff}",
    "é",
    "e\u{301}",
    "🦀",
    "中文",
    "\\",
    "\"",
    "'",
    "..",
    "../",
    "/",
    "/etc/passwd",
    "~",
    "%s",
    "{}",
    "[]",
    "null",
    "-1",
    "999999999999999999999999999999",
    "1e309",
    "0.1",
    "10ms",
    "5s",
    "3h",
    "2d",
    "1w",
    "-5s",
    "18446744073709551615s",
    "single_select",
    "multi_select",
    "approved",
    "rejected",
    "ask_user",
    "submit_plan",
    "script:",
    "script:x.json",
    "openai/x",
    "none",
    "# Title",
    "# ",
    "'); DROP TABLE runs;--",
];

/// An arbitrary string: nasty pieces, random characters, sometimes long.
pub fn string(rng: &mut Rng) -> String {
    let parts = match rng.below(10) {
        0 => 0,
        1..=6 => 1 + rng.below(3),
        7 | 8 => 3 + rng.below(10),
        _ => 200 + rng.below(3000),
    };
    let mut s = String::new();
    for _ in 0..parts {
        if rng.chance(50) {
            let piece: &&str = rng.pick(NASTY);
            s.push_str(piece);
        } else {
            let c = match rng.below(4) {
                0 => char::from(32 + rng.below(95) as u8),
                1 => char::from(rng.below(32) as u8),
                2 => char::from_u32(0x80 + rng.below(0x800) as u32).unwrap_or('?'),
                _ => char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('\u{fffd}'),
            };
            s.push(c);
        }
    }
    s
}

fn number(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => json!(rng.below(10)),
        1 => json!(rng.next_u64()),
        2 => json!(-(rng.below(1000) as i64)),
        3 => json!(i64::MIN),
        4 => json!((rng.next_u64() as f64) / 7.0),
        _ => json!(1e300),
    }
}

/// An arbitrary JSON value, at most `depth` levels deep.
pub fn value(rng: &mut Rng, depth: usize) -> Value {
    let leaf = depth == 0 || rng.chance(40);
    match rng.below(if leaf { 4 } else { 6 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => number(rng),
        3 => Value::String(string(rng)),
        4 => Value::Array((0..rng.below(5)).map(|_| value(rng, depth - 1)).collect()),
        _ => {
            let mut m = Map::new();
            for _ in 0..rng.below(6) {
                let k = if rng.chance(80) {
                    rng.pick(KEYS).to_string()
                } else {
                    string(rng)
                };
                m.insert(k, value(rng, depth - 1));
            }
            Value::Object(m)
        }
    }
}

/// `valid` with a few random changes: a field dropped, replaced, retyped or added, an
/// array element duplicated — anywhere in the tree.
pub fn mutate(rng: &mut Rng, valid: &Value) -> Value {
    let mut v = valid.clone();
    for _ in 0..1 + rng.below(3) {
        mutate_once(rng, &mut v, 4);
    }
    v
}

fn mutate_once(rng: &mut Rng, v: &mut Value, depth: usize) {
    match v {
        Value::Object(m) if !m.is_empty() && depth > 0 && rng.chance(60) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let k = rng.pick(&keys).clone();
            match rng.below(4) {
                0 => {
                    m.remove(&k);
                }
                1 => {
                    m.insert(rng.pick(KEYS).to_string(), value(rng, 2));
                }
                _ => {
                    if let Some(inner) = m.get_mut(&k) {
                        mutate_once(rng, inner, depth - 1);
                    }
                }
            }
        }
        Value::Array(a) if !a.is_empty() && depth > 0 && rng.chance(60) => {
            let i = rng.below(a.len());
            match rng.below(3) {
                0 => {
                    let dup = a[i].clone();
                    a.push(dup);
                }
                1 => {
                    a.remove(i);
                }
                _ => mutate_once(rng, &mut a[i], depth - 1),
            }
        }
        _ => *v = value(rng, 2),
    }
}

/// Text of `valid` with byte-level damage: truncated, spliced, or with junk inserted.
pub fn damage(rng: &mut Rng, valid: &str) -> Vec<u8> {
    let mut b = valid.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(b.len() + 1);
        match rng.below(4) {
            0 => b.truncate(at),
            1 if at < b.len() => b[at] = rng.next_u64() as u8,
            2 => {
                let junk = string(rng);
                b.splice(at..at, junk.bytes());
            }
            _ => b.insert(at, *rng.pick(b"{}[]\",:\\")),
        }
    }
    b
}

/// An input for a parser that takes JSON: a valid example, most often mutated, sometimes
/// anything at all.
pub fn json_input(rng: &mut Rng, examples: &[Value]) -> Value {
    let example = &examples[rng.below(examples.len())];
    match rng.below(100) {
        0..=29 => example.clone(),
        30..=79 => mutate(rng, example),
        _ => value(rng, 4),
    }
}
