/// The Prometheus text exposition (`GET /metrics`), one metric family at a time: its
/// `# HELP` and `# TYPE` lines, then its samples. The server's metrics and each bridge's write
/// into one.
public struct MetricsText {
    public enum Kind: String {
        case counter, gauge, histogram
    }

    public private(set) var text = ""

    public init() {}

    /// A family of one sample without labels.
    public mutating func family(_ name: String, _ kind: Kind, _ help: String, _ value: some CustomStringConvertible) {
        family(name, kind, help, samples: [("", value.description)])
    }

    /// A family of samples, each its labels (`kind="webhook",outcome="ok"`, or "" for none) and value.
    public mutating func family(_ name: String, _ kind: Kind, _ help: String, samples: [(labels: String, value: String)]) {
        header(name, kind, help)
        for sample in samples { self.sample(name, sample.labels, sample.value) }
    }

    /// A histogram: cumulative counts under each upper bound, then `+Inf`, the sum and the count.
    public mutating func histogram(_ name: String, _ help: String, bounds: [Double], buckets: [UInt64], sum: Double, count: UInt64) {
        header(name, .histogram, help)
        var cumulative: UInt64 = 0
        for (bound, inBucket) in zip(bounds, buckets) {
            cumulative += inBucket
            sample(name + "_bucket", "le=\"\(bound)\"", "\(cumulative)")
        }
        sample(name + "_bucket", "le=\"+Inf\"", "\(count)")
        sample(name + "_sum", "", "\(sum)")
        sample(name + "_count", "", "\(count)")
    }

    private mutating func header(_ name: String, _ kind: Kind, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
    }

    private mutating func sample(_ name: String, _ labels: String, _ value: String) {
        text += labels.isEmpty ? "\(name) \(value)\n" : "\(name){\(labels)} \(value)\n"
    }
}
