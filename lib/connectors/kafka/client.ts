/**
 * The one place Weir builds a Kafka client (KafkaJS): connection and security options shared by
 * the source and the sink, every broker connection through the outbound policy, and error
 * messages with secrets redacted.
 *
 * Why a socketFactory and not only a check of `bootstrapServers`: a Kafka client connects to the
 * brokers the cluster metadata names (advertised listeners), not just to the bootstrap list, so a
 * bootstrap server could name any address as a broker. Every socket KafkaJS opens goes through
 * `checkedConnectOptions`, so a refused address is refused whoever named it.
 */
import { createRequire } from 'node:module';
import net from 'node:net';
import tls from 'node:tls';
import { z } from 'zod';
import { Kafka, logLevel, type ISocketFactory, type KafkaConfig, type SASLOptions } from 'kafkajs';
import type { ClusterOptions } from './fetch';
import { checkDestinationValue, checkedConnectOptions, type OutboundPolicy, OutboundRefusedError } from '../../engine';
import { redact } from '../postgres/pg-util';

/**
 * KafkaJS 2.2.4's request queue re-arms a timer after every check, whether or not a request
 * waits, at `throttledUntil - Date.now()`: with no throttle that is about -1.8e12 ms, so every
 * connection to a broker wakes every millisecond for as long as it is open (an idle connected
 * admin client: ~2,200 timers and 300 ms of CPU in 5 s), and on Node 24 the negative delay
 * prints a TimeoutNegativeWarning on stderr. Both are open upstream with fixes unreleased
 * (KafkaJS has had no release since 2023). Pending requests wait only for a throttle to end or
 * for an in-flight request to finish (which checks the queue itself), so the check is armed
 * only while a request is pending, after the throttle or at KafkaJS's 10 ms poll. Patched on
 * the exact version the dependency is pinned to (fetch.ts reads through internals too).
 */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;
interface RawRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}
const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue') as { prototype: RawRequestQueue };
RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RawRequestQueue) {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL);
};

const SASL = { securityProtocol: ['SASL_PLAINTEXT', 'SASL_SSL'] };
const TLS = { securityProtocol: ['SSL', 'SASL_SSL'] };

/** Options every Kafka connector takes (Spark's `kafka.bootstrap.servers` and the security settings). */
export const kafkaConnectionOptions = {
  bootstrapServers: z.string().min(1).meta({ examples: ['127.0.0.1:9092'] }).describe('Comma-separated host:port of the brokers to bootstrap from.'),
  securityProtocol: z.enum(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL']).default('PLAINTEXT'),
  saslMechanism: z.enum(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512']).optional().meta({ appliesWhen: SASL }),
  saslUsername: z.string().min(1).optional().meta({ appliesWhen: SASL }),
  saslPassword: z.string().min(1).optional().meta({ appliesWhen: SASL }),
  sslCa: z.string().min(1).optional().meta({ appliesWhen: TLS }).describe('PEM of the CA that signed the brokers\' certificates (default: the system CAs).'),
  sslCert: z.string().min(1).optional().meta({ appliesWhen: TLS }).describe('PEM client certificate, for brokers that require TLS client authentication.'),
  sslKey: z.string().min(1).optional().meta({ appliesWhen: TLS }).describe('PEM private key of sslCert.'),
  clientId: z.string().min(1).default('weir'),
  requestTimeoutMs: z.number().int().min(1_000).max(600_000).default(30_000).meta({ examples: [30_000] }),
};

export type KafkaConnectionOptions = z.infer<z.ZodObject<typeof kafkaConnectionOptions>>;

/** Option keys whose values are secrets, for the source and sink definitions (basicAuthUserInfo: the schema registry's). */
export const KAFKA_SECRET_OPTIONS = ['saslPassword', 'sslKey', 'basicAuthUserInfo'] as const;

/** Cross-field checks zod's per-field schema cannot say; returns a problem or undefined. */
export function kafkaSecurityProblem(o: KafkaConnectionOptions): { path: string; message: string } | undefined {
  const sasl = o.securityProtocol === 'SASL_PLAINTEXT' || o.securityProtocol === 'SASL_SSL';
  if (sasl && (!o.saslMechanism || !o.saslUsername || !o.saslPassword)) {
    return { path: 'saslMechanism', message: `securityProtocol ${o.securityProtocol} needs saslMechanism, saslUsername and saslPassword` };
  }
  if (!sasl && (o.saslMechanism || o.saslUsername || o.saslPassword)) {
    return { path: 'securityProtocol', message: 'SASL options are set but securityProtocol is not SASL_PLAINTEXT or SASL_SSL' };
  }
  const ssl = o.securityProtocol === 'SSL' || o.securityProtocol === 'SASL_SSL';
  if (!ssl && (o.sslCa || o.sslCert || o.sslKey)) return { path: 'securityProtocol', message: 'TLS options are set but securityProtocol is not SSL or SASL_SSL' };
  if (Boolean(o.sslCert) !== Boolean(o.sslKey)) return { path: 'sslCert', message: 'sslCert and sslKey go together' };
  return undefined;
}

type WithRegistryCredentials = KafkaConnectionOptions & { basicAuthUserInfo?: string };

function kafkaSecrets(o: WithRegistryCredentials): string[] {
  // The registry's user:password, and its password alone.
  const registry = o.basicAuthUserInfo ? [o.basicAuthUserInfo, o.basicAuthUserInfo.slice(o.basicAuthUserInfo.indexOf(':') + 1)] : [];
  return [o.saslPassword, o.sslKey, ...registry].filter((s): s is string => Boolean(s));
}

export function redactKafka(message: string, o: WithRegistryCredentials): string {
  return redact(message, kafkaSecrets(o));
}

/** The socket, TLS and SASL settings of every Kafka connection Weir makes. Throws OutboundRefusedError for a refused bootstrap list. */
export function kafkaClusterOptions(o: KafkaConnectionOptions, policy: OutboundPolicy): ClusterOptions {
  const refused = checkDestinationValue('kafka', o.bootstrapServers, policy);
  if (refused) throw new OutboundRefusedError(refused);
  const useTls = o.securityProtocol === 'SSL' || o.securityProtocol === 'SASL_SSL';
  const sasl: SASLOptions | undefined = o.saslMechanism && o.saslUsername && o.saslPassword
    ? ({ mechanism: o.saslMechanism.toLowerCase(), username: o.saslUsername, password: o.saslPassword } as SASLOptions)
    : undefined;
  const socketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
    const checked = checkedConnectOptions(policy, 'kafka', host, port);
    const socket = ssl ? tls.connect({ ...checked, servername: host, ...(ssl as tls.ConnectionOptions) }, onConnect) : net.connect(checked, onConnect);
    socket.setKeepAlive(true, 60_000);
    return socket;
  };
  return {
    brokers: o.bootstrapServers.split(',').map((s) => s.trim()).filter(Boolean),
    ssl: useTls ? { ca: o.sslCa, cert: o.sslCert, key: o.sslKey } : false,
    sasl,
    clientId: o.clientId,
    requestTimeout: o.requestTimeoutMs,
    socketFactory,
  };
}

/** A KafkaJS client whose sockets all go through the outbound policy. */
export function createKafka(o: KafkaConnectionOptions, policy: OutboundPolicy): Kafka {
  const c = kafkaClusterOptions(o, policy);
  const config: KafkaConfig = {
    ...c,
    connectionTimeout: 10_000,
    // Weir reports failures itself, redacted; KafkaJS's own logger would print them unredacted.
    logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 5_000 },
  };
  return new Kafka(config);
}
