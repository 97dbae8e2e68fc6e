// Importing this module registers every built-in source type. One import line per source module.
export * from './source-registry';
import './postgres-source';
import './redis-stream-source';
import './files-source';
import './rate-source';
import './memory-source';
import './nats-jetstream-source';
import './http-source';
// Connectors outside lib/engine register themselves the same way (they may import client libraries).
import '../../connectors/kafka/kafka-source';
