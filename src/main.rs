//! The `grail` command: a thin shell over [`grail::cli::run`].

fn main() {
    grail::sigbus::die_on_closed_pipe();
    let code = grail::cli::run(std::env::args_os().skip(1).collect());
    std::process::exit(code);
}
