import { workerSuite } from './worker.suite';

workerSuite('postgres', 0);
