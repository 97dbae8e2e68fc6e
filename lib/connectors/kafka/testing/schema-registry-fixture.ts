/**
 * A FIXTURE, not Confluent Schema Registry: a local HTTP server that serves the REST subset
 * Weir's client uses (GET /schemas/ids/{id}, GET /subjects/{subject}/versions/latest, POST
 * /subjects/{subject}/versions), in memory, with Confluent's answers and error codes for those
 * (40401 subject not found, 40403 schema not found). It proves that Weir speaks that subset and
 * keeps its own contract (ids, caching, timeouts, the outbound policy), not that a given
 * registry release behaves the same way. `hang` makes it never answer, for timeouts;
 * `basicAuth` ("user:password") makes it answer 401 as the registry does (error_code 401) to a
 * request without those HTTP Basic credentials.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SchemaRegistryFixture {
  url: string;
  /** Every request, as "METHOD path". */
  requests: string[];
  /** Registers a schema as a producer's serializer would; its id. */
  register(subject: string, schema: object | string): number;
  hang: boolean;
  /** When set, "user:password" every request must carry as HTTP Basic authentication. */
  basicAuth: string | null;
  close(): Promise<void>;
}

export async function startSchemaRegistryFixture(): Promise<SchemaRegistryFixture> {
  const schemas: string[] = [];
  const subjects = new Map<string, number[]>();
  const requests: string[] = [];
  const register = (subject: string, schema: object | string): number => {
    const text = typeof schema === 'string' ? JSON.stringify(JSON.parse(schema)) : JSON.stringify(schema);
    let id = schemas.indexOf(text) + 1;
    if (id === 0) id = schemas.push(text);
    const versions = subjects.get(subject) ?? [];
    if (!versions.includes(id)) versions.push(id);
    subjects.set(subject, versions);
    return id;
  };
  const fixture: SchemaRegistryFixture = { url: '', requests, register, hang: false, basicAuth: null, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      if (fixture.hang) return;
      const send = (status: number, json: object) => res.writeHead(status, { 'content-type': 'application/vnd.schemaregistry.v1+json' }).end(JSON.stringify(json));
      const url = req.url ?? '';
      if (fixture.basicAuth !== null && req.headers.authorization !== `Basic ${Buffer.from(fixture.basicAuth).toString('base64')}`) {
        return send(401, { error_code: 401, message: 'Unauthorized' });
      }
      let m = /^\/schemas\/ids\/(\d+)$/.exec(url);
      if (req.method === 'GET' && m) {
        const s = schemas[Number(m[1]) - 1];
        return s ? send(200, { schema: s }) : send(404, { error_code: 40403, message: 'Schema not found' });
      }
      m = /^\/subjects\/([^/]+)\/versions\/latest$/.exec(url);
      if (req.method === 'GET' && m) {
        const subject = decodeURIComponent(m[1]);
        const v = subjects.get(subject);
        if (!v) return send(404, { error_code: 40401, message: `Subject '${subject}' not found.` });
        const id = v[v.length - 1];
        return send(200, { subject, version: v.length, id, schema: schemas[id - 1] });
      }
      m = /^\/subjects\/([^/]+)\/versions$/.exec(url);
      if (req.method === 'POST' && m) {
        try {
          const { schema } = JSON.parse(body) as { schema: string };
          return send(200, { id: register(decodeURIComponent(m[1]), schema) });
        } catch {
          return send(422, { error_code: 42201, message: 'Invalid schema' });
        }
      }
      send(404, { error_code: 404, message: 'HTTP 404 Not Found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fixture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fixture.close = () => new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
  return fixture;
}
