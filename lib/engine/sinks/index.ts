// Importing this module registers every built-in sink type. One import line per sink module.
export * from './sink-registry';
import './postgres-sink';
import './postgres-upsert-sink';
import './postgres-replace-sink';
import './redis-stream-sink';
import './files-sink';
import './console-sink';
import './memory-sink';
import './webhook-sink';
// Connectors outside lib/engine register themselves the same way (they may import client libraries).
import '../../connectors/kafka/kafka-sink';
