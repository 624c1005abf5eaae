import Foundation
import RiffleAudio
import Testing

@Suite("Audio outputs")
struct AudioOutputTests {
  /// `seconds` of silence in the output format.
  private func silence(seconds: Double) -> [UInt8] {
    [UInt8](
      repeating: 0, count: Int(seconds * Double(PCMFormat.sampleRate)) * PCMFormat.bytesPerFrame)
  }

  @Test("The null output keeps real time: a second written is a second queued, less the lead")
  func nullPaces() throws {
    let output = try AudioDriverChoice.null.open()
    #expect(output.driverName == "null")
    let start = Date()
    let wait = silence(seconds: 1).withUnsafeBytes { output.write($0) }
    #expect(abs(wait - (1 - PacingClock.lead)) < 0.1, "asked to wait \(wait) s")
    let queued = output.queuedSeconds(at: start.addingTimeInterval(0.5))
    #expect(abs(queued - 0.5) < 0.1, "\(queued) s queued half a second in")
    output.close()
    #expect(
      silence(seconds: 1).withUnsafeBytes { output.write($0) } == 0, "closed: nothing to wait for")
  }

  @Test("--audio takes auto, pulse, alsa, null and wav:PATH, and nothing else")
  func choices() {
    #expect(AudioDriverChoice(argument: "null") == .null)
    #expect(AudioDriverChoice(argument: "wav:/tmp/x.wav") == .wav("/tmp/x.wav"))
    #expect(AudioDriverChoice(argument: "wav:") == nil)
    #expect(AudioDriverChoice(argument: "oss") == nil)
  }
}
