fn main() {
    let path = std::env::args().nth(1).unwrap();
    let n: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    for _ in 0..n {
        std::hint::black_box(twcodec::Map::parse(&bytes).unwrap());
    }
}
