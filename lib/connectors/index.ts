/**
 * Importing this module registers every connector: the sources, sinks, static-table readers and
 * checkpoint schemes that talk to an external system through its client library. The engine
 * (lib/engine) holds only the contracts, the registries and the in-process built-ins (files,
 * rate, memory, console), and may not import this folder (eslint.config.js): a program that runs
 * or validates jobs imports this once at its entry (the worker, the CLI, the server's services).
 * One import line per connector.
 */
import './postgres/index';
import './redis/index';
import './nats/index';
import './http/index';
import './s3/index';
import './kafka/index';

export { guardedRedisConnector } from './redis/guarded-redis';
