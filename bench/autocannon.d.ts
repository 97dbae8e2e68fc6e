// autocannon ships no types; only what the API bench uses is declared.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';
  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      headers?: Record<string, string>;
    }
    interface Result {
      latency: { p50: number; p90: number; p97_5: number; p99: number; average: number; max: number };
      requests: { average: number; total: number };
      errors: number;
      non2xx: number;
    }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  function autocannon(opts: autocannon.Options, cb: (err: Error | null, result: autocannon.Result) => void): EventEmitter;
  export default autocannon;
}
