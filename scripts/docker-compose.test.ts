// No Docker engine runs on this machine, so the compose file is kept honest by parsing it and
// checking the wiring the README promises.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseEnv } from '../lib/env';

const compose = parse(readFileSync(path.resolve(import.meta.dirname, '../docker-compose.yml'), 'utf8'));
const services = compose.services as Record<string, { image: string; environment?: Record<string, string>; ports?: string[]; depends_on?: unknown; command?: unknown; volumes?: string[] }>;

describe('docker-compose.yml', () => {
  it('has postgres, redis, kafka, app and worker services', () => {
    expect(Object.keys(services).sort()).toEqual(['app', 'kafka', 'postgres', 'redis', 'worker']);
    expect(services.postgres.image).toMatch(/^postgres:/);
    expect(services.redis.image).toMatch(/^redis:/);
  });

  it('points app and worker at the compose postgres and redis, with a valid configuration', () => {
    const pgEnv = services.postgres.environment!;
    for (const name of ['app', 'worker']) {
      const e = services[name].environment!;
      const db = new URL(e.DATABASE_URL);
      expect(db.hostname).toBe('postgres');
      expect(db.username).toBe(pgEnv.POSTGRES_USER);
      expect(decodeURIComponent(db.password)).toBe(pgEnv.POSTGRES_PASSWORD);
      expect(db.pathname).toBe(`/${pgEnv.POSTGRES_DB}`);
      expect(new URL(e.REDIS_URL).hostname).toBe('redis');
      // The same validation the processes run at start accepts it.
      expect(parseEnv(e).queueBackend).toBe('redis');
    }
  });

  it('shares one checkpoint volume between the app and every worker', () => {
    const mount = (s: string) => services[s].volumes!.find((v) => v.endsWith(':/checkpoints'));
    expect(mount('app')).toBeDefined();
    expect(mount('worker')).toBe(mount('app'));
    expect(services.app.environment!.WEIR_CHECKPOINT_ROOT).toBe('/checkpoints');
    expect(services.worker.environment!.WEIR_CHECKPOINT_ROOT).toBe('/checkpoints');
    expect(Object.keys(compose.volumes)).toContain('checkpoints');
  });

  it('publishes the dashboard and runs the worker entry point', () => {
    expect(services.app.ports).toContain('3000:3000');
    expect(services.app.environment!.HOST).toBe('0.0.0.0');
    expect(JSON.stringify(services.worker.command)).toContain('worker/main.ts');
    expect(JSON.stringify(services.app.command)).toContain('scripts/migrate.ts');
  });

  it('runs a single-node KRaft Kafka whose listeners match what it advertises', () => {
    const k = services.kafka;
    expect(k.image).toMatch(/^apache\/kafka:/);
    const e = k.environment!;
    expect(e.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    const listeners = new Map(e.KAFKA_LISTENERS.split(',').map((l) => [l.split('://')[0], l.split(':').pop()]));
    const advertised = e.KAFKA_ADVERTISED_LISTENERS.split(',').map((l) => ({ name: l.split('://')[0], host: l.split('://')[1].split(':')[0], port: l.split(':').pop() }));
    // Jobs inside the compose network reach kafka:9092; the host reaches the published external port.
    expect(advertised).toContainEqual({ name: 'PLAINTEXT', host: 'kafka', port: listeners.get('PLAINTEXT') });
    const external = advertised.find((a) => a.name === 'EXTERNAL')!;
    expect(k.ports).toContain(`${external.port}:${listeners.get('EXTERNAL')}`);
    expect(e.KAFKA_CONTROLLER_QUORUM_VOTERS).toBe(`${e.KAFKA_NODE_ID}@kafka:${listeners.get('CONTROLLER')}`);
    for (const l of [...listeners.keys()]) expect(e.KAFKA_LISTENER_SECURITY_PROTOCOL_MAP).toContain(`${l}:`);
  });
});
