//! Durations as administrators write them: `90s`, `30m`, `24h`, `7d`,
//! `1d12h`, `2w`; a bare number is seconds.

use crate::workload::{Time, MAX_TIME};

/// A duration that could not be read, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid duration `{text}`: {reason}")]
pub struct DurationError {
    pub text: String,
    pub reason: String,
}

/// Parses a duration into seconds, at most [`MAX_TIME`].
pub fn parse_duration(text: &str) -> Result<Time, DurationError> {
    let err = |reason: &str| DurationError {
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let s = text.trim();
    if s.is_empty() {
        return Err(err("empty"));
    }
    if s.starts_with('-') {
        return Err(err("durations cannot be negative"));
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return s
            .parse()
            .ok()
            .filter(|&v| v <= MAX_TIME)
            .ok_or_else(|| err("too large"));
    }
    let mut total: Time = 0;
    let mut rest = s;
    let mut last_unit = Time::MAX;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return Err(err("expected a number before each unit, as in 1d12h"));
        }
        let n: Time = rest[..digits].parse().map_err(|_| err("too large"))?;
        let after = &rest[digits..];
        // Numbers elsewhere may have decimals and exponents; a duration is
        // whole numbers of units, so `1e3s` is not read as a unit `e`.
        let exponent = after.strip_prefix(['e', 'E']).is_some_and(|x| {
            x.trim_start_matches(['+', '-'])
                .starts_with(|c: char| c.is_ascii_digit())
        });
        if exponent || after.starts_with('.') {
            return Err(err(
                "a duration is whole numbers of units, without decimals or exponents, as in \
                 1000s or 1h30m",
            ));
        }
        let unit_char = after.chars().next();
        let unit = match unit_char {
            Some('s') => 1,
            Some('m') => 60,
            Some('h') => 3600,
            Some('d') => 86_400,
            Some('w') => 604_800,
            Some(c) => return Err(err(&format!("unknown unit `{c}` (use s, m, h, d or w)"))),
            None => {
                return Err(err(
                    "missing unit after the last number (use s, m, h, d or w)",
                ))
            }
        };
        if unit >= last_unit {
            return Err(err("units must go from larger to smaller, as in 1d12h"));
        }
        last_unit = unit;
        total = n
            .checked_mul(unit)
            .and_then(|v| total.checked_add(v))
            .filter(|&v| v <= MAX_TIME)
            .ok_or_else(|| err("too large"))?;
        rest = &rest[digits + 1..];
    }
    Ok(total)
}

/// Formats seconds compactly for reports: `1d12h`, `30m`, `45s`, `0s`.
pub fn format_duration(secs: Time) -> String {
    if secs == 0 {
        return "0s".into();
    }
    let sign = if secs < 0 { "-" } else { "" };
    let mut left = secs.unsigned_abs();
    let mut out = String::from(sign);
    for (unit, name) in [(86_400, 'd'), (3600, 'h'), (60, 'm'), (1, 's')] {
        if left >= unit {
            out.push_str(&format!("{}{name}", left / unit));
            left %= unit;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_compounds() {
        assert_eq!(parse_duration("90s"), Ok(90));
        assert_eq!(parse_duration("30m"), Ok(1800));
        assert_eq!(parse_duration("24h"), Ok(86_400));
        assert_eq!(parse_duration("7d"), Ok(604_800));
        assert_eq!(parse_duration("1d12h"), Ok(129_600));
        assert_eq!(parse_duration("2w"), Ok(1_209_600));
        assert_eq!(parse_duration("3600"), Ok(3600));
    }

    #[test]
    fn rejects_bad_durations() {
        for bad in [
            "",
            "-5m",
            "5x",
            "h",
            "12h1d",
            "1h1h",
            "5h3",
            "99999999999999999999d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad} accepted");
        }
        assert_eq!(
            parse_duration("5x").unwrap_err().to_string(),
            "invalid duration `5x`: unknown unit `x` (use s, m, h, d or w)"
        );
        // An exponent or a decimal is not taken for a unit `e` or `.`.
        for bad in ["1e3s", "1E3", "2e-1h", "1h1e+2s", "1.5h"] {
            assert_eq!(
                parse_duration(bad).unwrap_err().reason,
                "a duration is whole numbers of units, without decimals or exponents, as in \
                 1000s or 1h30m",
                "{bad}"
            );
        }
        // `e` without digits after it is still an unknown unit.
        assert!(parse_duration("5e")
            .unwrap_err()
            .reason
            .contains("unknown unit `e`"));
    }

    #[test]
    fn durations_stop_at_the_largest_time() {
        assert_eq!(parse_duration("9007199254740991"), Ok(MAX_TIME));
        assert_eq!(
            parse_duration("104249991374d"),
            Ok(104_249_991_374 * 86_400)
        );
        for bad in ["9007199254740992", "104249991375d", "9223372036854775807"] {
            assert_eq!(
                parse_duration(bad).map_err(|e| e.reason),
                Err("too large".to_string()),
                "{bad}"
            );
        }
    }

    #[test]
    fn formats_compactly() {
        assert_eq!(format_duration(129_600), "1d12h");
        assert_eq!(format_duration(61), "1m1s");
        assert_eq!(format_duration(0), "0s");
    }
}
