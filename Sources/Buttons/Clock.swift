/// The sequencer's clock is Platform's one `Clock`, made by the composition root; re-exported
/// so the domain's files, and what uses the domain, name it without importing Platform.
@_exported import struct Platform.Clock
