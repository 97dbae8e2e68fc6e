/**
 * The engine process of one run: MicroBatchExecution with its source, sink and state, alone in a
 * Node process whose heap is the run's memory limit (engine-host.ts forks it). Whatever the query
 * does to this process (a heap exhausted, a stray exception), the worker and its other runs go on.
 *
 * Everything that needs the database stays in the worker: fence() and progress are calls back to
 * the host over IPC, awaited exactly as the in-process callbacks were. If the worker goes away
 * (killed), the IPC channel closes and this process exits at once: it cannot fence, so it must not
 * write. Terminal signals (Ctrl-C reaches the whole process group) are ignored here: the worker
 * decides how its runs stop (gracefully, by a `stop` request).
 */
import '@/lib/connectors'; // registers the connectors' source, sink and checkpoint types
import { checkpointFileManagerFor, MicroBatchExecution, setOutboundPolicy } from '@/lib/engine';
import { ClusterTaskScheduler } from './cluster-task-scheduler';
import { plain, serializeError, type EngineToHost, type HostToEngine, type SerializedError } from './engine-protocol';
import type { TaskOutcome, TaskPayload } from './shuffle';

const send = (m: EngineToHost) => {
  if (process.connected) process.send!(m);
};

const calls = new Map<number, { resolve: (value: unknown) => void; reject: (e: Error) => void }>();
let nextCall = 0;

function call(m: { fn: 'fence' } | { fn: 'progress'; progress: unknown }): Promise<void>;
function call(m: { fn: 'submitTasks'; tasks: TaskPayload[] }): Promise<TaskOutcome[]>;
function call(m: { fn: 'fence' } | { fn: 'progress'; progress: unknown } | { fn: 'submitTasks'; tasks: TaskPayload[] }): Promise<unknown> {
  const id = nextCall++;
  return new Promise<unknown>((resolve, reject) => {
    calls.set(id, { resolve, reject });
    send({ t: 'call', id, ...m } as EngineToHost);
  });
}

function hostError(s: SerializedError): Error {
  return Object.assign(new Error(s.message), { name: s.name, code: s.code, details: s.details, hostErrorId: s.hostErrorId });
}

let exec: MicroBatchExecution | undefined;

process.on('message', (m: HostToEngine) => {
  if (m.t === 'init') {
    // Every connection this run opens (sinks, sources, S3 checkpoints) obeys the worker's policy.
    if (m.init.outbound) setOutboundPolicy(m.init.outbound);
    const spec = m.init.spec;
    const taskScheduler = m.init.cluster
      ? new ClusterTaskScheduler({ spec, checkpoint: checkpointFileManagerFor(spec.checkpointLocation), queryId: () => exec!.id, submit: (tasks) => call({ fn: 'submitTasks', tasks }) })
      : undefined;
    exec = new MicroBatchExecution({
      taskScheduler,
      spec: m.init.spec,
      runId: m.init.runId,
      crash: m.init.crash,
      stateLocalDir: m.init.stateLocalDir,
      currentUser: m.init.currentUser,
      fence: () => call({ fn: 'fence' }),
      // The batch's tasks ran on the workers: its progress says where (the dashboard's batch detail).
      onProgress: (progress) => {
        const tasks = taskScheduler?.takeTasks() ?? [];
        return call({ fn: 'progress', progress: tasks.length ? { ...progress, tasks } : progress });
      },
      onQueryIdle: (e) => send({ t: 'idle', timestampMs: e.timestampMs }),
      log: (event) => send({ t: 'log', event: plain(event) as typeof event }),
    });
  } else if (m.t === 'reply') {
    const c = calls.get(m.id);
    calls.delete(m.id);
    if (m.error) c?.reject(hostError(m.error));
    else c?.resolve(m.value);
  } else if (m.t === 'request') {
    const e = exec!;
    const done = m.command === 'start' ? e.start() : m.command === 'run' ? e.run() : e.stop();
    done.then(
      () => send({ t: 'result', id: m.id, queryId: e.id }),
      (err) => send({ t: 'result', id: m.id, error: serializeError(err) }),
    );
  }
});

const fatal = (e: unknown) => {
  if (!process.connected) process.exit(1);
  process.send!({ t: 'fatal', error: serializeError(e) } satisfies EngineToHost, () => process.exit(1));
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);
process.on('disconnect', () => process.exit(1));
for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => undefined);
