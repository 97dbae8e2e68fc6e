// Importing this module registers the sink types the engine itself holds: files, console and
// memory. Sinks that talk to an external system live in lib/connectors and register from
// lib/connectors/index.ts.
export * from './sink-registry';
import './files-sink';
import './console-sink';
import './memory-sink';
