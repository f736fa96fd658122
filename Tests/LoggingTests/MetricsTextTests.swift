import Logging
import Testing

/// The exposition Prometheus reads: exact bytes, since a scraper parses them.
@Suite struct MetricsTextTests {
    @Test func aFamilyIsItsHelpItsTypeAndItsSamples() {
        var text = MetricsText()
        text.family("buttond_buttons", .gauge, "Buttons registered.", 3)
        text.family(
            "buttond_deliveries_total", .counter, "Delivery attempts.",
            samples: [("kind=\"webhook\",outcome=\"ok\"", "2"), ("kind=\"script\",outcome=\"exit_code\"", "1")])
        text.family("buttond_empty_total", .counter, "Nothing yet.", samples: [])
        #expect(
            text.text == """
                # HELP buttond_buttons Buttons registered.
                # TYPE buttond_buttons gauge
                buttond_buttons 3
                # HELP buttond_deliveries_total Delivery attempts.
                # TYPE buttond_deliveries_total counter
                buttond_deliveries_total{kind="webhook",outcome="ok"} 2
                buttond_deliveries_total{kind="script",outcome="exit_code"} 1
                # HELP buttond_empty_total Nothing yet.
                # TYPE buttond_empty_total counter

                """)
    }

    @Test func aHistogramCountsCumulativelyUnderEachBound() {
        var text = MetricsText()
        text.histogram("d_seconds", "Time.", bounds: [0.1, 1], buckets: [2, 3], sum: 4.5, count: 6)
        #expect(
            text.text == """
                # HELP d_seconds Time.
                # TYPE d_seconds histogram
                d_seconds_bucket{le="0.1"} 2
                d_seconds_bucket{le="1.0"} 5
                d_seconds_bucket{le="+Inf"} 6
                d_seconds_sum 4.5
                d_seconds_count 6

                """)
    }
}
