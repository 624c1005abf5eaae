/// Colour arithmetic for terminals with fewer than 16 million colours.
enum Palette {
  private static let cubeSteps: [Int] = [0, 95, 135, 175, 215, 255]

  /// The nearest entry of xterm's 256-colour palette (the 6x6x6 cube or the grey ramp).
  static func nearest256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
    func step(_ v: UInt8) -> Int {
      let v = Int(v)
      if v < 48 { return 0 }
      if v < 115 { return 1 }
      return min(5, (v - 35) / 40)
    }
    let (ri, gi, bi) = (step(r), step(g), step(b))
    let cube = 16 + 36 * ri + 6 * gi + bi
    let cubeRGB = (cubeSteps[ri], cubeSteps[gi], cubeSteps[bi])
    let average = (Int(r) + Int(g) + Int(b)) / 3
    let greyIndex = average > 238 ? 23 : max(0, (average - 3) / 10)
    let greyValue = 8 + 10 * greyIndex
    func distance(_ c: (Int, Int, Int)) -> Int {
      let dr = c.0 - Int(r)
      let dg = c.1 - Int(g)
      let db = c.2 - Int(b)
      return dr * dr + dg * dg + db * db
    }
    return distance((greyValue, greyValue, greyValue)) < distance(cubeRGB) ? 232 + greyIndex : cube
  }

  /// The nearest of the 8 basic colours.
  static func nearestBasic(_ c: (UInt8, UInt8, UInt8)) -> Int {
    let r = c.0 > 110 ? 1 : 0
    let g = c.1 > 110 ? 1 : 0
    let b = c.2 > 110 ? 1 : 0
    return r | g << 1 | b << 2
  }

  /// The RGB value of a 256-palette entry.
  static func rgb(of index: UInt8) -> (UInt8, UInt8, UInt8) {
    let i = Int(index)
    if i < 16 {
      let base: [(UInt8, UInt8, UInt8)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
        (0, 205, 205), (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0),
        (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
      ]
      return base[i]
    }
    if i >= 232 {
      let v = UInt8(8 + 10 * (i - 232))
      return (v, v, v)
    }
    let c = i - 16
    return (UInt8(cubeSteps[c / 36]), UInt8(cubeSteps[(c / 6) % 6]), UInt8(cubeSteps[c % 6]))
  }
}
