//! GREEDY's three scheduling situations by time of week (section III-A):
//! weekends, weekdays 8:00-18:00 and weekdays 18:00-8:00, in the local time
//! of the machine the trace was recorded on.
//!
//! Local time is the trace's `UnixStartTime` plus the simulated time, in
//! the zone of its `TimeZoneString` header (an IANA name such as
//! `US/Eastern`; the numeric `TimeZone` header is ignored, as the archive
//! deprecates it and some traces carry a wrong one). Without
//! `UnixStartTime`, simulated time 0 is 1970-01-01 00:00; without
//! `TimeZoneString`, the zone is UTC.
//!
//! The weekend is the calendar weekend, Saturday 00:00 to Monday 00:00:
//! Friday from 18:00 and Monday before 8:00 are weekday nights, as the
//! paper's three classes are stated (weekends; weekdays by hour).

use crate::workload::transform::submit_dates;
use crate::workload::{Time, Workload};
use chrono::{DateTime, Datelike, Duration, NaiveDateTime, TimeZone, Timelike, Weekday};
use chrono_tz::Tz;
use serde::Serialize;
use std::fmt;

/// A scheduling situation: which criterion sorts the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Situation {
    /// Saturday and Sunday.
    Weekend,
    /// Monday to Friday, 8:00 to 18:00.
    WeekdayDay,
    /// Monday to Friday, 18:00 to 8:00.
    WeekdayNight,
}

impl Situation {
    pub const ALL: [Situation; 3] = [
        Situation::Weekend,
        Situation::WeekdayDay,
        Situation::WeekdayNight,
    ];

    /// The name the language uses.
    pub fn name(self) -> &'static str {
        match self {
            Situation::Weekend => "weekend",
            Situation::WeekdayDay => "weekday-day",
            Situation::WeekdayNight => "weekday-night",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// The situation at a local wall-clock time.
    pub fn at(local: NaiveDateTime) -> Situation {
        match local.weekday() {
            Weekday::Sat | Weekday::Sun => Situation::Weekend,
            _ if (8..18).contains(&local.hour()) => Situation::WeekdayDay,
            _ => Situation::WeekdayNight,
        }
    }
}

impl fmt::Display for Situation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A trace's wall clock: where simulated time 0 is, and in which zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calendar {
    /// Unix time of simulated time 0.
    pub unix_start: i64,
    pub zone: Tz,
}

/// Why a trace's header gives no wall clock.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalendarError {
    /// A trace whose time zone is not known.
    #[error(
        "trace `{trace}`: {place}TimeZoneString `{zone}` is not a time zone name goalc knows \
         (IANA names such as US/Eastern or Europe/Stockholm); the greedy criteria need local time"
    )]
    Zone {
        trace: String,
        /// `file:line: ` of the header line, when read from a file.
        place: String,
        zone: String,
    },
    /// A `UnixStartTime` line that is there but unusable, or two lines of
    /// it or of `TimeZoneString` that disagree: taking 1970, UTC or the
    /// first line instead would put jobs in the wrong situation. Also a
    /// start (or 1970) that puts the submits past any calendar, where every
    /// instant would be in one situation.
    #[error("trace `{trace}`: {why}; the greedy criteria need local time")]
    Header { trace: String, why: String },
}

impl Calendar {
    pub const UTC_EPOCH: Calendar = Calendar {
        unix_start: 0,
        zone: Tz::UTC,
    };

    /// The wall clock of a workload's trace.
    pub fn of(w: &Workload) -> Result<Calendar, CalendarError> {
        let header_error = |why| CalendarError::Header {
            trace: w.name.clone(),
            why,
        };
        let zone = match w.header.time_zone().map_err(header_error)? {
            None => Tz::UTC,
            Some(name) => name.parse::<Tz>().map_err(|_| CalendarError::Zone {
                trace: w.name.clone(),
                place: w.header.place_of("TimeZoneString"),
                zone: name,
            })?,
        };
        let unix_start = w.header.unix_start().map_err(header_error)?;
        // Past the calendar every instant would be in one situation, a
        // wrong schedule without a word; `--months` refuses such a trace
        // with the same check.
        submit_dates(w, unix_start).map_err(header_error)?;
        Ok(Calendar {
            unix_start: unix_start.unwrap_or(0),
            zone,
        })
    }

    fn local(&self, t: Time) -> Option<DateTime<Tz>> {
        let utc = DateTime::from_timestamp(self.unix_start.checked_add(t)?, 0)?;
        Some(utc.with_timezone(&self.zone))
    }

    /// The situation at simulated time `t`, and the simulated time at
    /// which it next changes (later than `t`). Times beyond the calendar's
    /// range (ends of jobs only: [`Calendar::of`] refuses submits there)
    /// stay in the last situation.
    pub fn situation(&self, t: Time) -> (Situation, Time) {
        let Some(local) = self.local(t) else {
            return (Situation::WeekdayNight, Time::MAX);
        };
        let here = Situation::at(local.naive_local());
        // The boundaries on the local clock are 8:00, 18:00 and midnight;
        // the situation changes at one of the next few (a weekend passes
        // six of them).
        let mut at = local.naive_local();
        for _ in 0..8 {
            let day = at.date();
            let next = match at.hour() {
                0..=7 => day.and_hms_opt(8, 0, 0),
                8..=17 => day.and_hms_opt(18, 0, 0),
                _ => day.succ_opt().and_then(|d| d.and_hms_opt(0, 0, 0)),
            };
            let Some(next) = next else {
                break;
            };
            at = next;
            if Situation::at(next) != here {
                return (
                    here,
                    self.simulated(next).filter(|&s| s > t).unwrap_or(t + 1),
                );
            }
        }
        (here, Time::MAX)
    }

    /// The simulated time of a local wall-clock time. One in a
    /// daylight-saving gap does not exist: the first hour after it does.
    fn simulated(&self, local: NaiveDateTime) -> Option<Time> {
        (0..3)
            .find_map(|h| {
                self.zone
                    .from_local_datetime(&(local + Duration::hours(h)))
                    .earliest()
            })
            .map(|d| d.timestamp() - self.unix_start)
    }
}

/// The situation as simulated time moves forward: asks the calendar only
/// when a boundary is passed.
#[derive(Debug, Clone)]
pub struct Clock {
    calendar: Calendar,
    current: Situation,
    /// The current situation holds for times before this.
    until: Time,
    /// The current situation holds from this time on.
    since: Time,
}

impl Clock {
    pub fn new(calendar: Calendar) -> Self {
        Clock {
            calendar,
            current: Situation::Weekend,
            until: Time::MIN,
            since: Time::MAX,
        }
    }

    /// The situation at `t`.
    pub fn at(&mut self, t: Time) -> Situation {
        if t < self.since || t >= self.until {
            let (s, until) = self.calendar.situation(t);
            self.current = s;
            self.since = t;
            self.until = until;
        }
        self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Simulated time of a UTC date with the calendar starting at Unix 0.
    fn utc(y: i32, m: u32, d: u32, h: u32, min: u32) -> Time {
        chrono::NaiveDate::from_ymd_opt(y, m, d)
            .unwrap()
            .and_hms_opt(h, min, 0)
            .unwrap()
            .and_utc()
            .timestamp()
    }

    /// A one-job trace with the given header lines.
    fn trace(header: &str) -> Workload {
        let text =
            format!("; MaxProcs: 4\n{header}1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n");
        crate::workload::swf::parse(
            text.as_bytes(),
            std::path::Path::new("t.swf"),
            "t",
            &Default::default(),
        )
        .unwrap()
    }

    /// The clock comes from the header; a header line that is there but
    /// unusable is an error naming it, not 1970 or UTC in silence.
    #[test]
    fn the_calendar_is_the_headers_or_an_error_naming_it() {
        let c = Calendar::of(&trace(
            "; UnixStartTime: 835823160\n; TimeZoneString: US/Eastern\n",
        ));
        assert_eq!(c.unwrap().unix_start, 835_823_160);
        assert_eq!(Calendar::of(&trace("")).unwrap(), Calendar::UTC_EPOCH);
        let e = Calendar::of(&trace("; UnixStartTime: soon\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "trace `t`: t.swf:2: header `; UnixStartTime: soon`: `soon` is not a time in \
                 whole seconds since 1970 (within ±{}); the greedy criteria need local time",
                crate::workload::MAX_TIME
            )
        );
        let e = Calendar::of(&trace("; TimeZoneString: Mars/Olympus\n")).unwrap_err();
        assert!(matches!(e, CalendarError::Zone { .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with("trace `t`: t.swf:2: TimeZoneString `Mars/Olympus` is not"),
            "{e}"
        );
        // Two lines that disagree: neither is taken.
        let e = Calendar::of(&trace(
            "; TimeZoneString: Europe/Stockholm\n; TimeZoneString: Asia/Tokyo\n",
        ))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "trace `t`: t.swf:3: header `; TimeZoneString: Europe/Stockholm` (line 2) and \
             `; TimeZoneString: Asia/Tokyo` disagree on the time zone; the greedy criteria need \
             local time"
        );
        // Two names of one zone agree: the first is taken.
        let c = Calendar::of(&trace(
            "; TimeZoneString: US/Eastern\n; TimeZoneString: America/New_York\n",
        ))
        .unwrap();
        assert_eq!(c.zone, Tz::US__Eastern);
        let e = Calendar::of(&trace("; UnixStartTime: 0\n; UnixStartTime: 86400\n")).unwrap_err();
        assert!(matches!(e, CalendarError::Header { .. }), "{e}");
    }

    /// A start that puts the submits past any calendar is refused as
    /// `--months` refuses it: there every instant was a weekday night.
    #[test]
    fn submits_past_any_calendar_are_an_error() {
        for start in ["10000000000000", "9007199254740990", "-9007199254740990"] {
            let e = Calendar::of(&trace(&format!("; UnixStartTime: {start}\n"))).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "trace `t`: t.swf:2: `UnixStartTime` {start} puts its submits past any \
                     calendar; the greedy criteria need local time"
                )
            );
        }
        // Without a start, submits as far from 1970 are refused too.
        let far = crate::workload::swf::parse(
            b"; MaxProcs: 4\n1 10000000000000 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n",
            std::path::Path::new("t.swf"),
            "t",
            &Default::default(),
        )
        .unwrap();
        assert_eq!(
            Calendar::of(&far).unwrap_err().to_string(),
            "trace `t`: without `UnixStartTime` its submits, 10000000000000s to \
             10000000000000s after 1970-01-01, are past any calendar; the greedy criteria \
             need local time"
        );
        // Year 200,000 is still on the calendar.
        let c = Calendar::of(&trace("; UnixStartTime: 6249000000000\n")).unwrap();
        assert_eq!(c.unix_start, 6_249_000_000_000);
    }

    #[test]
    fn boundaries_of_the_week() {
        let c = Calendar::UTC_EPOCH;
        // 2024-03-01 is a Friday.
        let cases = [
            (utc(2024, 3, 1, 7, 59), Situation::WeekdayNight),
            (utc(2024, 3, 1, 8, 0), Situation::WeekdayDay),
            (utc(2024, 3, 1, 17, 59), Situation::WeekdayDay),
            (utc(2024, 3, 1, 18, 0), Situation::WeekdayNight),
            (utc(2024, 3, 1, 23, 59), Situation::WeekdayNight),
            (utc(2024, 3, 2, 0, 0), Situation::Weekend),
            (utc(2024, 3, 3, 23, 59), Situation::Weekend),
            (utc(2024, 3, 4, 0, 0), Situation::WeekdayNight),
            (utc(2024, 3, 4, 8, 0), Situation::WeekdayDay),
        ];
        for (t, want) in cases {
            assert_eq!(c.situation(t).0, want, "at {t}");
        }
        // Friday 18:00 until Saturday 00:00, then until Monday 00:00.
        assert_eq!(c.situation(utc(2024, 3, 1, 18, 0)).1, utc(2024, 3, 2, 0, 0));
        assert_eq!(c.situation(utc(2024, 3, 2, 0, 0)).1, utc(2024, 3, 4, 0, 0));
        assert_eq!(c.situation(utc(2024, 3, 4, 0, 0)).1, utc(2024, 3, 4, 8, 0));
        assert_eq!(
            c.situation(utc(2024, 3, 1, 9, 30)).1,
            utc(2024, 3, 1, 18, 0)
        );
    }

    #[test]
    fn local_time_of_the_trace_zone() {
        // CTC's header: UnixStartTime 835823160 (1996-06-26 21:06 UTC),
        // US/Eastern (EDT, UTC-4): 17:06 local on a Wednesday.
        let c = Calendar {
            unix_start: 835_823_160,
            zone: "US/Eastern".parse().unwrap(),
        };
        assert_eq!(c.situation(0).0, Situation::WeekdayDay);
        // 18:00 local is 22:00 UTC: 54 minutes later.
        assert_eq!(c.situation(0).1, 54 * 60);
        assert_eq!(c.situation(54 * 60).0, Situation::WeekdayNight);
        let mut clock = Clock::new(c);
        assert_eq!(clock.at(10), Situation::WeekdayDay);
        assert_eq!(clock.at(54 * 60 - 1), Situation::WeekdayDay);
        assert_eq!(clock.at(54 * 60), Situation::WeekdayNight);
    }

    #[test]
    fn daylight_saving_days_keep_their_boundaries() {
        // Europe/Stockholm, 2024-03-31 (Sunday, clocks go 2:00 -> 3:00) and
        // Monday 2024-04-01 8:00 CEST = 6:00 UTC.
        let c = Calendar {
            unix_start: 0,
            zone: "Europe/Stockholm".parse().unwrap(),
        };
        let (s, next) = c.situation(utc(2024, 3, 31, 12, 0));
        assert_eq!((s, next), (Situation::Weekend, utc(2024, 3, 31, 22, 0)));
        assert_eq!(c.situation(next).1, utc(2024, 4, 1, 6, 0));
    }
}
