//! Durations as the command line and the environment write them (`DUR`): an integer with
//! `ms`, `s`, `m`, `h` or `d`, or a bare number of seconds.
//!
//! Parsing only: no clock, no sleeping, no environment reads.

use std::time::Duration;

/// Parses `30s`, `500ms`, `2m`, `1h`, `1d` or `45` (seconds).
pub fn parse(text: &str) -> Result<Duration, String> {
    let s = text.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let bad = || format!("\"{text}\" is not a duration; write e.g. 500ms, 30s, 5m, 1h, 1d or 45");
    let n: u64 = number.parse().map_err(|_| bad())?;
    let ms_per_unit: u64 = match unit {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(bad()),
    };
    n.checked_mul(ms_per_unit)
        .map(Duration::from_millis)
        .ok_or_else(|| format!("duration \"{text}\" is too long"))
}

/// A short text for a duration, e.g. `300ms`, `30s`, `1m30s`.
pub fn show(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 || !ms.is_multiple_of(1_000) {
        return format!("{ms}ms");
    }
    let s = ms / 1_000;
    match (s / 60, s % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_bare_seconds() {
        assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse("45"), Ok(Duration::from_secs(45)));
        assert_eq!(parse(" 2m "), Ok(Duration::from_secs(120)));
        assert_eq!(parse("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse("0"), Ok(Duration::ZERO));
    }

    #[test]
    fn rejects_what_is_not_a_duration() {
        for bad in [
            "",
            "s",
            "1.5s",
            "-1s",
            "10x",
            "ms10",
            "1 s",
            "99999999999999999999d",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn shows_short_forms() {
        assert_eq!(show(Duration::from_millis(300)), "300ms");
        assert_eq!(show(Duration::from_millis(1500)), "1500ms");
        assert_eq!(show(Duration::from_secs(30)), "30s");
        assert_eq!(show(Duration::from_secs(300)), "5m");
        assert_eq!(show(Duration::from_secs(90)), "1m30s");
    }

    #[test]
    fn no_input_makes_parse_panic_and_whole_numbers_read_back() {
        let mut rng = crate::testing::Rng::new(1);
        for _ in 0..crate::testing::CASES {
            let _ = parse(&crate::testing::string(&mut rng));
            let n = rng.next_u64() % 1_000_000_000_000;
            assert_eq!(parse(&format!("{n}ms")), Ok(Duration::from_millis(n)));
            assert_eq!(parse(&format!(" {n}s")), Ok(Duration::from_secs(n)));
        }
    }
}
