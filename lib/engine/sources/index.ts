// Importing this module registers the source types the engine itself holds: files, rate and
// memory (Spark keeps its file, rate and memory sources in sql/core too). Sources that talk to an
// external system live in lib/connectors and register from lib/connectors/index.ts.
export * from './source-registry';
import './files-source';
import './rate-source';
import './memory-source';
