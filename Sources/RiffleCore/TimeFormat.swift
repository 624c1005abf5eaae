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
