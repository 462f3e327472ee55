//! Editing demos: a cut of a range of ticks ([`Demo::cut`]), another map embedded
//! ([`Demo::replace_map`]) or none ([`Demo::strip_map`]); points in a demo as users give
//! them ([`DemoTime`]).

use std::io::{Cursor, Seek, Write};
use std::str::FromStr;

use twcodec_schema::demo::{
    DemoHeader, DemoStart, Sha256Extension, TimelineMarkers, MAX_TIMELINE_MARKERS,
};

use super::writer::{fixed, write_error, DemoWriter};
use super::{ChunkContent, Demo, TICKS_PER_SECOND};
use crate::{Error, ErrorKind};

/// A point in a demo, as a user gives it: a tick as the demo stores it (`123456`), a time
/// from the first tick (`12.5s`, `1:02`, `1:02.5`), a timeline marker counted from 1
/// (`marker:2`, `m2`), or `start` / `end`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DemoTime {
    /// A tick, as the demo's tick markers give it.
    Tick(i32),
    /// Seconds after the first tick.
    Seconds(f64),
    /// The timeline marker of this number, from 1.
    Marker(usize),
    /// The first tick.
    Start,
    /// The last tick.
    End,
}

fn bad_time(text: &str) -> Error {
    Error::new(
        ErrorKind::InvalidOptions,
        format!(
            "{text:?} is not a point in a demo: give a tick (123456), seconds from the start \
             (12.5s, 1:02.5), a timeline marker (marker:2 or m2) or start/end"
        ),
    )
}

impl FromStr for DemoTime {
    type Err = Error;

    fn from_str(text: &str) -> Result<DemoTime, Error> {
        let trimmed = text.trim();
        let seconds = |value: &str| {
            value
                .parse::<f64>()
                .ok()
                .filter(|value| value.is_finite() && *value >= 0.0)
                .ok_or_else(|| bad_time(text))
        };
        match trimmed {
            "start" => return Ok(DemoTime::Start),
            "end" => return Ok(DemoTime::End),
            _ => {}
        }
        if let Some(number) = trimmed
            .strip_prefix("marker:")
            .or_else(|| trimmed.strip_prefix('m'))
        {
            return match number.parse::<usize>() {
                Ok(number) if number >= 1 => Ok(DemoTime::Marker(number)),
                _ => Err(bad_time(text)),
            };
        }
        if let Some(value) = trimmed.strip_suffix('s') {
            return seconds(value).map(DemoTime::Seconds);
        }
        if let Some((minutes, rest)) = trimmed.split_once(':') {
            let minutes: u32 = minutes.parse().map_err(|_| bad_time(text))?;
            let rest = seconds(rest)?;
            if rest >= 60.0 {
                return Err(bad_time(text));
            }
            return Ok(DemoTime::Seconds(f64::from(minutes) * 60.0 + rest));
        }
        trimmed
            .parse::<i32>()
            .ok()
            .filter(|tick| *tick >= 0)
            .map(DemoTime::Tick)
            .ok_or_else(|| bad_time(text))
    }
}

/// What a cut holds ([`Demo::cut`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutSummary {
    /// The first tick: its snapshot is the cut's first keyframe.
    pub first_tick: i32,
    /// The last tick.
    pub last_tick: i32,
    /// The timeline markers kept (those within the cut's ticks).
    pub markers: Vec<i32>,
    /// The length the header gives, in whole seconds.
    pub length: i32,
    /// Why the cut ends before `to`: the demo's first chunk after the start that does not
    /// read (a recording cut short), which ends the cut there.
    pub broken: Option<String>,
}

impl Demo {
    /// The ticks of the first and the last tick marker, reading every chunk header up to
    /// the end or to a chunk that does not read (a recording cut short); none for a demo
    /// without tick markers.
    pub fn tick_range(&self) -> Result<Option<(i32, i32)>, Error> {
        let mut range: Option<(i32, i32)> = None;
        for chunk in self.chunks() {
            let Ok(chunk) = chunk else {
                break;
            };
            if let (ChunkContent::TickMarker { .. }, Some(tick)) = (chunk.content, chunk.tick) {
                let first = range.map_or(tick, |(first, _)| first);
                range = Some((first, tick));
            }
        }
        Ok(range)
    }

    /// The tick of `time` in this demo. Seconds count from the first tick and are rounded
    /// to the nearest tick (50 per second); a marker must exist.
    pub fn resolve_time(&self, time: DemoTime) -> Result<i32, Error> {
        let range = || {
            self.tick_range()?
                .ok_or_else(|| Error::new(ErrorKind::InvalidOptions, "the demo has no ticks"))
        };
        match time {
            DemoTime::Tick(tick) => Ok(tick),
            DemoTime::Start => Ok(range()?.0),
            DemoTime::End => Ok(range()?.1),
            DemoTime::Seconds(seconds) => {
                let ticks = (seconds * f64::from(TICKS_PER_SECOND)).round();
                let tick = f64::from(range()?.0) + ticks;
                if tick > f64::from(i32::MAX) {
                    return Err(Error::new(
                        ErrorKind::InvalidOptions,
                        format!("{seconds} s is past the last tick a demo can hold"),
                    ));
                }
                Ok(tick as i32)
            }
            DemoTime::Marker(number) => {
                let markers = self.timeline_markers();
                markers.get(number.wrapping_sub(1)).copied().ok_or_else(|| {
                    Error::new(
                        ErrorKind::InvalidOptions,
                        format!(
                            "marker {number}: the demo has {} timeline marker{}",
                            markers.len(),
                            if markers.len() == 1 { "" } else { "s" }
                        ),
                    )
                })
            }
        }
    }

    /// The ticks `from` to `to` (both included) as a demo of their own, with this demo's
    /// header (version, net version, type, timestamp), map and its hashes.
    ///
    /// The cut starts at the first tick from `from` to `to` that has a snapshot: a keyframe
    /// tick marker and that tick's snapshot in full (the delta chain before it applied),
    /// then the tick's other chunks (messages). Every chunk after it is copied as it is, up
    /// to the first tick marker past `to` (or before the start, in a demo whose ticks go
    /// back): the deltas apply to the same snapshots as in this demo, so the cut replays as
    /// this demo does over its ticks. The header gets the cut's length; the timeline markers
    /// within its ticks are kept. A chunk after the start that does not read (a recording
    /// cut short) ends the cut before it ([`CutSummary::broken`]): a cut rescues what a crash
    /// left, with a header that has its length.
    pub fn cut(&self, from: i32, to: i32) -> Result<(Vec<u8>, CutSummary), Error> {
        let (out, summary) = self.cut_to(Cursor::new(Vec::new()), from, to)?;
        Ok((out.into_inner(), summary))
    }

    /// [`Demo::cut`], written to `out` from where it is.
    pub fn cut_to<W: Write + Seek>(
        &self,
        out: W,
        from: i32,
        to: i32,
    ) -> Result<(W, CutSummary), Error> {
        let ticks = || -> Result<String, Error> {
            Ok(match self.tick_range()? {
                Some((first, last)) => format!("ticks {first} to {last}"),
                None => "no ticks".into(),
            })
        };
        if from > to {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!(
                    "the cut starts at tick {from}, after its end at tick {to} (the demo has {})",
                    ticks()?
                ),
            ));
        }
        let mut start = None;
        for frame in self.replay() {
            let frame = frame?;
            if (from..=to).contains(&frame.tick) && frame.snapshot.is_some() {
                start = Some(frame);
                break;
            }
        }
        let Some(start) = start else {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!(
                    "no tick from {from} to {to} has a snapshot (the demo has {})",
                    ticks()?
                ),
            ));
        };
        let snapshot = start.snapshot.as_ref().expect("chosen for its snapshot");
        let mut writer = DemoWriter::like(out, self)?;
        writer.keyframe(start.tick, snapshot)?;
        let mut in_start = true;
        let mut broken = None;
        for chunk in self.chunks().skip(start.chunk + 1) {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => {
                    broken = Some(error.to_string());
                    break;
                }
            };
            match chunk.content {
                ChunkContent::TickMarker { .. } => {
                    // A tick past the end, or before the start (ticks that go back), ends
                    // the cut.
                    if chunk
                        .tick
                        .is_some_and(|tick| tick > to || tick < start.tick)
                    {
                        break;
                    }
                    in_start = false;
                }
                // The start tick's snapshot is written in full above.
                ChunkContent::Snapshot(_) | ChunkContent::Delta(_) if in_start => continue,
                _ => {}
            }
            writer.copy_chunk(&chunk)?;
        }
        let last = writer.last_tick().unwrap_or(start.tick);
        let markers: Vec<i32> = (self.timeline_markers().iter().copied())
            .filter(|tick| (start.tick..=last).contains(tick))
            .take(MAX_TIMELINE_MARKERS)
            .collect();
        writer.set_markers(&markers);
        let out = writer.finish()?;
        Ok((
            out,
            CutSummary {
                first_tick: start.tick,
                last_tick: last,
                markers,
                length: ((i64::from(last) - i64::from(start.tick)) / i64::from(TICKS_PER_SECOND))
                    as i32,
                broken,
            },
        ))
    }

    /// This demo with `map` embedded instead of its map: the header's map size, CRC-32 and
    /// (version 6) SHA-256 are the new map's, and its map name `name` when given. `map` must
    /// read as a datafile. Every chunk stays as it is.
    pub fn replace_map(&self, map: &[u8], name: Option<&str>) -> Result<Vec<u8>, Error> {
        crate::Datafile::parse(map).map_err(|error| {
            Error::new(
                error.kind(),
                format!("the new map does not read as a map: {}", error.message()),
            )
        })?;
        let mut start = self.start.clone();
        start.header.map_size = u32::try_from(map.len())
            .map_err(|_| Error::limit("a map of 4 GiB or more does not fit a demo"))?;
        start.header.map_crc = crc32fast::hash(map);
        if let Some(extension) = &mut start.sha256 {
            #[cfg(feature = "hashing")]
            {
                extension.sha256 = super::sha256(map);
            }
            #[cfg(not(feature = "hashing"))]
            {
                let _ = extension;
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "a version-6 demo's map SHA-256 needs feature `hashing`",
                ));
            }
        }
        if let Some(name) = name {
            start.header.map_name = fixed("map name", name)?;
        }
        self.rebuilt(&start, map)
    }

    /// This demo without its map: the header's map size 0, its name, CRC-32 and SHA-256 kept,
    /// so that a player finds the map in its maps folder (DDNet's client looks it up by name
    /// and checks the CRC or SHA-256). Every chunk stays as it is.
    pub fn strip_map(&self) -> Result<Vec<u8>, Error> {
        let mut start = self.start.clone();
        start.header.map_size = 0;
        self.rebuilt(&start, &[])
    }

    /// `start`, `map`, then this demo's chunks (and any bytes after them) as they are.
    fn rebuilt(&self, start: &DemoStart, map: &[u8]) -> Result<Vec<u8>, Error> {
        let chunks = &self.bytes[self.chunks_offset()..];
        let mut out = Cursor::new(Vec::with_capacity(
            DemoHeader::SIZE
                + TimelineMarkers::SIZE
                + Sha256Extension::SIZE
                + map.len()
                + chunks.len(),
        ));
        binrw::BinWrite::write(start, &mut out).map_err(|error| match error {
            binrw::Error::Io(io) => write_error(io),
            other => Error::invalid_edit(format!("demo header: {other}")),
        })?;
        out.write_all(map).map_err(write_error)?;
        out.write_all(chunks).map_err(write_error)?;
        Ok(out.into_inner())
    }
}
