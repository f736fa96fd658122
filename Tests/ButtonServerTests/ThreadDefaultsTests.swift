import Foundation
import Testing
import TestSupport

/// The threads `buttond serve` runs, seen from outside: /proc/PID/task, as `top -H` shows them.
@Suite struct ThreadDefaultsTests {
    /// Each thread's name and nice value.
    static func threads(of pid: pid_t) -> [(name: String, nice: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { tid in
            guard let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // Fields after the name: state is 3rd in all, nice the 19th.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return (name.trimmingCharacters(in: .whitespacesAndNewlines), Int(fields[16]) ?? 0)
        }
    }

    /// The CPUs this test may run on, as `nproc` counts them (its affinity).
    static var usableCPUs: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return 1 }
        return line.dropFirst("Cpus_allowed_list:".count).split(separator: ",").reduce(0) { count, range in
            let ends = range.trimmingCharacters(in: .whitespaces).split(separator: "-").compactMap { Int($0) }
            return count + (ends.count == 2 ? ends[1] - ends[0] + 1 : 1)
        }
    }

    /// The process's threads named `name`, once there are `expected` of them or 5 s have passed:
    /// a thread has its name only once it has run (libmicrohttpd's workers name themselves), and
    /// on a loaded machine one may not have run yet when the server listens.
    static func threads(named name: String, of pid: pid_t, expected: Int) -> Int {
        let deadline = Date().addingTimeInterval(5)
        var count = threads(of: pid).filter { $0.name == name }.count
        while count < expected, Date() < deadline {
            usleep(20_000)
            count = threads(of: pid).filter { $0.name == name }.count
        }
        return count
    }

    /// By default one HTTP worker a usable CPU, at least two; `--threads` sets the count.
    @Test func workersAreOneACPUAtLeastTwoUnlessTold() throws {
        let dir = NSTemporaryDirectory() + "buttond-threads-\(UUID().uuidString)"
        let server = try ServerProcess(dataDir: dir)
        let expected = min(64, max(2, Self.usableCPUs))
        let workers = Self.threads(named: "MHD-worker", of: server.pid, expected: expected)
        #expect(workers == expected, "\(Self.threads(of: server.pid).map(\.name))")
        _ = server.stop()
        let told = try ServerProcess(dataDir: dir, arguments: ["--threads", "3"])
        #expect(Self.threads(named: "MHD-worker", of: told.pid, expected: 3) == 3)
        _ = told.stop()
    }

    /// What delivers (the dispatcher, the delivery log's writer, the HTTP client's loops) runs
    /// below the threads that take input: a press is answered first. The sequencer runs above
    /// the request threads, so that a timer is on time beside other programs' busy threads.
    @Test func deliveryThreadsYieldToInput() throws {
        let dir = NSTemporaryDirectory() + "buttond-nice-\(UUID().uuidString)"
        let server = try ServerProcess(dataDir: dir)
        defer { _ = server.stop() }
        // Each thread lowers itself once it runs: given a moment after the server listens.
        let names: Set = ["buttond.dispatc", "buttond.record", "buttond.http", "buttond.http1"]
        var threads = Self.threads(of: server.pid)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, threads.filter({ names.contains($0.name) && $0.nice == 5 }).count < names.count {
            usleep(20_000)
            threads = Self.threads(of: server.pid)
        }
        let delivering = threads.filter { names.contains($0.name) }
        #expect(delivering.count == 4, "\(threads.map(\.name))")
        #expect(delivering.allSatisfy { $0.nice == 5 }, "\(delivering)")
        #expect(threads.filter { $0.name == "MHD-worker" }.allSatisfy { $0.nice == 0 })
        let sequencer = threads.filter { $0.name == "buttond.sequenc" }
        // 0 where the process may not raise a thread's priority (no CAP_SYS_NICE).
        #expect(sequencer.count == 1 && sequencer.allSatisfy { $0.nice == -10 || $0.nice == 0 }, "\(sequencer)")
    }
}
