package kafka

// BrokerUnreachable exposes brokerUnreachable to the package's external tests.
var BrokerUnreachable = brokerUnreachable
