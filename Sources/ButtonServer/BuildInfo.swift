/// The version `buttond version` prints and webhooks send as their user agent.
public enum BuildInfo {
    public static let version = "0.1.0"
}
