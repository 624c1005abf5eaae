import Testing

@testable import RiffleCore

@Suite("Formatting time")
struct TimeFormatTests {
  @Test(
    "Seconds show as m:ss below an hour and h:mm:ss from an hour on",
    arguments: [
      (0.0, "0:00"),
      (0.999, "0:00"),
      (1, "0:01"),
      (9.5, "0:09"),
      (59.9, "0:59"),
      (60, "1:00"),
      (61, "1:01"),
      (187.52, "3:07"),
      (600, "10:00"),
      (3599, "59:59"),
      (3599.99, "59:59"),
      (3600, "1:00:00"),
      (3661, "1:01:01"),
      (36_000, "10:00:00"),
      (86_399, "23:59:59"),
    ])
  func formats(seconds: Double, expected: String) {
    #expect(formatTime(seconds) == expected)
  }

  @Test(
    "Negative, NaN and infinite values show as 0:00",
    arguments: [-1, -0.5, -3600, -.infinity, .infinity, .nan, -.nan, -.zero])
  func invalidShowsZero(seconds: Double) {
    #expect(formatTime(seconds) == "0:00")
  }

  @Test(
    "Huge values stop at 99:59:59 instead of overflowing",
    arguments: [359_999, 360_000, 1e12, 1e300, Double.greatestFiniteMagnitude])
  func hugeValuesAreCapped(seconds: Double) {
    #expect(formatTime(seconds) == "99:59:59")
  }

  @Test("Fractions are dropped, never rounded up, so the clock never runs ahead")
  func fractionsTruncate() {
    #expect(formatTime(59.999_999) == "0:59")
    #expect(formatTime(3599.999_999) == "59:59")
    #expect(formatTime(0.000_001) == "0:00")
  }
}
