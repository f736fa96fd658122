import Testing

@testable import ButtonServer

/// The panel's URL as buttond prints and publishes it.
@Suite struct PanelURLTests {
    /// The generated token is printed with the panel's URL: one a browser can open (it was
    /// http:// under TLS, and 0.0.0.0).
    @Test func thePanelURLIsOneABrowserCanOpen() {
        var options = ServeOptions()
        options.host = "0.0.0.0"
        options.tlsSelfSigned = true
        let url = options.panelURL(port: 8443)
        #expect(url.hasPrefix("https://") && url.hasSuffix(":8443/") && !url.contains("0.0.0.0"), "\(url)")
        options.tlsSelfSigned = false
        options.host = "::1"
        #expect(options.panelURL(port: 8080) == "http://[::1]:8080/")
        #expect(options.url(host: "::", port: 1) == "http://[::]:1/")
    }
}
