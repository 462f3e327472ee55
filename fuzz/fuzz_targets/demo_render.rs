//! Fuzz target `demo_render`: see `twcodec_testkit::fuzz` for what it exercises.

#![no_main]

use libfuzzer_sys::fuzz_target;
use twcodec_testkit::fuzz::Target;

fuzz_target!(|data: &[u8]| Target::DemoRender.run(data));
