//! Fuzz target `render`: see `twcodec::fuzz` for what it exercises.

#![no_main]

use libfuzzer_sys::fuzz_target;
use twcodec::fuzz::Target;

fuzz_target!(|data: &[u8]| Target::Render.run(data));
