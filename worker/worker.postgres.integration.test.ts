import { workerSuite } from './testing/worker.suite';

workerSuite('postgres', 0);
