// NATS JetStream (@nats-io/*): the nats-jetstream source.
import './nats-jetstream-source';
