import Foundation
import RiffleTestSupport

/// Synthesizes songs for the benchmark: a key and tempo, a chord progression played as a pad,
/// a bass line, a melody over the chords, and drums (kick, snare, hi-hat), all from one seed.
/// Mono, 44.1 kHz, -1...1.
enum SongSynth {
  static let rate = 44_100.0

  static func song(seed: UInt64, seconds: Double) -> [Float] {
    var random = SeededRandom(seed: seed)
    let count = Int(seconds * rate)
    var out = [Float](repeating: 0, count: count)
    // Tempo and drum sounds vary continuously, as between real recordings: two songs never
    // share a sample-exact drum loop.
    let bpm = 84 + random.unit() * 66
    let kickPitch = 42 + random.unit() * 25
    let snareLength = 0.1 + random.unit() * 0.1
    let beat = 60 / bpm
    let root = 45 + random.int(0...11)  // MIDI note of the key (A2...G#3)
    let minor = random.int(0...1) == 1
    let scale = minor ? [0, 2, 3, 5, 7, 8, 10] : [0, 2, 4, 5, 7, 9, 11]
    let progression = (0..<4).map { _ in random.int(0...6) }
    let melodyTimbre = random.int(0...2)
    let beats = Int(seconds / beat) + 1

    func pitch(_ degree: Int, octave: Int) -> Double {
      let note = root + 12 * octave + scale[((degree % 7) + 7) % 7] + 12 * (degree / 7)
      return 440 * pow(2, Double(note - 69) / 12)
    }

    // Chords: a bar (4 beats) each, three notes, soft attack.
    for bar in 0..<(beats / 4 + 1) {
      let degree = progression[bar % 4]
      for voice in [0, 2, 4] {
        add(
          &out, tone: pitch(degree + voice, octave: 1), start: Double(bar * 4) * beat,
          length: 4 * beat, gain: 0.07, harmonics: [1, 0.5, 0.25], attack: 0.08)
      }
      // Bass on beats 1 and 3.
      for half in 0..<2 {
        add(
          &out, tone: pitch(degree, octave: 0) / 2, start: Double(bar * 4 + half * 2) * beat,
          length: 1.8 * beat, gain: 0.18, harmonics: [1, 0.6, 0.3, 0.15], attack: 0.01)
      }
    }
    // Melody: eighth notes and quarter notes wandering over the scale, with rests.
    var t = 0.0
    var degree = random.int(0...6)
    while t < seconds {
      let length = random.int(0...2) == 0 ? beat : beat / 2
      if random.int(0...5) != 0 {
        degree = max(-3, min(12, degree + random.int(-3...3)))
        let harmonics: [Float] =
          melodyTimbre == 0
          ? [1, 0.3] : melodyTimbre == 1 ? [1, 0, 0.33, 0, 0.2] : [1, 0.5, 0.33, 0.25]
        add(
          &out, tone: pitch(degree, octave: 2), start: t, length: length * 0.9, gain: 0.16,
          harmonics: harmonics, attack: 0.01)
      }
      t += length
    }
    // Drums: kick on 1 and 3, snare on 2 and 4, hi-hat on eighths.
    for b in 0..<beats {
      let start = Double(b) * beat
      if b % 2 == 0 {
        kick(&out, at: start, pitch: kickPitch)
      } else {
        noiseHit(&out, at: start, length: snareLength, gain: 0.18, random: &random, bright: false)
      }
      noiseHit(&out, at: start, length: 0.04, gain: 0.05, random: &random, bright: true)
      noiseHit(&out, at: start + beat / 2, length: 0.04, gain: 0.04, random: &random, bright: true)
    }
    return out
  }

  /// A note with some harmonics and an attack-decay envelope.
  static func add(
    _ out: inout [Float], tone: Double, start: Double, length: Double, gain: Float,
    harmonics: [Float], attack: Double
  ) {
    let first = Int(start * rate)
    let n = Int(length * rate)
    guard first < out.count else { return }
    let last = min(out.count, first + n)
    var phases = [Double](repeating: 0, count: harmonics.count)
    let steps = harmonics.indices.map { 2 * Double.pi * tone * Double($0 + 1) / rate }
    for i in first..<last {
      let time = Double(i - first) / rate
      let envelope = Float(min(1, time / attack) * exp(-2.5 * time / length))
      var sample: Float = 0
      for h in harmonics.indices where harmonics[h] != 0 && tone * Double(h + 1) < 10_000 {
        sample += harmonics[h] * Float(sin(phases[h]))
        phases[h] += steps[h]
      }
      out[i] += gain * envelope * sample
    }
  }

  static func kick(_ out: inout [Float], at start: Double, pitch: Double) {
    let first = Int(start * rate)
    guard first < out.count else { return }
    var phase = 0.0
    for i in first..<min(out.count, first + Int(0.25 * rate)) {
      let time = Double(i - first) / rate
      phase += 2 * Double.pi * (pitch + 100 * exp(-time * 30)) / rate
      out[i] += 0.5 * Float(exp(-time * 12) * sin(phase))
    }
  }

  static func noiseHit(
    _ out: inout [Float], at start: Double, length: Double, gain: Float,
    random: inout SeededRandom, bright: Bool
  ) {
    let first = Int(start * rate)
    guard first < out.count else { return }
    var previous: Float = 0
    for i in first..<min(out.count, first + Int(length * rate)) {
      let time = Double(i - first) / rate
      let white = random.signed()
      // A first difference brightens (hi-hat); a one-pole average darkens (snare body).
      let shaped = bright ? white - previous : 0.5 * (white + previous)
      previous = white
      out[i] += gain * Float(exp(-time * 6 / length)) * shaped
    }
  }
}

/// Noise to add to a query at a chosen signal-to-noise ratio.
enum Noise {
  case white
  case pink

  func samples(_ count: Int, random: inout SeededRandom) -> [Float] {
    switch self {
    case .white:
      return (0..<count).map { _ in random.signed() }
    case .pink:
      // Paul Kellet's economy pink filter over white noise: -3 dB per octave.
      var b0: Float = 0
      var b1: Float = 0
      var b2: Float = 0
      return (0..<count).map { _ in
        let white = random.signed()
        b0 = 0.99765 * b0 + white * 0.0990460
        b1 = 0.96300 * b1 + white * 0.2965164
        b2 = 0.57000 * b2 + white * 1.0526913
        return b0 + b1 + b2 + white * 0.1848
      }
    }
  }

  /// `signal` with this noise added so that signal power / noise power is `snr` dB.
  func add(to signal: [Float], snr: Double, random: inout SeededRandom) -> [Float] {
    let noise = samples(signal.count, random: &random)
    func power(_ x: [Float]) -> Double {
      x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))
    }
    let scale = Float((power(signal) / (power(noise) * pow(10, snr / 10))).squareRoot())
    return zip(signal, noise).map { $0 + scale * $1 }
  }
}
