// Redis Streams (ioredis): the redis-stream source and sink.
import './redis-stream-source';
import './redis-stream-sink';
