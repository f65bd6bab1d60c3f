//! Whether two `TimeZoneString` names are one time zone.
//!
//! The IANA database keeps old names as links to current ones (`US/Eastern`
//! for `America/New_York`, `Japan` for `Asia/Tokyo`), and traces use both.
//! chrono-tz gives each name its own copy of the rules and does not say
//! which names are links, so two names are compared by what their rules do
//! from 1800 to 2200 (every transition the database records, and the rules
//! that go on after): the same UTC offset at the start of every day, and
//! the same second for a change of offset within a day.

use chrono::{DateTime, Offset, TimeZone};
use chrono_tz::Tz;

/// 1800-01-01 and 2200-01-01, UTC.
const FROM: i64 = -5_364_662_400;
const UNTIL: i64 = 7_258_118_400;
const DAY: i64 = 86_400;

/// Whether `a` and `b` name one zone: the same text, or two names
/// chrono-tz knows whose offsets from UTC agree throughout.
pub(super) fn same_zone(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (a.parse::<Tz>(), b.parse::<Tz>()) {
        (Ok(a), Ok(b)) => same_rules(a, b),
        _ => false,
    }
}

/// Seconds east of UTC in `zone` at Unix time `t`.
fn offset(zone: Tz, t: i64) -> i32 {
    let utc = DateTime::from_timestamp(t, 0).map_or_else(Default::default, |d| d.naive_utc());
    zone.offset_from_utc_datetime(&utc).fix().local_minus_utc()
}

fn same_rules(a: Tz, b: Tz) -> bool {
    same_offsets(|t| offset(a, t), |t| offset(b, t))
}

/// Whether two offset functions agree over [`FROM`, `UNTIL`], compared a
/// day at a time: offsets that differ at the start of a day differ; within
/// a day where they change, the second of the change is found by halving
/// in each and must be the same. A link has the very rules of its target,
/// so the two searches take the same steps.
fn same_offsets(a: impl Fn(i64) -> i32, b: impl Fn(i64) -> i32) -> bool {
    let mut day = FROM;
    let (mut was_a, mut was_b) = (a(day), b(day));
    if was_a != was_b {
        return false;
    }
    while day < UNTIL {
        let next = day + DAY;
        let (now_a, now_b) = (a(next), b(next));
        if now_a != now_b {
            return false;
        }
        if now_a != was_a && change_in(&a, day, next, was_a) != change_in(&b, day, next, was_b) {
            return false;
        }
        (was_a, was_b, day) = (now_a, now_b, next);
    }
    true
}

/// A second of `(from, to]` at which `offset` changes from `before`, which
/// it gives at `from` and not at `to`: the first when it changes once.
fn change_in(offset: impl Fn(i64) -> i32, mut from: i64, mut to: i64, before: i32) -> i64 {
    while to - from > 1 {
        let mid = from + (to - from) / 2;
        if offset(mid) == before {
            from = mid;
        } else {
            to = mid;
        }
    }
    to
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_is_the_dates_it_says() {
        let date = |y| {
            chrono::NaiveDate::from_ymd_opt(y, 1, 1)
                .unwrap()
                .and_hms_opt(0, 0, 0)
                .unwrap()
                .and_utc()
                .timestamp()
        };
        assert_eq!((FROM, UNTIL), (date(1800), date(2200)));
    }

    #[test]
    fn links_are_their_targets() {
        for (link, target) in [
            ("US/Eastern", "America/New_York"),
            ("Japan", "Asia/Tokyo"),
            ("Etc/UTC", "UTC"),
            ("US/Pacific", "America/Los_Angeles"),
            ("Europe/Stockholm", "Europe/Stockholm"),
            // A link since tzdata 2024b.
            ("EST5EDT", "America/New_York"),
        ] {
            assert!(same_zone(link, target), "{link} and {target}");
            assert!(same_zone(target, link), "{target} and {link}");
        }
    }

    #[test]
    fn zones_that_differ_at_any_time_are_not_one() {
        for (a, b) in [
            // Different everywhere.
            ("Europe/Stockholm", "Asia/Tokyo"),
            // The same offsets today, not in their history: Paris kept
            // Paris Mean Time until 1911, Berlin had no such time.
            ("Europe/Paris", "Europe/Berlin"),
            // Eastern time today; Detroit kept no summer time in some
            // years New York did.
            ("America/Detroit", "America/New_York"),
            // Not known, so nothing to compare.
            ("Mars/Olympus", "UTC"),
            ("Mars/Olympus", "Mars/Tharsis"),
        ] {
            assert!(!same_zone(a, b), "{a} and {b}");
        }
        // An unknown name is still itself.
        assert!(same_zone("Mars/Olympus", "Mars/Olympus"));
    }

    #[test]
    fn finds_the_second_of_a_change() {
        // New York went to summer time at 2000-04-02 07:00 UTC.
        let day = 954_633_600; // 2000-04-02 00:00 UTC
        let ny: Tz = "America/New_York".parse().unwrap();
        let at = |t| offset(ny, t);
        assert_eq!(change_in(at, day, day + DAY, -5 * 3600), day + 7 * 3600);
    }

    /// Offsets that agree at the start of every day but change within one
    /// at different seconds are told apart.
    #[test]
    fn a_change_at_another_second_of_the_same_day_differs() {
        let day = 954_633_600;
        let changing_at = |at: i64| move |t: i64| if t >= at { 3600 } else { 0 };
        assert!(same_offsets(
            changing_at(day + 7200),
            changing_at(day + 7200)
        ));
        assert!(!same_offsets(
            changing_at(day + 7200),
            changing_at(day + 7201)
        ));
        assert!(!same_offsets(
            changing_at(day + 7200),
            changing_at(day + DAY)
        ));
        assert!(!same_offsets(|_| 0, |_| 3600));
    }
}
