import Buttons
import MicroHTTP

/// MicroHTTP's event stream is what the publisher writes events to (`Buttons`' `EventSink`).
extension EventStream: EventSink {}
