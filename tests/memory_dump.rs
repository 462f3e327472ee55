//! What printing costs: a dump streams to its writer, so its peak heap stays within 16 MiB of
//! what the loaded map holds, whatever the map's size; a map's settings list costs its bytes,
//! not a string per entry. The maps are built in `tests/common/hostile.rs`.
//!
//! `peak_alloc` measures the heap's peak while each case runs, above what was allocated before
//! it. One test only, because the allocator's counters are global to the test binary.

mod common;

use std::io;

use common::hostile::*;
use common::MIB;
use peak_alloc::PeakAlloc;
use twcodec::{Datafile, Map};
use twcodec_tools::dump::{self, DumpOptions};

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc;

/// Bytes the heap grew by at its peak while `f` ran, above what it held before.
fn peak_above_start(name: &str, f: impl FnOnce()) -> u64 {
    let start = ALLOC.current_usage();
    ALLOC.reset_peak_usage();
    f();
    let peak = (ALLOC.peak_usage().saturating_sub(start)) as u64;
    eprintln!(
        "{name}: peak {:.1} MiB above the {:.1} MiB held",
        peak as f64 / MIB as f64,
        start as f64 / MIB as f64
    );
    peak
}

#[test]
fn dumps_stream_whatever_the_map_holds() {
    // A million envelope points (24 MB of file), dumped as text and as JSON.
    let million = envelopes_sharing_points(0, 1_000_000);
    let map = Map::parse(&million).unwrap();
    for (name, json) in [("text", false), ("json", true)] {
        let mut written = 0u64;
        let peak = peak_above_start(&format!("dump --format {name} of a million points"), || {
            let mut out = Counter(&mut written);
            let options = DumpOptions::default().preview(true);
            if json {
                dump::map_json(&map, options, &mut out).unwrap();
            } else {
                dump::map_text(&map, options, &mut out).unwrap();
            }
        });
        // The dump is far larger than what it may hold at once.
        assert!(written > 60 * MIB, "{name}: {written} bytes written");
        assert!(
            peak < 16 * MIB,
            "dump --format {name}: peak {peak} bytes above the loaded map"
        );
    }

    // `items --decode` decodes one item at a time: the peak is the largest item decoded (the
    // 24 MB envelope points item), not the whole datafile rendered.
    let datafile = Datafile::parse(&million).unwrap();
    let largest = datafile
        .items()
        .iter()
        .map(|item| item.data.len() * 4)
        .max()
        .unwrap() as u64;
    let peak = peak_above_start("items --decode of a million points", || {
        dump::decoded_items(&datafile, None, &mut io::sink()).unwrap();
    });
    assert!(
        peak < largest + 16 * MIB,
        "items --decode: peak {peak} bytes"
    );

    // 64 MiB of NULs as the settings: 64 Mi empty settings, beyond Limits::max_string_bytes.
    // The dump says so instead of listing them (it took 4.8 GB and aborted before), and
    // inflates nothing to say it.
    let zeros = settings_of_zeros(64 << 20);
    let mut map = None;
    let peak = peak_above_start("loading a map of 64 MiB of NUL settings", || {
        map = Some(Map::parse(&zeros).unwrap());
    });
    let map = map.unwrap();
    assert!(peak < MIB, "loading: peak {peak} bytes");
    assert!(
        map.problems().iter().any(|p| p
            .to_string()
            .contains("(Limits::max_string_bytes); not checked")),
        "check says so too"
    );
    let mut text = Vec::new();
    let peak = peak_above_start("dump of 64 MiB of NUL settings", || {
        dump::map_text(&map, DumpOptions::default(), &mut text).unwrap();
    });
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains(
            "  settings_text: none\n  settings_error: \"the settings take 67108864 bytes, \
             more than the limit of 16777216 (Limits::max_string_bytes)\"\n"
        ),
        "{text}"
    );
    assert!(peak < MIB, "settings: peak {peak} bytes");

    // 1 MiB of NULs: within the bytes, beyond Limits::max_strings.
    let map = Map::parse(&settings_of_zeros(1 << 20)).unwrap();
    let text = dump::to_string(|out| dump::map_text(&map, DumpOptions::default(), out));
    assert!(
        text.contains(
            "  settings_error: \"the settings hold 1048576 strings, more than the limit of 65536 \
             (Limits::max_strings)\"\n"
        ),
        "{text}"
    );

    // Under limits that allow them, a list of empty settings costs its bytes, not a string
    // per entry: the settings are split as they are read.
    let datafile = Datafile::parse_with(&zeros, twcodec::Limits::UNLIMITED).unwrap();
    let map = Map::from_datafile(&datafile).unwrap();
    let info = map.info().unwrap();
    let peak = peak_above_start("64 Mi empty settings, counted and read", || {
        let settings = info.settings(&map).unwrap();
        assert_eq!(settings.len(), 64 << 20);
        assert_eq!(settings.iter().filter(|s| s.is_empty()).count(), 64 << 20);
    });
    assert!(
        peak < 64 * MIB + 64 * MIB,
        "settings read: peak {peak} bytes"
    );
}

/// A writer that counts what it is given and keeps none of it.
struct Counter<'a>(&'a mut u64);

impl io::Write for Counter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        *self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
