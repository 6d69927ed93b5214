//! criterion benches (filled in by the benchmark work).
fn main() {}
