//! Durations on the command line (`DUR`): an integer with `ms`, `s`, `m`, `h` or `d`; a bare
//! number is seconds.

use std::time::Duration;

pub fn parse(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: u64 = digits.parse().map_err(|_| {
        format!("\"{s}\" is not a duration: use a whole number with ms, s, m, h or d, e.g. 30s")
    })?;
    let ms_per = match unit {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => {
            return Err(format!(
                "\"{s}\" has an unknown unit \"{unit}\": use ms, s, m, h or d"
            ))
        }
    };
    n.checked_mul(ms_per)
        .map(Duration::from_millis)
        .ok_or_else(|| format!("\"{s}\" is too long"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse("1d"), Ok(Duration::from_secs(86_400)));
        assert!(parse("1.5h").is_err());
        assert!(parse("3w").is_err());
        assert!(parse("").is_err());
        assert!(parse("-1s").is_err());
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
