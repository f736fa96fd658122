import ButtonStore
import Delivery

/// The store is the dispatcher's durable delivery log, as it is.
extension ButtonStore: DeliveryStore {}
