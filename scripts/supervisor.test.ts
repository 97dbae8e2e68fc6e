// The supervision npm start uses for PostgreSQL, the dashboard and the worker, over real child
// processes: a killed one is restarted after the back-off, with the lines a person needs; one
// that keeps failing right after starting is given up; stop() in a back-off wait, or while a
// restart is coming up, leaves nothing running; the first start's failure is not retried.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../lib/testing/wait-for';
import { supervise, supervisedChild, type Supervised } from './supervisor';

const spawned: number[] = [];
afterAll(() => {
  for (const pid of spawned) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A real process running `code`, as the supervisor sees it. */
function child(code: string): Supervised {
  const c = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  spawned.push(c.pid!);
  return supervisedChild(c, () => 'its last lines are in test.log');
}
const sleeper = () => child('setInterval(() => {}, 1000)');

/** Polls often: a back-off here is tens of milliseconds. */
const until = <T>(what: string, fn: () => T | undefined | null | false) => waitFor(what, fn, 30_000, 20);

describe('supervise', () => {
  it('restarts a process that was killed after the back-off, saying so, and stop() stops the new one', async () => {
    const lines: string[] = [];
    const s = supervise({ name: 'the sleeper', log: (m) => lines.push(m), start: async () => sleeper(), initialBackoffMs: 50, whileDown: 'nothing answers' });
    await s.started;
    const first = s.pid()!;
    process.kill(first, 'SIGKILL');
    const second = await until('a new process', () => s.pid() !== undefined && s.pid() !== first && s.pid());
    expect(lines).toEqual([
      `the sleeper (pid ${first}) died: killed by SIGKILL; its last lines are in test.log`,
      'restarting the sleeper in 0.05s (attempt 1); nothing answers',
      `the sleeper is back (pid ${second})`,
    ]);
    expect(alive(second)).toBe(true);
    await s.stop();
    expect(alive(second)).toBe(false);
  });

  it('doubles the back-off per failure in a row, up to the maximum; one that stayed up starts it over', async () => {
    const lines: string[] = [];
    const s = supervise({ name: 'it', log: (m) => lines.push(m), start: async () => sleeper(), initialBackoffMs: 20, maxBackoffMs: 50, stableMs: 2_000 });
    await s.started;
    for (let i = 0; i < 3; i += 1) {
      const pid = s.pid()!;
      process.kill(pid, 'SIGKILL');
      await until('a new process', () => s.pid() !== undefined && s.pid() !== pid);
    }
    expect(lines.filter((l) => l.startsWith('restarting'))).toEqual(['restarting it in 0.02s (attempt 1)', 'restarting it in 0.04s (attempt 2)', 'restarting it in 0.05s (attempt 3)']);
    // Up longer than stableMs: the next death is the first of a new series.
    const pid = s.pid()!;
    await new Promise((r) => setTimeout(r, 2_100));
    process.kill(pid, 'SIGKILL');
    await until('a new process', () => s.pid() !== undefined && s.pid() !== pid);
    expect(lines.filter((l) => l.startsWith('restarting')).at(-1)).toBe('restarting it in 0.02s (attempt 1)');
    await s.stop();
  });

  it('gives up on a process that keeps failing right after starting, after maxRestarts restarts in a row', async () => {
    const lines: string[] = [];
    let starts = 0;
    let gaveUp = 0;
    const s = supervise({
      name: 'the crasher',
      log: (m) => lines.push(m),
      start: async () => {
        starts += 1;
        // Dies at once, as a server whose port is taken; the third start does not even start.
        if (starts === 3) throw new Error('no such file');
        return child('process.exit(3)');
      },
      initialBackoffMs: 10,
      maxRestarts: 3,
      giveUpHint: 'Check its port.',
      onGiveUp: () => (gaveUp += 1),
    });
    await s.started;
    await until('giving up', () => gaveUp > 0);
    expect(starts).toBe(4); // the first and three restarts
    expect(lines.filter((l) => /died: exit code 3/.test(l))).toHaveLength(3);
    expect(lines).toContain('the crasher did not restart: no such file');
    expect(lines.at(-1)).toBe('the crasher failed 4 times in a row, each within 60s of starting: giving up. Check its port.');
    expect(s.pid()).toBeUndefined();
    await s.stop();
    expect(gaveUp).toBe(1);
    expect(starts).toBe(4);
  });

  it('stop() in a back-off wait cancels the restart', async () => {
    const lines: string[] = [];
    let starts = 0;
    const s = supervise({ name: 'it', log: (m) => lines.push(m), start: async () => (starts += 1, sleeper()), initialBackoffMs: 600_000, maxBackoffMs: 600_000 });
    await s.started;
    process.kill(s.pid()!, 'SIGKILL');
    await until('the back-off', () => lines.some((l) => l.startsWith('restarting it in 600s')));
    await s.stop(); // does not wait out the 600 s (the test's own timeout is far shorter)
    expect(starts).toBe(1);
    expect(s.pid()).toBeUndefined();
  });

  it('stop() while a restart is coming up stops the process it brings up', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let starts = 0;
    let brought: Supervised | undefined;
    const s = supervise({
      name: 'it',
      log: () => undefined,
      initialBackoffMs: 10,
      start: async (signal) => {
        starts += 1;
        if (starts === 1) return sleeper();
        await gate;
        expect(signal.aborted).toBe(true);
        return (brought = sleeper());
      },
    });
    await s.started;
    process.kill(s.pid()!, 'SIGKILL');
    await until('the restart under way', () => starts === 2);
    const stopped = s.stop();
    release();
    await stopped;
    expect(brought && alive(brought.pid)).toBe(false);
  });

  it('does not retry a first start that failed: started rejects', async () => {
    let starts = 0;
    const s = supervise({
      name: 'it',
      log: () => undefined,
      initialBackoffMs: 10,
      start: async () => {
        starts += 1;
        throw new Error('port taken');
      },
    });
    await expect(s.started).rejects.toThrow('port taken');
    await s.stop();
    expect(starts).toBe(1);
  });
});
