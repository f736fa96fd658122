/// A bridge flag that cannot work (an OSC port taken, a feedback URL that is not OSC), said
/// as `buttond serve` prints it before it stops.
package struct BridgeError: Error, CustomStringConvertible {
    package var description: String
}
