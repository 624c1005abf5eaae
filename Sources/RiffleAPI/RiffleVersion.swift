/// The version Riffle reports in `--version` and its User-Agent.
public enum RiffleVersion {
  public static let string = "0.1.0"
}
