//! The parts of `grail-bench` that the criterion benches share: the
//! deterministic log generator.

pub mod logs;
