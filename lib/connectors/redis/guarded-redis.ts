/**
 * An ioredis Connector under the outbound policy. ioredis passes only host, port and family to
 * net.connect (no `lookup`), but takes a `Connector` class: this one is ioredis's standalone
 * connector with the host checked and the policy's `lookup` given to net/tls, so every connect
 * and every reconnect checks the address actually connected to. A Unix socket path is refused.
 */
import net from 'node:net';
import tls from 'node:tls';
import { AbstractConnector } from 'ioredis';
import { checkedConnectOptions, type OutboundPolicy, OutboundRefusedError, unixSocketRefusal } from '../../engine';

interface ConnectorOptions {
  host?: string;
  port?: number;
  family?: number;
  path?: string;
  tls?: tls.ConnectionOptions;
  disconnectTimeout?: number;
}

type NetStream = net.Socket | tls.TLSSocket;

export function guardedRedisConnector(policy: OutboundPolicy) {
  return class GuardedRedisConnector extends AbstractConnector {
    private readonly options: ConnectorOptions;

    constructor(options: unknown) {
      const o = options as ConnectorOptions;
      super(o.disconnectTimeout ?? 2000);
      this.options = o;
    }

    connect(): Promise<NetStream> {
      this.connecting = true;
      const o = this.options;
      return new Promise<NetStream>((resolve, reject) => {
        // As ioredis's own connector: create the stream on the next tick, unless disconnected.
        process.nextTick(() => {
          if (!this.connecting) return reject(new Error('Connection is closed.'));
          try {
            // A Unix socket (`/path/redis.sock`, `?path=`) is refused: jobs reach Redis over TCP only.
            if (o.path) throw new OutboundRefusedError(unixSocketRefusal(o.path));
            const target = { ...checkedConnectOptions(policy, 'redis', o.host ?? 'localhost', o.port ?? 6379), ...(o.family ? { family: o.family } : {}) };
            this.stream = o.tls ? tls.connect({ ...o.tls, ...target }) : net.createConnection(target);
          } catch (e) {
            return reject(e);
          }
          this.stream.once('error', (err) => {
            this.firstError = err;
          });
          resolve(this.stream);
        });
      });
    }
  };
}
