//! The web planner's entry point (trunk builds this for wasm32).

fn main() {
    app::mount();
}
