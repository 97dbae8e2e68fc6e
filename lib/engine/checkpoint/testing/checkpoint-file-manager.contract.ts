/**
 * The CheckpointFileManager contract suite. Every implementation calls it from its own test file:
 *
 *   checkpointFileManagerContract('local', async () => {
 *     const dir = await mkdtemp(...);
 *     return { fm: new LocalCheckpointFileManager(dir), cleanup: () => rm(dir, { recursive: true }) };
 *   });
 *
 * It checks the properties the checkpoint protocol relies on: whole-file visibility,
 * create-if-absent with exactly one winner among concurrent writers, FileNotFoundError on a
 * missing read, sorted child listing that hides nothing the engine wrote, idempotent delete.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FileAlreadyExistsError, FileNotFoundError, type CheckpointFileManager } from '../checkpoint-file-manager';

export interface ContractFixture {
  fm: CheckpointFileManager;
  cleanup?: () => Promise<void>;
}

export function checkpointFileManagerContract(name: string, make: () => Promise<ContractFixture>): void {
  describe(`CheckpointFileManager contract: ${name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    const fresh = async () => {
      const f = await make();
      if (f.cleanup) cleanups.push(f.cleanup);
      return f.fm;
    };
    afterEach(async () => {
      while (cleanups.length) await cleanups.pop()!();
    });

    it('reads back exactly what createAtomic wrote, strings and bytes', async () => {
      const fm = await fresh();
      await fm.createAtomic('offsets/0', 'v1\n{}\n{"logOffset":0}');
      const bytes = new Uint8Array([0, 1, 2, 250, 255]);
      await fm.createAtomic('state/0/0/1.delta', bytes);
      expect((await fm.read('offsets/0')).toString('utf8')).toBe('v1\n{}\n{"logOffset":0}');
      expect([...(await fm.read('state/0/0/1.delta'))]).toEqual([...bytes]);
      expect(await fm.exists('offsets/0')).toBe(true);
      expect(await fm.exists('offsets/1')).toBe(false);
    });

    it('refuses to overwrite without overwrite: true, and keeps the first content', async () => {
      const fm = await fresh();
      await fm.createAtomic('commits/3', 'first');
      await expect(fm.createAtomic('commits/3', 'second')).rejects.toBeInstanceOf(FileAlreadyExistsError);
      expect((await fm.read('commits/3')).toString()).toBe('first');
      await fm.createAtomic('commits/3', 'third', { overwrite: true });
      expect((await fm.read('commits/3')).toString()).toBe('third');
    });

    it('lets exactly one of many concurrent create-if-absent writers win', async () => {
      const fm = await fresh();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => fm.createAtomic('offsets/7', `writer-${i}`)),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(7);
      for (const l of lost) expect(l.reason).toBeInstanceOf(FileAlreadyExistsError);
      const winner = results.findIndex((r) => r.status === 'fulfilled');
      expect((await fm.read('offsets/7')).toString()).toBe(`writer-${winner}`);
      expect(await fm.list('offsets')).toEqual(['7']);
    });

    it('throws FileNotFoundError reading a missing file', async () => {
      const fm = await fresh();
      await expect(fm.read('metadata')).rejects.toBeInstanceOf(FileNotFoundError);
    });

    it('lists direct children sorted, a missing dir as []', async () => {
      const fm = await fresh();
      expect(await fm.list('offsets')).toEqual([]);
      for (const n of ['10', '2', '1']) await fm.createAtomic(`offsets/${n}`, n);
      await fm.createAtomic('offsets/sub/x', 'x');
      await fm.createAtomic('commits/1', '1');
      expect(await fm.list('offsets')).toEqual(['1', '10', '2', 'sub']);
      expect(await fm.list('')).toEqual(['commits', 'offsets']);
    });

    it('deletes files (missing is fine) and reports sizes', async () => {
      const fm = await fresh();
      await fm.createAtomic('a/b', 'hello');
      await fm.createAtomic('a/c', 'hi');
      if (fm.size) {
        expect(await fm.size('a/b')).toBe(5);
        expect(await fm.size('a')).toBe(7);
      }
      await fm.delete('a/b');
      await fm.delete('a/b');
      await fm.delete('never/was');
      expect(await fm.exists('a/b')).toBe(false);
      expect(await fm.list('a')).toEqual(['c']);
    });

    it('round-trips any content under any simple name (property)', async () => {
      const fm = await fresh();
      let i = 0;
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }), async (s, bytes) => {
          const n = i++;
          await fm.createAtomic(`p/s${n}`, s);
          await fm.createAtomic(`p/b${n}`, bytes);
          expect((await fm.read(`p/s${n}`)).toString('utf8')).toBe(Buffer.from(s, 'utf8').toString('utf8'));
          expect(Buffer.compare(await fm.read(`p/b${n}`), Buffer.from(bytes))).toBe(0);
        }),
        { numRuns: 30, seed: 42 },
      );
    });
  });
}
