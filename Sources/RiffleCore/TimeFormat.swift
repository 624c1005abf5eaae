/// Formats seconds as the player shows them: "m:ss", or "h:mm:ss" from one hour on.
///
/// Negative, NaN and infinite values show as "0:00"; fractions are dropped, not rounded, so
/// the clock never runs ahead of the sound.
public func formatTime(_ seconds: Double) -> String {
  guard seconds.isFinite, seconds > 0 else { return "0:00" }
  let whole = Int(min(seconds, 359_999))
  let hours = whole / 3600
  let minutes = (whole % 3600) / 60
  let secs = whole % 60
  let ss = secs < 10 ? "0\(secs)" : "\(secs)"
  if hours > 0 {
    let mm = minutes < 10 ? "0\(minutes)" : "\(minutes)"
    return "\(hours):\(mm):\(ss)"
  }
  return "\(minutes):\(ss)"
}

/// A day as the band shows it ("3 Mar 2026"), from seconds since 1970 in UTC as feeds give it
/// (the proleptic Gregorian calendar, days counted from 1 March so leap days come last).
public func formatDay(secondsSince1970 seconds: Double) -> String {
  guard seconds.isFinite, abs(seconds) < 1e12 else { return "" }
  let days = Int((seconds / 86_400).rounded(.down)) + 719_468
  let era = (days >= 0 ? days : days - 146_096) / 146_097
  let dayOfEra = days - era * 146_097
  let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
  let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
  let shifted = (5 * dayOfYear + 2) / 153
  let day = dayOfYear - (153 * shifted + 2) / 5 + 1
  let month = shifted < 10 ? shifted + 3 : shifted - 9
  let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
  return "\(day) \(names[month - 1]) \(year)"
}
