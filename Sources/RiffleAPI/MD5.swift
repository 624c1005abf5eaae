import Foundation

/// MD5 (RFC 1321), for the two APIs that ask for it: the Subsonic API's salted password token
/// (`t = md5(password + salt)`) and Last.fm's request signature (`api_sig`). Not for anything
/// that needs a secure hash. Written here rather than taken from swift-crypto, which for this
/// one function made the release binary's code 50% larger and its first build 10 minutes
/// longer (docs/dependencies.md).
enum MD5 {
  /// The digest of `bytes` as 32 lowercase hex digits.
  static func hex(_ bytes: [UInt8]) -> String {
    digest(bytes).map { byte in
      let text = String(byte, radix: 16)
      return byte < 16 ? "0" + text : text
    }.joined()
  }

  static func hex(_ text: String) -> String { hex(Array(text.utf8)) }

  /// Bits each step rotates by: four per round, each used four times.
  private static let shifts: [UInt32] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
  ]

  /// The additive constants: the integer part of |sin(i + 1)| * 2^32.
  private static let constants: [UInt32] = (0..<64).map { i in
    UInt32(truncatingIfNeeded: Int64((abs(sin(Double(i + 1))) * 4_294_967_296).rounded(.down)))
  }

  static func digest(_ bytes: [UInt8]) -> [UInt8] {
    var message = bytes
    let bitLength = UInt64(bytes.count) &* 8
    message.append(0x80)
    while message.count % 64 != 56 { message.append(0) }
    for i in 0..<8 { message.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))) }

    var a0: UInt32 = 0x6745_2301
    var b0: UInt32 = 0xefcd_ab89
    var c0: UInt32 = 0x98ba_dcfe
    var d0: UInt32 = 0x1032_5476
    var words = [UInt32](repeating: 0, count: 16)
    for chunk in stride(from: 0, to: message.count, by: 64) {
      for w in 0..<16 {
        let at = chunk + w * 4
        words[w] =
          UInt32(message[at]) | UInt32(message[at + 1]) << 8 | UInt32(message[at + 2]) << 16
          | UInt32(message[at + 3]) << 24
      }
      var (a, b, c, d) = (a0, b0, c0, d0)
      for i in 0..<64 {
        var f: UInt32
        let g: Int
        switch i {
        case 0..<16:
          f = (b & c) | (~b & d)
          g = i
        case 16..<32:
          f = (d & b) | (~d & c)
          g = (5 * i + 1) % 16
        case 32..<48:
          f = b ^ c ^ d
          g = (3 * i + 5) % 16
        default:
          f = c ^ (b | ~d)
          g = (7 * i) % 16
        }
        f = f &+ a &+ constants[i] &+ words[g]
        a = d
        d = c
        c = b
        b = b &+ (f << shifts[i] | f >> (32 - shifts[i]))
      }
      a0 = a0 &+ a
      b0 = b0 &+ b
      c0 = c0 &+ c
      d0 = d0 &+ d
    }
    return [a0, b0, c0, d0].flatMap { word in
      (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) }
    }
  }
}
