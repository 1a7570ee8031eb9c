//! The report command (being built).

fn main() {
    for backend in chacha_backends::Backend::available() {
        println!("{}", backend.name());
    }
}
