import Buttons
import Delivery

/// The dispatcher is where the sequencer hands committed deliveries (`Buttons`' `DeliveryQueue`).
extension Dispatcher: DeliveryQueue {}
