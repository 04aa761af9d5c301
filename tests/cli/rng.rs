//! A small deterministic random generator for the randomized tests (stress, kill loop,
//! input fuzzing): a fixed seed by default, so a failure replays; `MASTRA_ASK_TEST_SEED`
//! picks another.

pub struct Rng(u64);

impl Rng {
    /// A generator for one test (or one worker of it): the seed mixed with `stream`.
    pub fn new(stream: u64) -> Rng {
        let seed = std::env::var("MASTRA_ASK_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x6d61_7374_7261u64);
        Rng(seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    /// splitmix64.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A random JSON value: what a hostile or careless input could be.
pub fn any_json(rng: &mut Rng, depth: usize) -> serde_json::Value {
    use serde_json::{json, Value};
    const KEYS: &[&str] = &[
        "action",
        "feedback",
        "question",
        "options",
        "label",
        "selectionMode",
        "steps",
        "toolCalls",
        "text",
        "name",
        "args",
        "id",
        "model",
        "instructions",
        "tools",
        "x",
    ];
    const STRINGS: &[&str] = &[
        "",
        "a",
        "b",
        "approved",
        "rejected",
        "multi_select",
        "ask_user",
        "\u{1b}[2J",
        "\u{202e}x",
        "script:s.json",
        "../../etc/passwd",
        "🦀",
        "{",
        "\0",
    ];
    let leaf = depth == 0 || rng.chance(40);
    match rng.below(if leaf { 4 } else { 6 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.next_u64() as i64 >> rng.below(64)),
        3 => json!(rng.pick(STRINGS)),
        4 => Value::Array(
            (0..rng.below(4))
                .map(|_| any_json(rng, depth - 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (rng.pick(KEYS).to_string(), any_json(rng, depth - 1)))
                .collect(),
        ),
    }
}
