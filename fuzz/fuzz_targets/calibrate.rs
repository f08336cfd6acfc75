//! Fuzz target: see `memwall_fuzz_bodies::calibrate`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memwall_fuzz_bodies::calibrate(data));
