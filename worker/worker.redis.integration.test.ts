import { workerSuite } from './testing/worker.suite';

// Redis database 9 is this suite's own (flushed at setup).
workerSuite('redis', 9);
