/// xoshiro256** seeded through SplitMix64: the benchmark's fixed, reproducible generator.
/// `scripts/bench-loro.py` implements the same generator, so both run the identical workload.
struct Xoshiro256 {
  var s: (UInt64, UInt64, UInt64, UInt64)

  init(seed: UInt64) {
    var x = seed
    func splitmix() -> UInt64 {
      x &+= 0x9E37_79B9_7F4A_7C15
      var z = x
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    s = (splitmix(), splitmix(), splitmix(), splitmix())
  }

  static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

  mutating func next() -> UInt64 {
    let result = Xoshiro256.rotl(s.1 &* 5, 7) &* 9
    let t = s.1 << 17
    s.2 ^= s.0
    s.3 ^= s.1
    s.1 ^= s.2
    s.0 ^= s.3
    s.2 ^= t
    s.3 = Xoshiro256.rotl(s.3, 45)
    return result
  }

  /// A number in 0..<n (plain modulo; the bias is irrelevant here and easy to mirror in Python).
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
