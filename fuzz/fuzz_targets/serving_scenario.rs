//! Fuzz target: see `memwall_fuzz_bodies::serving_scenario`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| memwall_fuzz_bodies::serving_scenario(data));
