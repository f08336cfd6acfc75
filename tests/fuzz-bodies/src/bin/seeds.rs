//! Writes a starting corpus for every fuzz target into DIR/<target>/: the
//! shipped examples, one file each. `scripts/fuzz.sh` runs it first.
//!
//! Usage: `cargo run -p memwall-fuzz-bodies --bin seeds -- DIR`

use std::path::Path;

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fuzz/corpus".into());
    for (target, name, bytes) in memwall_fuzz_bodies::seeds() {
        let folder = Path::new(&dir).join(target);
        std::fs::create_dir_all(&folder)?;
        std::fs::write(folder.join(name), bytes)?;
    }
    Ok(())
}
