//! Durations as the command line and the environment write them (`DUR`): an integer with
//! `ms`, `s`, `m`, `h` or `d`, or a bare number of seconds. Every duration has a maximum
//! (at most a year, `crate::limits`), checked here, so no later sum or conversion can
//! overflow and no value waits for ever.
//!
//! Parsing only: no clock, no sleeping, no environment reads.

use std::time::Duration;

use crate::limits::MAX_FLAG_DURATION;

/// Parses `30s`, `500ms`, `2m`, `1h`, `1d` or `45` (seconds), at most a year.
pub fn parse(text: &str) -> Result<Duration, String> {
    parse_max(text, MAX_FLAG_DURATION)
}

/// Parses a duration of at most `max`; a longer one is an error that names the maximum.
pub fn parse_max(text: &str, max: Duration) -> Result<Duration, String> {
    let s = text.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let bad = || {
        format!("\"{text}\" is not a duration; write e.g. 500ms, 30s, 5m, 1h, 1d or 45 (seconds)")
    };
    let ms_per_unit: u128 = match unit {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(bad()),
    };
    if number.is_empty() {
        return Err(bad());
    }
    // More digits than any u128 holds is simply too long.
    let ms = number
        .parse::<u128>()
        .ok()
        .and_then(|n| n.checked_mul(ms_per_unit));
    match ms {
        Some(ms) if ms <= max.as_millis() => Ok(Duration::from_millis(ms as u64)),
        _ => Err(format!(
            "duration \"{text}\" is longer than the maximum, {}",
            show(max)
        )),
    }
}

/// Parses a duration that must be more than zero (and at most a year).
pub fn parse_positive(text: &str) -> Result<Duration, String> {
    match parse(text)? {
        d if d.is_zero() => Err(format!("duration \"{text}\" must be more than 0")),
        d => Ok(d),
    }
}

/// A short text for a duration, e.g. `300ms`, `30s`, `1m30s`, `2h`, `365d`.
pub fn show(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 || !ms.is_multiple_of(1_000) {
        return format!("{ms}ms");
    }
    let s = ms / 1_000;
    match (s / 60, s % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) if m % 1_440 == 0 => format!("{}d", m / 1_440),
        (m, 0) if m % 60 == 0 => format!("{}h", m / 60),
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
        assert_eq!(parse("365d"), Ok(MAX_FLAG_DURATION));
    }

    #[test]
    fn rejects_what_is_not_a_duration() {
        for bad in ["", "s", "1.5s", "-1s", "10x", "ms10", "1 s", "+5s", "5s5m"] {
            assert!(
                parse(bad).unwrap_err().contains("is not a duration"),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn rejects_what_is_longer_than_the_maximum() {
        for long in [
            "366d",
            "31536000001ms",
            "9223372036854775807ms",
            "18446744073709551616s",
            "99999999999999999999999999999999999999999999d",
        ] {
            assert_eq!(
                parse(long).unwrap_err(),
                format!("duration \"{long}\" is longer than the maximum, 365d"),
            );
        }
        assert_eq!(
            parse_max("61s", Duration::from_secs(60)).unwrap_err(),
            "duration \"61s\" is longer than the maximum, 1m"
        );
        assert_eq!(
            parse_max("60", Duration::from_secs(60)),
            Ok(Duration::from_secs(60))
        );
    }

    #[test]
    fn positive_durations() {
        assert_eq!(parse_positive("1ms"), Ok(Duration::from_millis(1)));
        for zero in ["0", "0s", "0ms", "0d"] {
            assert!(parse_positive(zero).unwrap_err().contains("more than 0"));
        }
    }

    #[test]
    fn shows_short_forms() {
        assert_eq!(show(Duration::from_millis(300)), "300ms");
        assert_eq!(show(Duration::from_millis(1500)), "1500ms");
        assert_eq!(show(Duration::from_secs(30)), "30s");
        assert_eq!(show(Duration::from_secs(300)), "5m");
        assert_eq!(show(Duration::from_secs(90)), "1m30s");
        assert_eq!(show(Duration::from_secs(7200)), "2h");
        assert_eq!(show(MAX_FLAG_DURATION), "365d");
    }

    #[test]
    fn no_input_makes_parse_panic_and_whole_numbers_read_back() {
        let mut rng = crate::testing::Rng::new(1);
        for _ in 0..crate::testing::CASES {
            let _ = parse(&crate::testing::string(&mut rng));
            let n = rng.next_u64() % 1_000_000_000_000;
            let max = Duration::from_millis(u64::MAX);
            assert_eq!(
                parse_max(&format!("{n}ms"), max),
                Ok(Duration::from_millis(n))
            );
            assert_eq!(
                parse_max(&format!(" {n}s"), max),
                Ok(Duration::from_secs(n))
            );
            let within = n % MAX_FLAG_DURATION.as_millis() as u64;
            assert_eq!(
                parse(&format!("{within}ms")),
                Ok(Duration::from_millis(within))
            );
        }
    }
}
